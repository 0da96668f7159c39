// Real LAS files written by other tools (shared test data).
#include <gtest/gtest.h>

#include <cmath>

#include "las_test_util.hpp"
#include "simlod/io.hpp"
#include "test_data.hpp"

namespace simlod::test {
namespace {

TEST(LasRealFiles, LionInfo) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const FileInfo info = read_info(data / "lion_takanawa.las");
  EXPECT_EQ(info.format, FileFormat::Las);
  EXPECT_EQ(info.version, "1.2");
  EXPECT_EQ(info.point_format, 2);
  EXPECT_EQ(info.record_length, 26u);
  EXPECT_EQ(info.point_count, 341'989u);
  EXPECT_TRUE(info.has_color);
  EXPECT_TRUE(info.color_16bit);
  EXPECT_EQ(info.scale, (std::array<double, 3>{0.001, 0.001, 0.001}));
  EXPECT_EQ(info.origin, info.bounds.min);
  EXPECT_EQ(info.generator, "merge of potree lion_takanawa");
  EXPECT_EQ(open_reader(data / "lion_takanawa.las")->info().generator, info.generator);
}

TEST(LasRealFiles, LionPointBoundsEqualHeaderBounds) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  auto reader = open_reader(data / "lion_takanawa.las");
  const FileInfo info = reader->info();
  const auto points = read_all(data / "lion_takanawa.las");
  ASSERT_EQ(points.size(), 341'989u);
  Bounds read;
  for (const Point& p : points) {
    read.expand(p.x + info.origin[0], p.y + info.origin[1], p.z + info.origin[2]);
    ASSERT_EQ(alpha_of(p.rgba), 255u);
  }
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(read.min[a], info.bounds.min[a], info.scale[a] / 2) << "axis " << a;
    EXPECT_NEAR(read.max[a], info.bounds.max[a], info.scale[a] / 2) << "axis " << a;
  }
}

TEST(LasRealFiles, BatchSizeDoesNotChangePoints) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const auto path = data / "lion_node_r.las";
  const auto reference = read_all(path);
  ASSERT_EQ(reference.size(), 5'202u);
  for (const std::size_t batch : {1u, 7u, 999u, 5'202u}) {
    EXPECT_EQ(read_all(path, {}, batch), reference) << "batch " << batch;
  }
}

TEST(LasRealFiles, HaystackWithoutColourOrIntensityIsGrey) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const auto path = data / "haystack_rock.las";
  const FileInfo info = read_info(path);
  EXPECT_EQ(info.point_format, 0);
  EXPECT_FALSE(info.has_color);
  const auto points = read_all(path);
  ASSERT_EQ(points.size(), 21'932u);
  // All intensities are 0, so every point gets the fixed mid grey.
  for (const Point& p : points) ASSERT_EQ(p.rgba, pack_rgba(128, 128, 128, 255));
  // Coordinates are relative to the bounds minimum (UTM-sized values shifted to near 0).
  const auto size = info.bounds.size();
  for (const Point& p : points) {
    ASSERT_GE(p.x, -0.005f);
    ASSERT_LE(p.x, size[0] + 0.005);
    ASSERT_GE(p.z, -0.0005f);
    ASSERT_LE(p.z, size[2] + 0.0005);
  }
}

TEST(LasRealFiles, ExplicitOriginShiftsPoints) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const auto path = data / "haystack_rock.las";
  const FileInfo info = read_info(path);
  const std::array<double, 3> origin{2230000.0, 252000.0, 0.0};
  auto reader = open_reader(path, {.origin = origin, .threads = 0});
  EXPECT_EQ(reader->info().origin, origin);
  const auto shifted = read_all(path, {.origin = origin, .threads = 0});
  const auto plain = read_all(path);
  for (std::size_t i = 0; i < plain.size(); i += 97) {
    EXPECT_NEAR(shifted[i].x, plain[i].x + (info.bounds.min[0] - origin[0]), 1e-3);
    EXPECT_NEAR(shifted[i].y, plain[i].y + (info.bounds.min[1] - origin[1]), 1e-3);
  }
}

}  // namespace
}  // namespace simlod::test
