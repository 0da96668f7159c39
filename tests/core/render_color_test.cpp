// Colour modes: the elevation ramp (stops, clamping, alpha, both qualities) and its view checks.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/views.hpp"
#include "core/render_math.hpp"
#include "core/render_test_util.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

constexpr std::uint32_t kBlack = pack_rgba(0, 0, 0);

detail::RenderParams elevation_params(float low, float high) {
  detail::RenderParams p{};
  p.color_mode = detail::kColorElevation;
  p.z_low = low;
  p.z_scale = 1.0f / (high - low);
  return p;
}

TEST(RenderColor, ElevationRampStopsAndClamping) {
  const detail::RenderParams p = elevation_params(10.0f, 18.0f);
  const std::uint32_t grey = pack_rgba(128, 128, 128, 200);
  EXPECT_EQ(detail::sample_color(p, 10.0f, grey), pack_rgba(43, 131, 186, 200))
      << "low end, alpha kept";
  EXPECT_EQ(detail::sample_color(p, 14.0f, grey), pack_rgba(255, 255, 191, 200)) << "middle stop";
  EXPECT_EQ(detail::sample_color(p, 18.0f, grey), pack_rgba(215, 25, 28, 200)) << "high end";
  EXPECT_EQ(detail::sample_color(p, -1e30f, grey), detail::sample_color(p, 10.0f, grey));
  EXPECT_EQ(detail::sample_color(p, 1e30f, grey), detail::sample_color(p, 18.0f, grey));
  // Between stops 0 and 1, a quarter of the way: 3/4 of one plus 1/4 of the other (t = 1/16).
  EXPECT_EQ(detail::sample_color(p, 10.5f, grey),
            pack_rgba((43 * 192 + 171 * 64) >> 8, (131 * 192 + 221 * 64) >> 8,
                      (186 * 192 + 164 * 64) >> 8, 200));
  // The RGB mode leaves colours alone.
  detail::RenderParams rgb = p;
  rgb.color_mode = detail::kColorRgb;
  EXPECT_EQ(detail::sample_color(rgb, 14.0f, grey), grey);
}

TEST(RenderColor, ElevationColoursEveryDrawnSampleByItsHeight) {
  // Two layers of points, red at z = 1 and blue at z = 3, seen from above in both qualities:
  // the low layer's pixels take the ramp's low end, the high layer's its high end.
  std::vector<Point> pts;
  for (int i = 0; i < 8; ++i) {
    pts.push_back({0.5f + float(i), 0.5f, 1.0f, pack_rgba(255, 0, 0)});
    pts.push_back({0.5f + float(i), 7.5f, 3.0f, pack_rgba(0, 0, 255)});
  }
  Octree tree = leaf_tree(pts);
  for (const auto quality : {RenderQuality::Fast, RenderQuality::High}) {
    View view = top_view(0, 8, 0, 8, 8, 8);
    view.quality = quality;
    view.color = ColorMode::Elevation;
    view.elevation_range = {1.0f, 3.0f};
    Framebuffer fb(8, 8, Backend::Cpu);
    rasterize(tree, view, fb);
    const auto image = fb.download();
    EXPECT_EQ(covered(image, kBlack), 16u);
    for (std::uint32_t col = 0; col < 8; ++col) {
      EXPECT_EQ(pixel_at(image, 8, col, 7), pack_rgba(43, 131, 186)) << "low layer, column " << col;
      EXPECT_EQ(pixel_at(image, 8, col, 0), pack_rgba(215, 25, 28)) << "high layer";
    }
  }
}

TEST(RenderColor, ElevationRangeMustBeFiniteAndIncreasing) {
  Octree tree = leaf_tree(std::vector<Point>{{1.0f, 1.0f, 1.0f, kBlack}});
  Framebuffer fb(8, 8, Backend::Cpu);
  View view = top_view(0, 8, 0, 8, 8, 8);
  view.color = ColorMode::Elevation;
  for (const auto& range : {std::array<float, 2>{2.0f, 2.0f}, std::array<float, 2>{3.0f, 1.0f},
                            std::array<float, 2>{0.0f, std::numeric_limits<float>::infinity()},
                            std::array<float, 2>{std::nanf(""), 1.0f}}) {
    view.elevation_range = range;
    try {
      rasterize(tree, view, fb);
      ADD_FAILURE() << "expected InvalidInput for [" << range[0] << ", " << range[1] << "]";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("elevation_range"), std::string::npos) << e.what();
    }
  }
  view.color = ColorMode::Rgb;  // the range only matters when the ramp is used
  EXPECT_NO_THROW(rasterize(tree, view, fb));
}

TEST(RenderColor, ToolsPickElevationForDataWithoutColour) {
  Bounds box;
  box.expand(0, 0, 2);
  box.expand(10, 10, 5);
  View v;
  examples::apply_color(v, "auto", false, box);
  EXPECT_EQ(v.color, ColorMode::Elevation);
  EXPECT_EQ(v.elevation_range, (std::array<float, 2>{2.0f, 5.0f}));
  examples::apply_color(v, "auto", true, box);
  EXPECT_EQ(v.color, ColorMode::Rgb);
  examples::apply_color(v, "elevation", true, box);
  EXPECT_EQ(v.color, ColorMode::Elevation);
  examples::apply_color(v, "rgb", false, box);
  EXPECT_EQ(v.color, ColorMode::Rgb);
  Bounds flat;  // one height: a valid range around it
  flat.expand(0, 0, 3);
  flat.expand(1, 1, 3);
  examples::apply_color(v, "elevation", false, flat);
  EXPECT_LT(v.elevation_range[0], v.elevation_range[1]);
  EXPECT_THROW(examples::apply_color(v, "height", false, box), InvalidInput);
}

}  // namespace
}  // namespace simlod::test
