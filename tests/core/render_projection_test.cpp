// Renderer basics on the CPU backend: where a sample lands, which of two samples wins, what
// is clipped, depth, background, eye-dome lighting, and the framebuffer's own checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <compare>
#include <filesystem>
#include <limits>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "core/render_test_util.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

constexpr std::uint32_t kRed = pack_rgba(255, 0, 0), kBlue = pack_rgba(0, 0, 255);
constexpr std::uint32_t kBlack = pack_rgba(0, 0, 0);

TEST(RenderProjection, PointLandsOnThePixelOfTheFormula) {
  const Point p{2.3f, 5.6f, 1.0f, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  // Perspective camera: the pixel from the documented formula, evaluated here in double.
  const View view =
      View::look_at({4.0, -6.0, 9.0}, {4.0, 4.0, 0.0}, {0.0, 0.0, 1.0}, 50.0, 97, 61, 0.5, 100.0);
  const std::array<float, 16> m = view.view_projection();
  double clip[4];
  for (int r = 0; r < 4; ++r) {
    clip[r] = double(m[r]) * p.x + double(m[4 + r]) * p.y + double(m[8 + r]) * p.z + m[12 + r];
  }
  const auto col = static_cast<std::uint32_t>(std::floor((clip[0] / clip[3] + 1) / 2 * 97));
  const auto row = static_cast<std::uint32_t>(std::floor((1 - clip[1] / clip[3]) / 2 * 61));
  Framebuffer fb(97, 61, Backend::Cpu, 2);
  const RenderStats stats = rasterize(tree, view, fb);
  EXPECT_EQ(stats.points, 1u);
  EXPECT_EQ(stats.nodes, 1u);
  const auto image = fb.download();
  EXPECT_EQ(pixel_at(image, 97, col, row), kRed);
  EXPECT_EQ(covered(image, kBlack), 1u);
  const auto depth = fb.download_depth();
  EXPECT_NEAR(depth[row * 97 + col], clip[3], 1e-4 * clip[3]);  // perspective: depth = w
  EXPECT_TRUE(std::isinf(depth[0]));
}

TEST(RenderProjection, OrthographicPixelsAndDepth) {
  // 8 x 8 pixels over [0, 8]^2: the point at (x, y) lands in column floor(x), row 7 - floor(y).
  const std::vector<Point> pts{{0.5f, 0.5f, 1.0f, kRed}, {7.9f, 7.9f, 2.0f, kBlue}};
  Octree tree = leaf_tree(pts);
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
  const auto image = fb.download();
  EXPECT_EQ(pixel_at(image, 8, 0, 7), kRed);
  EXPECT_EQ(pixel_at(image, 8, 7, 0), kBlue);
  EXPECT_EQ(covered(image, kBlack), 2u);
  // Orthographic depth is (z_ndc + 1) / 2 over near 0.5 .. far 200 at eye distance 100 - z.
  const auto depth = fb.download_depth();
  EXPECT_NEAR(depth[7 * 8 + 0], (99.0 - 0.5) / 199.5, 1e-6);
  EXPECT_LT(depth[0 * 8 + 7], depth[7 * 8 + 0]);  // higher point, nearer to the camera
}

TEST(RenderProjection, NearerPointWinsInEitherOrder) {
  const Point low{3.5f, 3.5f, 1.0f, kRed}, high{3.5f, 3.5f, 2.0f, kBlue};
  for (const auto& pts : {std::vector<Point>{low, high}, std::vector<Point>{high, low}}) {
    Octree tree = leaf_tree(pts);
    Framebuffer fb(8, 8, Backend::Cpu);
    rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
    EXPECT_EQ(pixel_at(fb.download(), 8, 3, 4), kBlue);  // the higher point is nearer
  }
}

TEST(RenderProjection, PointSizeCoversASquareAroundThePixel) {
  // 8 x 8 pixels over [0, 8]^2: (3.5, 4.5) lands in column 3, row 3; (0.5, 0.5) in the corner.
  const std::vector<Point> pts{{3.5f, 4.5f, 1.0f, kRed}, {0.5f, 0.5f, 1.0f, kBlue}};
  Octree tree = leaf_tree(pts);
  Framebuffer fb(8, 8, Backend::Cpu);
  for (std::uint32_t size : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE(size);
    View view = top_view(0, 8, 0, 8, 8, 8);
    view.point_size = size;
    rasterize(tree, view, fb);
    const auto image = fb.download();
    const auto depth = fb.download_depth();
    // Columns and rows col - (s - 1) / 2 .. col + s / 2, cut at the image's edges.
    std::size_t red = 0, blue = 0;
    for (std::uint32_t row = 0; row < 8; ++row) {
      for (std::uint32_t col = 0; col < 8; ++col) {
        const bool in_red = col + (size - 1) / 2 >= 3 && col <= 3 + size / 2 &&
                            row + (size - 1) / 2 >= 3 && row <= 3 + size / 2;
        const bool in_blue = col <= size / 2 && row + (size - 1) / 2 >= 7;
        const std::uint32_t want = in_red ? kRed : in_blue ? kBlue : kBlack;
        EXPECT_EQ(pixel_at(image, 8, col, row), want) << col << ", " << row;
        red += want == kRed;
        blue += want == kBlue;
        if (want != kBlack) {
          EXPECT_NEAR(depth[row * 8 + col], (99.0 - 0.5) / 199.5, 1e-6);
        }
      }
    }
    EXPECT_EQ(red, std::size_t{size} * size);
    // Cut by the corner: columns 0 .. s / 2, rows 7 - (s - 1) / 2 .. 7.
    EXPECT_EQ(blue, std::size_t{size / 2 + 1} * ((size - 1) / 2 + 1));
  }
  // Overlapping squares: the nearer sample wins every pixel it covers.
  const std::vector<Point> two{{3.5f, 4.5f, 1.0f, kRed}, {4.5f, 4.5f, 2.0f, kBlue}};
  Octree both = leaf_tree(two);
  View view = top_view(0, 8, 0, 8, 8, 8);
  view.point_size = 3;
  rasterize(both, view, fb);
  EXPECT_EQ(pixel_at(fb.download(), 8, 3, 3), kBlue);  // blue is higher: nearer
  EXPECT_EQ(pixel_at(fb.download(), 8, 2, 3), kRed);   // only red reaches it
  view.point_size = 0;
  EXPECT_THROW(rasterize(both, view, fb), InvalidInput);
  view.point_size = View::kMaxPointSize + 1;
  EXPECT_THROW(rasterize(both, view, fb), InvalidInput);
}

TEST(RenderProjection, EqualDepthTieGoesToTheSmallerColourValue) {
  const Point a{3.5f, 3.5f, 1.0f, kRed}, b{3.5f, 3.5f, 1.0f, kBlue};
  for (const auto& pts : {std::vector<Point>{a, b}, std::vector<Point>{b, a}}) {
    Octree tree = leaf_tree(pts);
    Framebuffer fb(8, 8, Backend::Cpu);
    rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
    EXPECT_EQ(pixel_at(fb.download(), 8, 3, 4), std::min(kRed, kBlue));
  }
}

TEST(RenderProjection, SamplesOutsideTheViewAreClipped) {
  const std::vector<Point> pts{{1.0f, 1.0f, 1.0f, kRed},   // off the image (x < 2)
                               {5.5f, 5.5f, 7.9f, kBlue},  // inside
                               {5.0f, 6.0f, 0.2f, kRed}};  // beyond the far plane
  Octree tree = leaf_tree(pts);
  // Top view of [2, 8]^2 from z = 100 with depth range 92 .. 99.5: z in (0.5, 8).
  const View view = View::from_matrices(top_down(100.0f), ortho(2, 8, 2, 8, 92.0f, 99.5f), 6, 6);
  Framebuffer fb(6, 6, Backend::Cpu);
  rasterize(tree, view, fb);
  const auto image = fb.download();
  EXPECT_EQ(covered(image, kBlack), 1u);
  EXPECT_EQ(pixel_at(image, 6, 3, 2), kBlue);
}

TEST(RenderProjection, PointsBehindThePerspectiveCameraAreNotDrawn) {
  const std::vector<Point> pts{{4.0f, 1.0f, 4.0f, kRed}, {4.0f, 7.0f, 4.0f, kBlue}};
  Octree tree = leaf_tree(pts);
  // At y = 4 looking along +y: the red point is behind the camera.
  const View view = View::look_at({4, 4, 4}, {4, 8, 4}, {0, 0, 1}, 90.0, 32, 32, 0.1, 50.0);
  Framebuffer fb(32, 32, Backend::Cpu);
  rasterize(tree, view, fb);
  const auto image = fb.download();
  EXPECT_EQ(covered(image, kBlack), 1u);
  EXPECT_EQ(pixel_at(image, 32, 16, 16), kBlue);
}

TEST(RenderProjection, EmptyTreeGivesTheBackground) {
  Octree tree = leaf_tree({});
  View view = top_view(0, 8, 0, 8, 8, 8);
  view.quality = RenderQuality::High;
  view.eye_dome_lighting = true;
  Framebuffer fb(8, 8, Backend::Cpu);
  const RenderStats stats = rasterize(tree, view, fb);
  EXPECT_EQ(stats.samples(), 0u);
  EXPECT_EQ(stats.nodes, 1u);  // the empty root leaf
  EXPECT_EQ(covered(fb.download(), view.background), 0u);
}

TEST(RenderProjection, BackgroundAndResolveAgain) {
  const Point p{3.5f, 3.5f, 1.0f, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  View view = top_view(0, 8, 0, 8, 8, 8);
  view.background = pack_rgba(10, 20, 30, 255);
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, view, fb);
  EXPECT_EQ(covered(fb.download(), view.background), 1u);
  fb.resolve(pack_rgba(1, 2, 3, 4));
  const auto image = fb.download();
  EXPECT_EQ(pixel_at(image, 8, 0, 0), pack_rgba(1, 2, 3, 4));
  EXPECT_EQ(pixel_at(image, 8, 3, 4), kRed);
}

TEST(RenderProjection, SavePngWritesTheImage) {
  const Point p{3.5f, 3.5f, 1.0f, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
  const auto path = std::filesystem::temp_directory_path() / "simlod_render_save.png";
  fb.save_png(path);
  EXPECT_GT(std::filesystem::file_size(path), 8u);
  std::filesystem::remove(path);
}

TEST(RenderProjection, HighQualityAveragesSamplesNearTheNearestDepth) {
  // Camera at z = 100 (perspective, looking down): depth = 100 - z. Two samples at depth 90
  // and 90.5 (within 1%) blend; one at depth 95 does not.
  const std::vector<Point> pts{{4.0f, 4.0f, 10.0f, pack_rgba(200, 0, 0)},
                               {4.0f, 4.0f, 9.5f, pack_rgba(0, 100, 0)},
                               {4.0f, 4.0f, 5.0f, pack_rgba(0, 0, 255)}};
  Octree tree = leaf_tree(pts, 16.0);
  View view = View::look_at({4, 4, 100}, {4, 4, 0}, {0, 1, 0}, 10.0, 9, 9, 1.0, 200.0);
  view.quality = RenderQuality::High;
  Framebuffer fb(9, 9, Backend::Cpu);
  rasterize(tree, view, fb);
  EXPECT_EQ(pixel_at(fb.download(), 9, 4, 4), pack_rgba(100, 50, 0));
  view.quality = RenderQuality::Fast;
  rasterize(tree, view, fb);
  EXPECT_EQ(pixel_at(fb.download(), 9, 4, 4), pack_rgba(200, 0, 0));
}

TEST(RenderProjection, EyeDomeLightingDarkensPixelsBehindTheirNeighbours) {
  // A flat square at z = 1 with a raised column at its centre: the pixels next to the column
  // lie behind it and get darker; pixels of the flat part far from it keep their colour.
  std::vector<Point> pts;
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 8; ++x) {
      const float z = (x == 4 && y == 4) ? 5.0f : 1.0f;
      pts.push_back({x + 0.5f, y + 0.5f, z, pack_rgba(200, 200, 200)});
    }
  }
  Octree tree = leaf_tree(pts);
  View view = View::look_at({4, 4, 60}, {4, 4, 0}, {0, 1, 0}, 8.0, 8, 8, 1.0, 200.0);
  view.eye_dome_lighting = true;
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, view, fb);
  const auto image = fb.download();
  // Find the raised sample's pixel from the depth buffer.
  const auto depth = fb.download_depth();
  std::size_t top = 0;
  for (std::size_t i = 0; i < depth.size(); ++i) top = depth[i] < depth[top] ? i : top;
  const std::uint32_t col = top % 8, row = static_cast<std::uint32_t>(top / 8);
  ASSERT_GT(col, 0u);
  EXPECT_LT(red_of(pixel_at(image, 8, col - 1, row)), 200u);          // behind the column
  EXPECT_EQ(pixel_at(image, 8, col, row), pack_rgba(200, 200, 200));  // nearest: no darkening
  EXPECT_EQ(pixel_at(image, 8, 0, 0), pack_rgba(200, 200, 200));      // flat and far from it
}

// Eye-dome lighting as Potree's EDL, checked against an independent evaluation in double of
// the formula: neighbour i of a pixel is the one containing the point at `radius` pixels from
// its centre in the direction 2 pi i / 8; shade = exp(-300 * strength * sum / 8), the sum over
// neighbours with a sample of max(0, log2 depth - log2 neighbour depth); an empty pixel with a
// sampled neighbour is opaque black.

struct PixelOffset {
  int col, row;
  auto operator<=>(const PixelOffset&) const = default;
};

std::vector<PixelOffset> edl_neighbours(double radius) {
  std::vector<PixelOffset> out;
  for (int i = 0; i < 8; ++i) {
    const double a = 2.0 * std::numbers::pi * i / 8.0;
    out.push_back({static_cast<int>(std::floor(0.5 + radius * std::cos(a))),
                   static_cast<int>(std::floor(0.5 + radius * std::sin(a)))});
  }
  return out;
}

std::set<PixelOffset> as_set(const std::vector<PixelOffset>& v) { return {v.begin(), v.end()}; }

constexpr std::uint32_t kEdlSize = 20;
constexpr std::uint32_t kPlaneColour = pack_rgba(200, 160, 120);
constexpr std::uint32_t kEdlBackground = pack_rgba(10, 20, 30, 255);
constexpr std::uint32_t kOutline = pack_rgba(0, 0, 0, 255);

/// Samples on the cells [2, 18)^2 of a 20 x 20 top view (cell (x, y) lands on column x, row
/// 19 - y) at z = 1, except: cell (3, 9) raised to z = 1.2, next to the square's left edge (its
/// neighbours there have empty neighbours of their own); cell (13, 6) lowered to z = 0.8; cell
/// (10, 13) left empty (a hole).
std::vector<Point> edl_plane() {
  std::vector<Point> pts;
  for (int y = 2; y < 18; ++y) {
    for (int x = 2; x < 18; ++x) {
      if (x == 10 && y == 13) continue;
      const float z = (x == 3 && y == 9) ? 1.2f : (x == 13 && y == 6) ? 0.8f : 1.0f;
      pts.push_back({x + 0.5f, y + 0.5f, z, kPlaneColour});
    }
  }
  return pts;
}

/// The eye-dome image expected from the unshaded image and the depth buffer (+inf: empty),
/// evaluated in double.
std::vector<std::uint32_t> expected_edl(const std::vector<std::uint8_t>& plain,
                                        const std::vector<float>& depth, std::uint32_t w,
                                        std::uint32_t h, double strength, double radius,
                                        std::uint32_t background) {
  const std::vector<PixelOffset> nb = edl_neighbours(radius);
  std::vector<std::uint32_t> out(std::size_t{w} * h);
  for (std::uint32_t row = 0; row < h; ++row) {
    for (std::uint32_t col = 0; col < w; ++col) {
      const std::size_t i = std::size_t{row} * w + col;
      double sum = 0.0;
      bool sampled_neighbour = false;
      for (const PixelOffset& o : nb) {
        const long c = long{col} + o.col, r = long{row} + o.row;
        if (c < 0 || r < 0 || c >= long{w} || r >= long{h}) continue;
        const float d = depth[std::size_t(r) * w + std::size_t(c)];
        if (std::isinf(d)) continue;
        sampled_neighbour = true;
        if (!std::isinf(depth[i])) {
          sum += std::max(0.0, std::log2(double{depth[i]}) - std::log2(double{d}));
        }
      }
      if (std::isinf(depth[i])) {
        out[i] = sampled_neighbour ? kOutline : background;
        continue;
      }
      const std::uint32_t c = pixel_at(plain, w, col, row);
      if (sum == 0.0) {
        out[i] = pack_rgba(red_of(c), green_of(c), blue_of(c), 255);
        continue;
      }
      const double shade = std::exp(-300.0 * strength * sum / 8.0);
      auto channel = [&](std::uint32_t v) {
        return static_cast<std::uint32_t>(std::floor(v * shade + 0.5));
      };
      out[i] = pack_rgba(channel(red_of(c)), channel(green_of(c)), channel(blue_of(c)), 255);
    }
  }
  return out;
}

/// Pixels of `image` further than one colour step from `expected` in a channel, or with
/// another alpha; the first few are printed.
std::size_t edl_mismatches(const std::vector<std::uint8_t>& image,
                           const std::vector<std::uint32_t>& expected, std::uint32_t w) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto col = static_cast<std::uint32_t>(i % w), row = static_cast<std::uint32_t>(i / w);
    const std::uint32_t got = pixel_at(image, w, col, row), want = expected[i];
    auto off = [](std::uint32_t a, std::uint32_t b) { return a > b + 1 || b > a + 1; };
    if (off(red_of(got), red_of(want)) || off(green_of(got), green_of(want)) ||
        off(blue_of(got), blue_of(want)) || (got >> 24) != (want >> 24)) {
      if (n++ < 5) {
        ADD_FAILURE() << "pixel (" << col << ", " << row << "): got " << std::hex << got
                      << ", expected " << want;
      }
    }
  }
  return n;
}

TEST(RenderEyeDome, NeighboursAreThePixelsOnTheCircle) {
  // The 8 pixels around the centre at Potree's radius 1.4.
  EXPECT_EQ(as_set(edl_neighbours(1.4)),
            (std::set<PixelOffset>{
                {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}));
  // Radius 2: two pixels along the axes, but floor(0.5 + 2 cos(pi / 4)) = 1 on the diagonals.
  EXPECT_EQ(as_set(edl_neighbours(2.0)),
            (std::set<PixelOffset>{
                {2, 0}, {1, 1}, {0, 2}, {-1, 1}, {-2, 0}, {-1, -1}, {0, -2}, {1, -1}}));
  // Radius 2.5: the points at +-2.5 from the centre lie in pixels +3 and -2.
  EXPECT_EQ(as_set(edl_neighbours(2.5)),
            (std::set<PixelOffset>{
                {3, 0}, {2, 2}, {0, 3}, {-2, 2}, {-2, 0}, {-2, -2}, {0, -2}, {2, -2}}));
  for (double r : {1.4, 2.0, 2.5}) EXPECT_EQ(edl_neighbours(r).size(), 8u);
}

TEST(RenderEyeDome, ShadesByTheLogDepthStepsToTheNeighbours) {
  Octree tree = leaf_tree(edl_plane(), 32.0);
  View view = top_view(0, kEdlSize, 0, kEdlSize, kEdlSize, kEdlSize);
  view.lod_threshold = 0.0f;
  view.background = kEdlBackground;
  Framebuffer fb(kEdlSize, kEdlSize, Backend::Cpu, 2);
  rasterize(tree, view, fb);
  const auto plain = fb.download();
  const auto depth = fb.download_depth();
  // The raised and the lowered sample, from the depth buffer (top-down: higher is nearer).
  std::size_t top = 0, pit = 0;
  for (std::size_t i = 0; i < depth.size(); ++i) {
    if (std::isinf(depth[i])) continue;
    if (depth[i] < depth[top] || std::isinf(depth[top])) top = i;
    if (depth[i] > depth[pit] || std::isinf(depth[pit])) pit = i;
  }
  const int top_col = int(top % kEdlSize), top_row = int(top / kEdlSize);
  ASSERT_EQ(top_col, 3);
  ASSERT_EQ(top_row, 10);
  ASSERT_EQ(pit, std::size_t{13} * kEdlSize + 13);
  const float plane = depth[std::size_t{4} * kEdlSize + 4];
  ASSERT_LT(depth[top], plane);
  ASSERT_GT(depth[pit], plane);

  struct Case {
    float strength, radius;
  };
  for (const Case& k : {Case{1.0f, 1.4f}, Case{1.0f, 2.0f}, Case{0.5f, 2.5f}, Case{2.0f, 1.4f}}) {
    SCOPED_TRACE(testing::Message() << "strength " << k.strength << ", radius " << k.radius);
    View v = view;
    v.eye_dome_lighting = true;
    v.edl_outline = true;
    v.edl_strength = k.strength;
    v.edl_radius = k.radius;
    rasterize(tree, v, fb);
    const auto image = fb.download();
    const auto want =
        expected_edl(plain, depth, kEdlSize, kEdlSize, k.strength, k.radius, kEdlBackground);
    EXPECT_EQ(edl_mismatches(image, want, kEdlSize), 0u);
    // Resolving again with the same settings gives the same image.
    fb.resolve(kEdlBackground, true, k.strength, k.radius, true);
    EXPECT_EQ(fb.download(), image);

    // The darkened samples are exactly the pit and the pixels that have the raised sample
    // among their neighbours.
    std::set<PixelOffset> darkened, want_darkened{{13, 13}};
    for (const PixelOffset& o : edl_neighbours(k.radius)) {
      const PixelOffset q{top_col - o.col, top_row - o.row};
      if (!std::isinf(depth[std::size_t(q.row) * kEdlSize + std::size_t(q.col)])) {
        want_darkened.insert(q);
      }
    }
    for (std::uint32_t row = 0; row < kEdlSize; ++row) {
      for (std::uint32_t col = 0; col < kEdlSize; ++col) {
        if (std::isinf(depth[std::size_t{row} * kEdlSize + col])) continue;
        if (pixel_at(image, kEdlSize, col, row) != kPlaneColour) {
          darkened.insert({int(col), int(row)});
        }
      }
    }
    EXPECT_EQ(darkened, want_darkened);

    // One step of the raised sample: the mean over 8 neighbours, even where some of them are
    // empty (the square's edge column, left of the raised sample).
    const double step = std::log2(double{plane}) - std::log2(double{depth[top]});
    const double one = std::exp(-300.0 * k.strength * step / 8.0);
    if (k.radius == 1.4f) {
      EXPECT_EQ(pixel_at(image, kEdlSize, 2, 10), pack_rgba(std::uint32_t(std::lround(200 * one)),
                                                            std::uint32_t(std::lround(160 * one)),
                                                            std::uint32_t(std::lround(120 * one))));
      EXPECT_NE(pixel_at(image, kEdlSize, 4, 10), kPlaneColour);  // next to it
      EXPECT_EQ(pixel_at(image, kEdlSize, 5, 10), kPlaneColour);  // two pixels away
    }
    if (k.radius == 2.0f) {
      EXPECT_EQ(pixel_at(image, kEdlSize, 4, 10), kPlaneColour);  // next to it: not a neighbour
      EXPECT_NE(pixel_at(image, kEdlSize, 5, 10), kPlaneColour);  // two pixels away
      EXPECT_NE(pixel_at(image, kEdlSize, 4, 11), kPlaneColour);  // the diagonal
    }
    // The pit lies behind all 8 neighbours by one step each.
    const double down = std::log2(double{depth[pit]}) - std::log2(double{plane});
    const double pit_shade = std::exp(-300.0 * k.strength * 8.0 * down / 8.0);
    EXPECT_NEAR(red_of(pixel_at(image, kEdlSize, 13, 13)), 200 * pit_shade, 1.0);
  }
}

TEST(RenderEyeDome, EmptyPixelsNextToSamplesAreBlack) {
  Octree tree = leaf_tree(edl_plane(), 32.0);
  View view = top_view(0, kEdlSize, 0, kEdlSize, kEdlSize, kEdlSize);
  view.lod_threshold = 0.0f;
  view.background = kEdlBackground;
  Framebuffer fb(kEdlSize, kEdlSize, Backend::Cpu);
  // Without eye-dome lighting every empty pixel keeps the background.
  rasterize(tree, view, fb);
  const std::size_t samples = 16 * 16 - 1;
  EXPECT_EQ(covered(fb.download(), kEdlBackground), samples);
  EXPECT_EQ(pixel_at(fb.download(), kEdlSize, 10, 6), kEdlBackground);  // the hole
  const auto depth = fb.download_depth();
  ASSERT_TRUE(std::isinf(depth[std::size_t{6} * kEdlSize + 10]));

  view.eye_dome_lighting = true;  // the default radius, 1.4
  ASSERT_EQ(view.edl_radius, 1.4f);
  // Without the outline (the default) empty pixels keep the background.
  ASSERT_FALSE(view.edl_outline);
  rasterize(tree, view, fb);
  EXPECT_EQ(covered(fb.download(), kEdlBackground), samples);
  EXPECT_EQ(pixel_at(fb.download(), kEdlSize, 10, 6), kEdlBackground);  // the hole
  view.edl_outline = true;
  rasterize(tree, view, fb);
  const auto image = fb.download();
  EXPECT_EQ(pixel_at(image, kEdlSize, 10, 6), kOutline);         // the hole
  EXPECT_EQ(pixel_at(image, kEdlSize, 1, 10), kOutline);         // left of the square
  EXPECT_EQ(pixel_at(image, kEdlSize, 1, 1), kOutline);          // diagonal to its corner
  EXPECT_EQ(pixel_at(image, kEdlSize, 0, 10), kEdlBackground);   // two pixels away
  EXPECT_EQ(pixel_at(image, kEdlSize, 0, 0), kEdlBackground);    // the image's corner
  EXPECT_EQ(pixel_at(image, kEdlSize, 19, 19), kEdlBackground);  // the other corner
  // The ring around the square (18 x 18 minus 16 x 16) and the hole are outlined.
  std::size_t outline = 0;
  for (std::size_t i = 0; i < depth.size(); ++i) {
    const auto col = static_cast<std::uint32_t>(i % kEdlSize);
    const auto row = static_cast<std::uint32_t>(i / kEdlSize);
    if (std::isinf(depth[i])) outline += pixel_at(image, kEdlSize, col, row) == kOutline;
  }
  EXPECT_EQ(outline, 18u * 18u - 16u * 16u + 1u);
  // At radius 2 the pixels two to the left of the square see it too.
  fb.resolve(kEdlBackground, true, 1.0f, 2.0f, true);
  EXPECT_EQ(pixel_at(fb.download(), kEdlSize, 0, 10), kOutline);
  EXPECT_EQ(pixel_at(fb.download(), kEdlSize, 0, 0), kEdlBackground);
  // Turned off again: the background everywhere.
  fb.resolve(kEdlBackground, false);
  EXPECT_EQ(covered(fb.download(), kEdlBackground), samples);
}

TEST(RenderEyeDome, BadRadiusIsInvalidInputNamingIt) {
  const Point p{1, 1, 1, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
  const float inf = std::numeric_limits<float>::infinity();
  for (float r : {0.0f, -0.0f, -1.4f, std::nanf(""), inf, -inf, 65.0f, 64.001f}) {
    SCOPED_TRACE(testing::Message() << "radius " << r);
    View view = top_view(0, 8, 0, 8, 8, 8);
    view.eye_dome_lighting = true;
    view.edl_radius = r;
    for (int where = 0; where < 3; ++where) {
      try {
        if (where == 0) view.validate();
        if (where == 1) rasterize(tree, view, fb);
        if (where == 2) fb.resolve(kBlack, true, 1.0f, r);
        ADD_FAILURE() << "expected InvalidInput";
      } catch (const InvalidInput& e) {
        EXPECT_NE(std::string(e.what()).find("edl_radius"), std::string::npos) << e.what();
      }
    }
  }
  // The ends of the valid range.
  for (float r : {1e-3f, 0.5f, 64.0f}) {
    View view = top_view(0, 8, 0, 8, 8, 8);
    view.eye_dome_lighting = true;
    view.edl_radius = r;
    EXPECT_NO_THROW(rasterize(tree, view, fb)) << r;
    EXPECT_NO_THROW(fb.resolve(kBlack, true, 1.0f, r)) << r;
  }
}

TEST(RenderErrors, ViewAndFramebufferMustMatch) {
  const Point p{1, 1, 1, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  Framebuffer fb(8, 8, Backend::Cpu);
  EXPECT_THROW(rasterize(tree, top_view(0, 8, 0, 8, 9, 8), fb), InvalidInput);
  View bad = top_view(0, 8, 0, 8, 8, 8);
  bad.lod_threshold = -1.0f;
  EXPECT_THROW(rasterize(tree, bad, fb), InvalidInput);
  bad = top_view(0, 8, 0, 8, 8, 8);
  bad.view_matrix[3] = std::nanf("");
  EXPECT_THROW(rasterize(tree, bad, fb), InvalidInput);
  bad = top_view(0, 8, 0, 8, 8, 8);
  bad.edl_radius = 0;
  EXPECT_THROW(rasterize(tree, bad, fb), InvalidInput);
  EXPECT_THROW(fb.resolve(kBlack, true, -1.0f), InvalidInput);
  EXPECT_THROW(fb.wrap_device_rgba8(nullptr, 0), InvalidInput);  // CPU framebuffer
}

TEST(RenderErrors, BadCamerasAndSizes) {
  EXPECT_THROW(Framebuffer(0, 8, Backend::Cpu), InvalidInput);
  EXPECT_THROW(Framebuffer(1u << 15, 1u << 15, Backend::Cpu), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 0, 0}, {0, 0, 1}, 60, 8, 8, 1, 10), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 0, 1}, {0, 0, 1}, 60, 8, 8, 1, 10), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 180, 8, 8, 1, 10), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 60, 8, 8, 0, 10), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 60, 8, 0, 1, 10), InvalidInput);
  EXPECT_THROW(View::overview(Bounds{}, 8, 8), InvalidInput);
  EXPECT_THROW(View::look_at({0, std::nan(""), 0}, {0, 1, 0}, {0, 0, 1}, 60, 8, 8, 1, 10),
               InvalidInput);
  View strong = View::look_at({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 60, 8, 8, 1, 10);
  strong.edl_strength = std::numeric_limits<float>::infinity();
  EXPECT_THROW(strong.validate(), InvalidInput);
}

TEST(RenderErrors, OverflowingViewProjectionIsRejected) {
  const Point p{1, 1, 1, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  std::array<float, 16> huge = top_down(100.0f);
  huge[0] = 3e38f;  // finite, but projection * view overflows the float range
  std::array<float, 16> proj = ortho(0, 8, 0, 8, 0.5f, 200.0f);
  proj[0] = 100.0f;
  const View view = View::from_matrices(huge, proj, 8, 8);
  Framebuffer fb(8, 8, Backend::Cpu);
  EXPECT_THROW(rasterize(tree, view, fb), InvalidInput);
}

TEST(RenderErrors, MovedFromFramebufferThrows) {
  Framebuffer fb(8, 8, Backend::Cpu);
  Framebuffer other = std::move(fb);
  EXPECT_EQ(other.width(), 8u);
  EXPECT_THROW((void)fb.width(), InvalidInput);  // NOLINT(bugprone-use-after-move)
}

TEST(RenderErrors, BadSnapshotsAreRejected) {
  Framebuffer fb(8, 8, Backend::Cpu);
  NodeSnapshot empty;
  EXPECT_THROW(rasterize(empty, top_view(0, 8, 0, 8, 8, 8), fb), InvalidInput);
  const Point p{1, 1, 1, kRed};
  NodeSnapshot snap = leaf_tree(std::span(&p, 1)).snapshot();
  NodeSnapshot flat = snap;
  flat.nodes[0].bounds.max = flat.nodes[0].bounds.min;  // root edge 0
  EXPECT_THROW(rasterize(flat, top_view(0, 8, 0, 8, 8, 8), fb), InvalidInput);
  snap.nodes[0].position = {1, 0, 0};  // outside level 0's single cell
  try {
    rasterize(snap, top_view(0, 8, 0, 8, 8, 8), fb);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("node 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simlod::test
