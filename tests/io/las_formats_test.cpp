// The shared formats/fN.las and fN.laz files (LAS 1.4, point formats 0-10, 100,000 points each,
// values from a known rule): every format decodes to the rule, and LAS and LAZ agree.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "las_test_util.hpp"
#include "simlod/io.hpp"
#include "test_data.hpp"

namespace simlod::test {
namespace {

constexpr std::uint64_t kFormatPoints = 100'000;
const ReaderOptions kZeroOrigin{.origin = std::array<double, 3>{0.0, 0.0, 0.0}, .threads = 0};

bool format_has_rgb(int f) { return f == 2 || f == 3 || f == 5 || f == 7 || f == 8 || f == 10; }

/// Checks count, header facts and the first, last and 1000 random points against the rule.
void check_format_file(const std::filesystem::path& path, int point_format, FileFormat format) {
  const auto points = read_all(path, kZeroOrigin);
  const FileInfo info = read_info(path);
  EXPECT_EQ(info.format, format);
  EXPECT_EQ(info.version, "1.4");
  EXPECT_EQ(info.point_format, point_format);
  EXPECT_EQ(info.point_count, kFormatPoints);
  EXPECT_EQ(info.has_color, format_has_rgb(point_format));
  EXPECT_FALSE(info.color_16bit);  // red = i & 255 is stored as 8-bit values
  EXPECT_EQ(info.scale, (std::array<double, 3>{0.01, 0.01, 0.01}));
  EXPECT_EQ(info.offset, (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_EQ(info.bounds.min, (std::array<double, 3>{0.0, 0.0, 0.0}));
  EXPECT_EQ(info.bounds.max, (std::array<double, 3>{9.99, 0.99, 4.99}));
  EXPECT_EQ(info.generator, "LASzip DLL 3.4 r3 (191111)");
  ASSERT_EQ(points.size(), kFormatPoints);

  std::vector<std::uint64_t> indices{0, kFormatPoints - 1};
  std::mt19937_64 rng(point_format);
  for (int k = 0; k < 1000; ++k) indices.push_back(rng() % kFormatPoints);
  const bool rgb = format_has_rgb(point_format);
  for (const std::uint64_t i : indices) {
    ASSERT_EQ(points[i], format_rule_point(i, rgb)) << path << " point " << i;
  }
}

class LasFormatFile : public ::testing::TestWithParam<int> {};
class LazFormatFile : public ::testing::TestWithParam<int> {};

TEST_P(LasFormatFile, MatchesRule) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const int f = GetParam();
  check_format_file(data / "formats" / fmt::format("f{}.las", f), f, FileFormat::Las);
}

TEST_P(LazFormatFile, MatchesRule) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  const int f = GetParam();
  check_format_file(data / "formats" / fmt::format("f{}.laz", f), f, FileFormat::Laz);
}

TEST_P(LasFormatFile, LazAgreesPointByPoint) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  const std::string name = fmt::format("f{}", GetParam());
  const auto las = read_all(data / "formats" / fmt::format("{}.las", name), kZeroOrigin);
  const auto laz = read_all(data / "formats" / fmt::format("{}.laz", name), kZeroOrigin);
  ASSERT_EQ(las.size(), laz.size());
  for (std::size_t i = 0; i < las.size(); ++i) ASSERT_EQ(las[i], laz[i]) << name << " point " << i;
}

std::string format_name(const ::testing::TestParamInfo<int>& param) {
  return fmt::format("f{}", param.param);
}

// LAS files exist for formats 1, 3, 6, 7, 8, 9; LAZ files for all of 0-10.
INSTANTIATE_TEST_SUITE_P(Las, LasFormatFile, ::testing::Values(1, 3, 6, 7, 8, 9), format_name);
INSTANTIATE_TEST_SUITE_P(Laz, LazFormatFile, ::testing::Range(0, 11), format_name);

}  // namespace
}  // namespace simlod::test
