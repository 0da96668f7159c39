// PointReader::seek: reading from a point gives the same points as reading up to it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/formats.hpp"
#include "io/synthetic_file.hpp"
#include "io/temp_dir.hpp"
#include "io/test_data.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "simlod/synth.hpp"

namespace simlod::test {
namespace {

std::vector<Point> read_all(PointReader& reader) {
  std::vector<Point> all(reader.info().point_count);
  EXPECT_EQ(reader.read(all), all.size());
  return all;
}

/// Seeks to several points (forwards and backwards) and compares with the full read.
void expect_seek_matches(const std::filesystem::path& path, std::vector<std::uint64_t> starts) {
  auto reader = open_reader(path);
  const std::vector<Point> all = read_all(*reader);
  for (const std::uint64_t start : starts) {
    SCOPED_TRACE("seek to " + std::to_string(start));
    reader->seek(start);
    EXPECT_EQ(reader->points_read(), start);
    std::vector<Point> part(std::min<std::uint64_t>(1000, all.size() - start));
    ASSERT_EQ(reader->read(part), part.size());
    for (std::size_t i = 0; i < part.size(); ++i) {
      ASSERT_EQ(part[i], all[start + i]) << "point " << start + i;
    }
  }
  EXPECT_THROW(reader->seek(all.size() + 1), InvalidInput);
  reader->seek(all.size());
  EXPECT_EQ(reader->points_left(), 0u);
}

TEST(ReaderSeek, LasAndSimSeekToAnyPoint) {
  TempDir dir;
  for (const char* name : {"s.las", "s.sim"}) {
    SCOPED_TRACE(name);
    write_synthetic_file(dir / name, 20000, 4);
    EXPECT_EQ(read_info(dir / name).seek_step, 1u);
    expect_seek_matches(dir / name, {0, 12345, 5, 19999, 7000});
  }
}

TEST(ReaderSeek, LazSeeksToChunkStartsAndInsideChunks) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  if (!laz_supported()) GTEST_SKIP() << "built without LASzip";
  const auto path = data / "lion_takanawa.laz";
  EXPECT_EQ(read_info(path).seek_step, 50000u);
  expect_seek_matches(path, {100000, 0, 170001, 300000, 49999});
}

// The stream's header pass reads LAZ layouts without decoding a chunk; they must agree with
// read_info on everything but the sampled colour depth.
TEST(ReaderSeek, LazLayoutAgreesWithReadInfo) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  if (!laz_supported()) GTEST_SKIP() << "built without LASzip";
  for (const char* name : {"lion_takanawa.laz", "lion_node_r.laz", "lion_takanawa.las"}) {
    SCOPED_TRACE(name);
    const FileInfo full = read_info(data / name);
    const FileInfo layout = detail::read_stream_info(data / name);
    EXPECT_EQ(layout.point_count, full.point_count);
    EXPECT_EQ(layout.bounds, full.bounds);
    EXPECT_EQ(layout.seek_step, full.seek_step);
    EXPECT_EQ(layout.format, full.format);
    EXPECT_EQ(layout.has_color, full.has_color);
  }
}

TEST(ReaderSeek, PlyCanOnlyBeReadInOrder) {
  const std::filesystem::path path =
      std::filesystem::path(SIMLOD_TESTS_DIR) / "tools/data/tiny.ply";
  auto reader = open_reader(path);
  EXPECT_EQ(reader->info().seek_step, 0u);
  reader->seek(0);  // the current position: nothing to do
  try {
    reader->seek(1);
    FAIL() << "PLY seek did not throw";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("tiny.ply"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simlod::test
