// Real LAZ files (LASzip 3.4 and 2.2) against their uncompressed twins (shared test data).
#include <gtest/gtest.h>

#include "las_test_util.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"
#include "test_data.hpp"

namespace simlod::test {
namespace {

#define SIMLOD_REQUIRE_LAZ() \
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support (LASzip not found)"

/// Both files hold the same points in the same order (read with origin 0, so that both return
/// float(X * scale + offset) of their own header).
void expect_same_points(const std::filesystem::path& las, const std::filesystem::path& laz,
                        std::uint64_t count) {
  const ReaderOptions origin0{.origin = std::array<double, 3>{0.0, 0.0, 0.0}, .threads = 0};
  const auto a = read_all(las, origin0);
  const auto b = read_all(laz, origin0);
  ASSERT_EQ(a.size(), count);
  ASSERT_EQ(b.size(), count);
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << "point " << i;
}

TEST(LazRealFiles, LionTakanawaMatchesLas) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  expect_same_points(data / "lion_takanawa.las", data / "lion_takanawa.laz", 341'989);
}

TEST(LazRealFiles, LionNodeFromLaszip22MatchesLas) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  expect_same_points(data / "lion_node_r.las", data / "lion_node_r.laz", 5'202);
}

TEST(LazRealFiles, LionInfoAndBounds) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  const auto path = data / "lion_takanawa.laz";
  const FileInfo info = read_info(path);
  EXPECT_EQ(info.format, FileFormat::Laz);
  EXPECT_EQ(info.version, "1.2");
  EXPECT_EQ(info.point_format, 2);
  EXPECT_EQ(info.record_length, 26u);
  EXPECT_EQ(info.point_count, 341'989u);
  EXPECT_TRUE(info.has_color);
  EXPECT_TRUE(info.color_16bit);
  EXPECT_EQ(info.generator, "LASzip DLL 3.4 r3 (191111)");
  const auto points = read_all(path);
  Bounds read;
  for (const Point& p : points) {
    read.expand(p.x + info.origin[0], p.y + info.origin[1], p.z + info.origin[2]);
  }
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(read.min[a], info.bounds.min[a], info.scale[a] / 2) << "axis " << a;
    EXPECT_NEAR(read.max[a], info.bounds.max[a], info.scale[a] / 2) << "axis " << a;
  }
}

TEST(LazRealFiles, CompressedFileNamedLasIsReadAsLaz) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  SIMLOD_REQUIRE_LAZ();
  TempDir dir;
  std::filesystem::copy_file(data / "lion_node_r.laz", dir / "misnamed.las");
  EXPECT_EQ(read_info(dir / "misnamed.las").format, FileFormat::Laz);
  EXPECT_EQ(read_all(dir / "misnamed.las"), read_all(data / "lion_node_r.laz"));
}

TEST(LazRealFiles, UncompressedFileNamedLazIsReadAsLas) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  TempDir dir;
  std::filesystem::copy_file(data / "lion_node_r.las", dir / "misnamed.laz");
  if (!laz_supported()) {
    // Without LASzip the .laz name alone is refused, with the advice to install it.
    expect_error<InvalidInput>([&] { (void)open_reader(dir / "misnamed.laz"); },
                               {"misnamed.laz", "cannot read LAZ", "liblaszip-dev"});
    return;
  }
  EXPECT_EQ(read_info(dir / "misnamed.laz").format, FileFormat::Las);
  EXPECT_EQ(read_all(dir / "misnamed.laz"), read_all(data / "lion_node_r.las"));
}

TEST(LazRealFiles, CompressedLasWithoutLaszipIsAClearError) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  if (laz_supported()) GTEST_SKIP() << "this build reads LAZ";
  TempDir dir;
  std::filesystem::copy_file(data / "lion_node_r.laz", dir / "misnamed.las");
  expect_error<InvalidInput>([&] { (void)open_reader(dir / "misnamed.las"); },
                             {"misnamed.las", "cannot read LAZ", "liblaszip-dev"});
}

}  // namespace
}  // namespace simlod::test
