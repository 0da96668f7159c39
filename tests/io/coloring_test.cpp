// Colouring points by an attribute (simlod/coloring.hpp): the palettes against the values
// they stand for, the intensity ramp and its range, and the bad requests.
#include "simlod/coloring.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "simlod/detail/attribute_palette.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "test_data.hpp"

namespace simlod::test {
namespace {

/// Potree's 0..1 colour times 255, rounded as its conversion to 8 bits does.
std::uint32_t potree(double r, double g, double b) {
  auto c = [](double v) { return static_cast<std::uint32_t>(std::floor(v * 255.0 + 0.5)); };
  return pack_rgba(c(r), c(g), c(b));
}

TEST(Coloring, ClassificationColoursArePotrees) {
  using detail::classification_rgba;
  EXPECT_EQ(classification_rgba(0), potree(0.5, 0.5, 0.5));
  EXPECT_EQ(classification_rgba(1), potree(0.5, 0.5, 0.5));
  EXPECT_EQ(classification_rgba(2), potree(0.63, 0.32, 0.18));
  EXPECT_EQ(classification_rgba(3), potree(0.0, 1.0, 0.0));
  EXPECT_EQ(classification_rgba(4), potree(0.0, 0.8, 0.0));
  EXPECT_EQ(classification_rgba(5), potree(0.0, 0.6, 0.0));
  EXPECT_EQ(classification_rgba(6), potree(1.0, 0.66, 0.0));
  EXPECT_EQ(classification_rgba(7), potree(1.0, 0.0, 1.0));
  EXPECT_EQ(classification_rgba(9), potree(0.0, 0.0, 1.0));
  for (std::uint32_t c : {10u, 11u, 13u, 17u, 18u, 22u}) {
    EXPECT_EQ(classification_rgba(c), potree(1.0, 1.0, 0.0)) << c;
  }
  for (std::uint32_t c : {8u, 12u, 23u, 64u, 255u}) {
    EXPECT_EQ(classification_rgba(c), potree(0.3, 0.6, 0.6)) << c;
  }
}

TEST(Coloring, ReturnsAndSources) {
  using detail::returns_rgba;
  EXPECT_EQ(returns_rgba(1, 1), returns_rgba(1, 0));  // single
  EXPECT_NE(returns_rgba(1, 3), returns_rgba(1, 1));  // first of several
  EXPECT_EQ(returns_rgba(3, 3), returns_rgba(5, 5));  // last
  EXPECT_EQ(returns_rgba(2, 3), returns_rgba(3, 5));  // intermediate
  EXPECT_EQ(returns_rgba(4, 3), returns_rgba(3, 3));  // past the count: last
  std::vector<std::uint32_t> four = {returns_rgba(1, 1), returns_rgba(1, 3), returns_rgba(2, 3),
                                     returns_rgba(3, 3), returns_rgba(0, 3)};
  for (std::size_t i = 0; i < four.size(); ++i) {
    for (std::size_t j = i + 1; j < four.size(); ++j) EXPECT_NE(four[i], four[j]) << i << j;
  }
  for (std::uint32_t id = 0; id < 100; ++id) {
    EXPECT_NE(detail::source_rgba(id), detail::source_rgba(id + 1)) << id;
    EXPECT_EQ(detail::source_rgba(id), detail::source_rgba(id + 12)) << id;
  }
}

TEST(Coloring, IntensityRampAndRange) {
  std::vector<Point> points(5);
  PointAttributes a;
  a.intensity = {0, 100, 150, 200, 60000};
  ColorByOptions o;
  o.by = ColorBy::Intensity;
  o.intensity_range = std::array<float, 2>{100.0f, 200.0f};
  color_points(points, a, o);
  const std::vector<std::uint32_t> grey = {0, 0, 128, 255, 255};  // 0.5 * 255 = 127.5 -> 128
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(points[i].rgba, pack_rgba(grey[i], grey[i], grey[i])) << i;
  }
  o.intensity_gamma = 0.5f;  // sqrt(0.5) * 255 = 180.3
  color_points(points, a, o);
  EXPECT_EQ(points[2].rgba, pack_rgba(180, 180, 180));
  // No range: the points' own 1st and 99th percentile.
  std::vector<std::uint16_t> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint16_t>((i * 7919) % 1000);
  EXPECT_EQ(intensity_range(v), (std::array<float, 2>{9.0f, 989.0f}));
  EXPECT_EQ(intensity_range(std::vector<std::uint16_t>(10, 5)), (std::array<float, 2>{5, 6}));
  EXPECT_THROW((void)intensity_range({}), InvalidInput);
  std::vector<Point> many(1000);
  a.intensity = v;
  o.intensity_range.reset();
  o.intensity_gamma = 1.0f;
  color_points(many, a, o);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float t = std::clamp((static_cast<float>(v[i]) - 9.0f) / 980.0f, 0.0f, 1.0f);
    const auto g = static_cast<std::uint32_t>(std::lround(t * 255.0f));
    ASSERT_EQ(many[i].rgba, pack_rgba(g, g, g)) << i;
  }
}

TEST(Coloring, BadRequestsAreClearErrors) {
  std::vector<Point> points(3);
  PointAttributes a;
  a.classification = {1, 2};  // one short
  ColorByOptions o;
  o.by = ColorBy::Classification;
  try {
    color_points(points, a, o);
    ADD_FAILURE() << "a short classification array was accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("classification"), std::string::npos) << e.what();
  }
  o.by = ColorBy::Returns;
  a.return_number = {1, 1, 1};
  EXPECT_THROW(color_points(points, a, o), InvalidInput);  // number_of_returns missing
  o.by = ColorBy::Intensity;
  a.intensity = {1, 2, 3};
  for (auto range : {std::array<float, 2>{5, 5}, std::array<float, 2>{NAN, 1}}) {
    o.intensity_range = range;
    EXPECT_THROW(color_points(points, a, o), InvalidInput);
  }
  o.intensity_range.reset();
  o.intensity_gamma = 0.0f;
  EXPECT_THROW(color_points(points, a, o), InvalidInput);
  EXPECT_THROW((void)color_by_from_string("height"), InvalidInput);
  EXPECT_EQ(color_by_from_string("Return"), ColorBy::Returns);
  EXPECT_EQ(color_by_from_string(to_string(ColorBy::PointSourceId)), ColorBy::PointSourceId);
}

TEST(Coloring, SampledIntensityRangeIsTheFilesRange) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  // formats/ intensities are i & 0xFFFF for i < 100,000: the sample's percentiles are those
  // of the whole file within a few hundred.
  std::vector<std::uint16_t> all(100'000);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint16_t>(i & 0xFFFF);
  const auto exact = intensity_range(all);
  for (const char* name : {"f1.las", "f6.laz"}) {
    if (std::string(name).ends_with(".laz") && !laz_supported()) continue;
    SCOPED_TRACE(name);
    const auto sampled = sample_intensity_range({data / "formats" / name});
    EXPECT_NEAR(sampled[0], exact[0], 700.0f);
    EXPECT_NEAR(sampled[1], exact[1], 700.0f);
  }
  try {
    (void)sample_intensity_range({data / "formats" / "f1.las", data / "bun_zipper.ply"});
  } catch (const Error& e) {
    ADD_FAILURE() << "a PLY with intensity was refused: " << e.what();
  }
}

}  // namespace
}  // namespace simlod::test
