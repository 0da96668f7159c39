#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/temp_dir.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace simlod {
namespace {

using test::TempDir;

std::vector<Point> read_all(const std::filesystem::path& path) {
  ReaderOptions options;
  options.origin = std::array<double, 3>{0.0, 0.0, 0.0};
  auto reader = open_reader(path, options);
  std::vector<Point> all(reader->info().point_count);
  EXPECT_EQ(reader->read(all), all.size());
  return all;
}

const std::vector<Point> kPoints = {
    {-1.5f, 2.0f, 3.25f, pack_rgba(10, 20, 30, 40)},
    {4.0f, -5.5f, 6.0f, pack_rgba(250, 0, 1, 255)},
    {0.1f, 0.2f, -0.3f, pack_rgba(0, 0, 0, 0)},
};

TEST(SimWriter, WritesRecordsAndBoundsOverBatches) {
  TempDir dir;
  auto writer = create_writer(dir / "a.sim");
  writer->write(std::span(kPoints).first(1));
  writer->write(std::span(kPoints).subspan(1));
  EXPECT_EQ(writer->points_written(), 3u);
  writer->close();
  EXPECT_EQ(std::filesystem::file_size(dir / "a.sim"), 24u + 3u * 16u);

  const FileInfo info = read_info(dir / "a.sim");
  EXPECT_EQ(info.point_count, 3u);
  EXPECT_EQ(info.bounds.min, (std::array<double, 3>{-1.5, -5.5, -0.3f}));
  EXPECT_EQ(info.bounds.max, (std::array<double, 3>{4.0, 2.0, 6.0}));
  EXPECT_EQ(read_all(dir / "a.sim"), kPoints);
}

TEST(SimWriter, IgnoresTheOrigin) {
  TempDir dir;
  WriterOptions options;
  options.origin = {500000.0, 4000000.0, 100.0};
  auto writer = create_writer(dir / "a.sim", options);
  writer->write(kPoints);
  writer->close();
  EXPECT_EQ(read_all(dir / "a.sim"), kPoints);
}

TEST(SimWriter, DestructorFinishesTheFile) {
  TempDir dir;
  { create_writer(dir / "a.sim")->write(kPoints); }
  EXPECT_EQ(read_all(dir / "a.sim"), kPoints);
  EXPECT_EQ(read_info(dir / "a.sim").bounds.max[2], 6.0);
}

TEST(SimWriter, NonFiniteBatchIsRejectedWholeAndNamesThePoint) {
  TempDir dir;
  auto writer = create_writer(dir / "a.sim");
  writer->write(kPoints);
  std::vector<Point> bad = kPoints;
  bad[1].z = std::numeric_limits<float>::infinity();
  try {
    writer->write(bad);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("point 4 "), std::string::npos) << m;  // 3 written before + index 1
    EXPECT_NE(m.find("a.sim"), std::string::npos) << m;
  }
  bad[1].z = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(writer->write(bad), InvalidInput);
  EXPECT_EQ(writer->points_written(), 3u);
  writer->close();
  EXPECT_EQ(read_all(dir / "a.sim"), kPoints);  // the file holds only the good batch
}

TEST(SimWriter, EmptyFileReadsAsNoPoints) {
  TempDir dir;
  create_writer(dir / "a.sim")->close();
  EXPECT_EQ(std::filesystem::file_size(dir / "a.sim"), 24u);
  EXPECT_EQ(read_info(dir / "a.sim").point_count, 0u);
}

TEST(SimWriter, UncreatablePathIsIoError) {
  TempDir dir;
  EXPECT_THROW((void)create_writer(dir / "no-such-dir" / "a.sim"), IoError);
}

}  // namespace
}  // namespace simlod
