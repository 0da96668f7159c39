// LAS writer: round trips through the reader for point formats 2 and 7, header content, and
// the errors for bad options and bad points.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <limits>

#include "las_test_util.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"

namespace simlod::test {

namespace {

TEST(LasWriter, RoundTripFormat2) {
  TempDir dir;
  check_round_trip(dir / "f2.las", 2);
}

TEST(LasWriter, RoundTripFormat7) {
  TempDir dir;
  check_round_trip(dir / "f7.las", 7);
}

TEST(LasWriter, Format7HeaderHas64BitCountsAndNoLegacyCount) {
  TempDir dir;
  write_points(dir / "f7.las", synthetic_points(10),
               {.origin = {}, .scale = {0.01, 0.01, 0.01}, .las_point_format = 7});
  const auto bytes = std::filesystem::file_size(dir / "f7.las");
  EXPECT_EQ(bytes, 375u + 10u * 36u);
  std::ifstream f(dir / "f7.las", std::ios::binary);
  std::array<char, 375> h{};
  f.read(h.data(), h.size());
  std::uint32_t legacy = 1;
  std::uint64_t count = 0;
  std::memcpy(&legacy, h.data() + 107, 4);
  std::memcpy(&count, h.data() + 247, 8);
  EXPECT_EQ(legacy, 0u);
  EXPECT_EQ(count, 10u);
}

TEST(LasWriter, DestructorClosesTheFile) {
  TempDir dir;
  const auto points = synthetic_points(100);
  {
    auto writer = create_writer(dir / "unclosed.las");
    writer->write(points);
  }
  EXPECT_EQ(read_info(dir / "unclosed.las").point_count, 100u);
}

TEST(LasWriter, UnsupportedPointFormatIsRejected) {
  TempDir dir;
  auto options = [](int format) {
    return WriterOptions{.origin = {}, .scale = {0.001, 0.001, 0.001}, .las_point_format = format};
  };
  for (const int format : {-1, 11}) {
    expect_error<InvalidInput>([&] { (void)create_writer(dir / "x.las", options(format)); },
                               {"x.las", fmt::format("las_point_format {}", format), "0-10"});
  }
  // Other formats take records (write_records()); write() encodes points in 0, 2, 6, 7 only.
  for (const int format : {1, 3, 8, 10}) {
    auto writer = create_writer(dir / "x.las", options(format));
    expect_error<InvalidInput>(
        [&] { writer->write(synthetic_points(3)); },
        {"x.las", fmt::format("format {}", format), "0, 2, 6 or 7", "write_records()"});
  }
}

TEST(LasWriter, BadScaleIsRejected) {
  TempDir dir;
  expect_error<InvalidInput>(
      [&] {
        (void)create_writer(dir / "x.las", {.origin = {},
                                            .scale = {0.001, 0.0, 0.001},
                                            .las_point_format = 2,
                                            .las_offset = {},
                                            .las_record_length = 0,
                                            .las_metadata = {}});
      },
      {"x.las", "scale[1]"});
}

TEST(LasWriter, NonFiniteCoordinateNamesThePointIndex) {
  TempDir dir;
  auto points = synthetic_points(50);
  points[17].y = std::numeric_limits<float>::quiet_NaN();
  auto writer = create_writer(dir / "nan.las");
  writer->write(std::span(points).first(10));
  // points[17] is the 8th point of the second batch; its index over all write() calls is 17.
  expect_error<InvalidInput>([&] { writer->write(std::span(points).subspan(10)); },
                             {"nan.las", "point 17", "non-finite y"});
  points[17].y = std::numeric_limits<float>::infinity();
  expect_error<InvalidInput>([&] { writer->write(std::span(points).subspan(10)); }, {"point 17"});
  EXPECT_EQ(writer->points_written(), 10u);  // the bad batch wrote nothing
  writer->close();
  EXPECT_EQ(read_info(dir / "nan.las").point_count, 10u);
}

TEST(LasWriter, CoordinateOutsideInt32RangeNamesThePointIndex) {
  TempDir dir;
  auto points = synthetic_points(5);
  points[3].x = 3.0e6f;  // 3e9 steps of 1 mm > 2^31
  auto writer = create_writer(dir / "big.las");
  writer->write(std::span(points).first(2));
  expect_error<InvalidInput>([&] { writer->write(points); },
                             {"big.las", "point 5", "32-bit", "scale 0.001"});
}

TEST(LasWriter, WriteAfterCloseIsAnError) {
  TempDir dir;
  auto writer = create_writer(dir / "closed.las");
  writer->close();
  EXPECT_THROW(writer->write(synthetic_points(1)), IoError);
}

}  // namespace
}  // namespace simlod::test
