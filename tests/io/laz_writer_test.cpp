// LAZ writer: round trips through the reader (point formats 2 and 7), agreement with the LAS
// writer, a truncated file, and the error without LASzip.
#include <gtest/gtest.h>

#include "las_test_util.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"

namespace simlod::test {
namespace {

TEST(LazWriter, RoundTripFormat2) {
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  TempDir dir;
  check_round_trip(dir / "f2.laz", 2);
}

TEST(LazWriter, RoundTripFormat7) {
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  TempDir dir;
  check_round_trip(dir / "f7.laz", 7);
}

TEST(LazWriter, SamePointsAndHeaderAsLasWriter) {
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  TempDir dir;
  const auto points = synthetic_points(120'000);  // 3 chunks
  for (const int format : {2, 7}) {
    const WriterOptions options{
        .origin = {10.5, -20.0, 3.0}, .scale = {0.001, 0.001, 0.001}, .las_point_format = format};
    write_points(dir / "a.las", points, options);
    write_points(dir / "a.laz", points, options);
    const FileInfo las = read_info(dir / "a.las");
    const FileInfo laz = read_info(dir / "a.laz");
    EXPECT_EQ(laz.format, FileFormat::Laz);
    EXPECT_EQ(laz.version, las.version);
    EXPECT_EQ(laz.point_count, las.point_count);
    EXPECT_EQ(laz.bounds, las.bounds);
    EXPECT_EQ(laz.offset, las.offset);
    EXPECT_EQ(laz.generator, "simlod");
    EXPECT_EQ(read_all(dir / "a.laz"), read_all(dir / "a.las")) << "format " << format;
  }
}

TEST(LazWriter, DestructorClosesTheFile) {
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  TempDir dir;
  {
    auto writer = create_writer(dir / "unclosed.laz");
    writer->write(synthetic_points(100));
  }
  EXPECT_EQ(read_all(dir / "unclosed.laz").size(), 100u);
}

TEST(LazWriter, NonFiniteCoordinateNamesThePointIndex) {
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  TempDir dir;
  auto points = synthetic_points(20);
  points[13].z = std::numeric_limits<float>::quiet_NaN();
  auto writer = create_writer(dir / "nan.laz");
  writer->write(std::span(points).first(5));
  expect_error<InvalidInput>([&] { writer->write(std::span(points).subspan(5)); },
                             {"nan.laz", "point 13", "non-finite z"});
  writer->close();
  EXPECT_EQ(read_all(dir / "nan.laz").size(), 5u);
}

TEST(LazBadInput, TruncatedFileIsRejectedAtOpen) {
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  TempDir dir;
  const auto path = dir / "cut.laz";
  write_points(path, synthetic_points(120'000));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  // Without this check LASzip decodes garbage past the end (and can crash) while seeking.
  for (const unsigned threads : {1u, 3u}) {
    expect_error<InvalidInput>([&] { (void)open_reader(path, {.origin = {}, .threads = threads}); },
                               {path.string(), "truncated", "LAZ chunk table", "byte offset"});
  }
  expect_error<InvalidInput>([&] { (void)read_info(path); }, {"truncated"});
}

TEST(LazBadInput, PointCountLargerThanChunksIsRejected) {
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  TempDir dir;
  const auto path = dir / "count.laz";
  write_points(path, synthetic_points(120'000));  // 3 chunks of 50,000
  patch_file(path, 107, std::uint32_t{150'001});
  expect_error<InvalidInput>([&] { (void)open_reader(path); },
                             {"declares 150001 points", "byte offset 107", "3 chunks of 50000"});
}

TEST(LazWriter, WithoutLaszipIsAClearError) {
  if (laz_supported()) GTEST_SKIP() << "this build writes LAZ";
  TempDir dir;
  expect_error<InvalidInput>([&] { (void)create_writer(dir / "x.laz"); },
                             {"x.laz", "cannot write LAZ", "liblaszip-dev"});
}

}  // namespace
}  // namespace simlod::test
