#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "io/ply_test_files.hpp"
#include "io/temp_dir.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace simlod {
namespace {

using test::TempDir;
using test::write_bytes;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// A SIM file from raw header floats and records (no validation: tests write bad files too).
std::string sim_bytes(const std::array<float, 6>& header, const std::vector<Point>& points) {
  std::string s(24 + 16 * points.size(), '\0');
  std::memcpy(s.data(), header.data(), 24);
  if (!points.empty()) std::memcpy(s.data() + 24, points.data(), 16 * points.size());
  return s;
}

const std::vector<Point> kPoints = {
    {10.5f, 20.25f, 30.125f, pack_rgba(1, 2, 3, 4)},
    {11.0f, 21.0f, 31.0f, pack_rgba(255, 128, 0, 255)},
    {12.75f, 22.5f, 30.0f, pack_rgba(9, 8, 7, 6)},
};
constexpr std::array<float, 6> kHeader = {10.5f, 20.25f, 30.0f, 12.75f, 22.5f, 31.0f};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidInput& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected InvalidInput";
  return {};
}

TEST(SimReader, InfoComesFromTheHeaderAndSize) {
  TempDir dir;
  write_bytes(dir / "a.sim", sim_bytes(kHeader, kPoints));
  const FileInfo info = read_info(dir / "a.sim");
  EXPECT_EQ(info.format, FileFormat::Sim);
  EXPECT_EQ(info.version, "");
  EXPECT_EQ(info.point_format, -1);
  EXPECT_EQ(info.record_length, 16u);
  EXPECT_EQ(info.point_count, 3u);
  EXPECT_TRUE(info.has_color);
  EXPECT_FALSE(info.color_16bit);
  EXPECT_EQ(info.bounds.min, (std::array<double, 3>{10.5, 20.25, 30.0}));
  EXPECT_EQ(info.bounds.max, (std::array<double, 3>{12.75, 22.5, 31.0}));
  EXPECT_EQ(info.origin, info.bounds.min);
  EXPECT_EQ(open_reader(dir / "a.sim")->info().bounds, info.bounds);
}

TEST(SimReader, OriginZeroReturnsRecordsUnchanged) {
  TempDir dir;
  write_bytes(dir / "a.sim", sim_bytes(kHeader, kPoints));
  ReaderOptions options;
  options.origin = std::array<double, 3>{0.0, 0.0, 0.0};
  auto reader = open_reader(dir / "a.sim", options);
  std::vector<Point> out(10);
  ASSERT_EQ(reader->read(out), 3u);
  out.resize(3);
  EXPECT_EQ(out, kPoints);
  EXPECT_EQ(reader->read(out), 0u);
}

TEST(SimReader, DefaultOriginIsHeaderMinimum) {
  TempDir dir;
  write_bytes(dir / "a.sim", sim_bytes(kHeader, kPoints));
  auto reader = open_reader(dir / "a.sim");
  std::vector<Point> out(3);
  ASSERT_EQ(reader->read(out), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out[i].x, kPoints[i].x - 10.5f);
    EXPECT_EQ(out[i].y, kPoints[i].y - 20.25f);
    EXPECT_EQ(out[i].z, kPoints[i].z - 30.0f);
    EXPECT_EQ(out[i].rgba, kPoints[i].rgba);
  }
}

TEST(SimReader, ReadsInBatchesOfTheSpanSize) {
  TempDir dir;
  write_bytes(dir / "a.sim", sim_bytes(kHeader, kPoints));
  ReaderOptions options;
  options.origin = std::array<double, 3>{0.0, 0.0, 0.0};
  auto reader = open_reader(dir / "a.sim", options);
  std::vector<Point> out(2);
  ASSERT_EQ(reader->read(out), 2u);
  EXPECT_EQ(out[1], kPoints[1]);
  EXPECT_EQ(reader->points_left(), 1u);
  ASSERT_EQ(reader->read(out), 1u);
  EXPECT_EQ(out[0], kPoints[2]);
  EXPECT_EQ(reader->read(out), 0u);
}

TEST(SimReader, TrailingBytesAreATruncatedRecord) {
  TempDir dir;
  write_bytes(dir / "a.sim", sim_bytes(kHeader, kPoints) + "12345");
  const std::string m = message_of([&] { (void)read_info(dir / "a.sim"); });
  EXPECT_NE(m.find("truncated record at byte offset 72"), std::string::npos) << m;
  EXPECT_NE(m.find("5 trailing bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("a.sim"), std::string::npos) << m;
  EXPECT_THROW((void)open_reader(dir / "a.sim"), InvalidInput);
}

TEST(SimReader, ShortHeaderIsTruncated) {
  TempDir dir;
  write_bytes(dir / "a.sim", std::string(10, '\0'));
  const std::string m = message_of([&] { (void)open_reader(dir / "a.sim"); });
  EXPECT_NE(m.find("truncated"), std::string::npos) << m;
  EXPECT_NE(m.find("SIM header"), std::string::npos) << m;
}

TEST(SimReader, ZeroPointsIsAValidEmptyFile) {
  TempDir dir;
  write_bytes(dir / "a.sim", sim_bytes(kHeader, {}));
  EXPECT_EQ(read_info(dir / "a.sim").point_count, 0u);
  std::vector<Point> batch(4);
  EXPECT_EQ(open_reader(dir / "a.sim")->read(batch), 0u);
}

TEST(SimReader, BadHeaderBoundsAreInvalid) {
  TempDir dir;
  const std::array<std::array<float, 6>, 3> bad = {{
      {1, 0, 0, 0, 1, 1},     // min x > max x
      {0, kNaN, 0, 1, 1, 1},  // NaN
      {0, 0, 0, 1, kInf, 1},  // infinite
  }};
  for (const auto& header : bad) {
    write_bytes(dir / "a.sim", sim_bytes(header, kPoints));
    const std::string m = message_of([&] { (void)read_info(dir / "a.sim"); });
    EXPECT_NE(m.find("invalid SIM header"), std::string::npos) << m;
  }
}

TEST(SimReader, NonFiniteCoordinateNamesIndexAndOffset) {
  TempDir dir;
  std::vector<Point> points = kPoints;
  points.push_back({kInf, 0, 0, 0});
  points[2].y = kNaN;
  write_bytes(dir / "a.sim", sim_bytes(kHeader, points));
  auto reader = open_reader(dir / "a.sim");
  std::vector<Point> out(2);
  ASSERT_EQ(reader->read(out), 2u);  // earlier points are returned and stay valid
  const Point kept = out[1];
  const std::string m = message_of([&] { (void)reader->read(out); });
  EXPECT_NE(m.find("point 2 "), std::string::npos) << m;
  EXPECT_NE(m.find("byte offset 56"), std::string::npos) << m;
  EXPECT_NE(m.find("non-finite"), std::string::npos) << m;
  EXPECT_EQ(reader->points_read(), 2u);
  EXPECT_EQ(kept.x, kPoints[1].x - 10.5f);
}

TEST(SimReader, MissingFileIsIoError) {
  TempDir dir;
  EXPECT_THROW((void)open_reader(dir / "missing.sim"), IoError);
  EXPECT_THROW((void)read_info(dir / "missing.sim"), IoError);
}

}  // namespace
}  // namespace simlod
