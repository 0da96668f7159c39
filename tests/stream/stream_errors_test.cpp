// Bad input while streaming: the error surfaces on the caller's thread naming the file, the
// points already inserted stay, and the other files go on.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <thread>

#include "io/synthetic_file.hpp"
#include "io/temp_dir.hpp"
#include "simlod/error.hpp"
#include "stream/stream_test_util.hpp"

namespace simlod::test {
namespace {

using namespace std::chrono_literals;

StreamConfig small_stream() {
  StreamConfig c = cpu_stream(4000);
  c.loader_threads = 2;
  return c;
}

/// Makes the y coordinate of SIM points first, first + step, ... (below `end`) a NaN.
void poison_sim(const std::filesystem::path& path, std::uint64_t first, std::uint64_t step,
                std::uint64_t end) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::uint64_t point = first; point < end; point += step) {
    f.seekp(static_cast<std::streamoff>(24 + point * sizeof(Point) + 4));
    f.write(reinterpret_cast<const char*>(&nan), sizeof nan);
  }
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(StreamErrors, ATruncatedFileInAFolderIsNamedAndTheGoodFilesStay) {
  TempDir dir;
  write_synthetic_file(dir / "tile_1.las", 10000, 1);
  write_synthetic_file(dir / "tile_2.las", 10000, 2);
  write_synthetic_file(dir / "tile_3.las", 10000, 3);
  std::filesystem::resize_file(dir / "tile_2.las",
                               std::filesystem::file_size(dir / "tile_2.las") - 1000);
  Streamer streamer = Streamer::open({dir.path()}, small_stream());
  const auto errors = stream_to_end(streamer);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(mentions(errors[0], "tile_2.las")) << errors[0];
  EXPECT_EQ(streamer.octree().stats().points, 20000u);
  const auto failures = streamer.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].path.filename(), "tile_2.las");
  const StreamProgress p = streamer.progress();
  EXPECT_EQ(p.files_failed, 1u);
  EXPECT_EQ(p.files_done, 3u);  // the failed file counts as finished
  EXPECT_TRUE(p.done);
}

TEST(StreamErrors, ABadPointStopsItsFileAfterTheBatchesBeforeIt) {
  TempDir dir;
  // SIM records are raw floats: poison point 9,000 of 10,000 with a NaN.
  write_synthetic_file(dir / "a.sim", 10000, 1);
  {
    std::fstream f(dir / "a.sim", std::ios::in | std::ios::out | std::ios::binary);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(dir / "a.sim") -
                                        1000 * sizeof(Point) + 4));
    f.write(reinterpret_cast<const char*>(&nan), sizeof nan);
  }
  write_synthetic_file(dir / "b.sim", 5000, 2);
  Streamer streamer = Streamer::open({dir / "a.sim", dir / "b.sim"}, small_stream());
  const auto errors = stream_to_end(streamer);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(mentions(errors[0], "a.sim")) << errors[0];
  EXPECT_TRUE(mentions(errors[0], "9000")) << errors[0];
  // Batches of 4,000: points 0-7,999 of a.sim went in, the batch holding point 9,000 did not.
  EXPECT_EQ(streamer.octree().stats().points, 8000u + 5000u);
  const auto failures = streamer.failures();
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].points_inserted, 8000u) << "what of a.sim stays in the octree";
}

// Bad points in many batches of one file: loaders running ahead publish several errors of the
// file before its first reaches the caller; only the first is reported, the file counted once.
TEST(StreamErrors, AFileWithManyBadBatchesFailsOnce) {
  TempDir dir;
  write_synthetic_file(dir / "a.sim", 40000, 1);
  poison_sim(dir / "a.sim", 9000, 1000, 40000);
  write_synthetic_file(dir / "b.sim", 5000, 2);
  StreamConfig config = small_stream();
  config.loader_threads = 4;
  Streamer streamer = Streamer::open({dir / "a.sim", dir / "b.sim"}, config);
  // Let the loaders run ahead through the whole ring before the first update().
  std::this_thread::sleep_for(200ms);
  const auto errors = stream_to_end(streamer);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(mentions(errors[0], "point 9000")) << errors[0];
  EXPECT_EQ(streamer.failures().size(), 1u);
  EXPECT_EQ(streamer.progress().files_failed, 1u);
  EXPECT_EQ(streamer.octree().stats().points, 8000u + 5000u);
}

// Loaders running ahead may fail a later batch of a file before an earlier, good batch of it
// is loaded: the earlier batch must still go in (only batches after the first bad one are
// skipped), and the error named is the file's first bad point. Timing decides the order, so
// the stream runs several times.
TEST(StreamErrors, GoodBatchesBeforeTheFirstBadOneStay) {
  TempDir dir;
  write_synthetic_file(dir / "a.sim", 40000, 1);
  poison_sim(dir / "a.sim", 20500, 4000, 40000);
  StreamConfig config = small_stream();
  config.loader_threads = 4;
  for (int run = 0; run < 10; ++run) {
    SCOPED_TRACE(run);
    Streamer streamer = Streamer::open({dir / "a.sim"}, config);
    const auto errors = stream_to_end(streamer);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_TRUE(mentions(errors[0], "point 20500")) << errors[0];
    EXPECT_EQ(streamer.octree().stats().points, 20000u) << "batches 0-4 are good";
    ASSERT_EQ(streamer.failures().size(), 1u);
    EXPECT_EQ(streamer.failures()[0].points_inserted, 20000u);
  }
}

TEST(StreamErrors, PointsOutsideADeclaredCubeNameTheFileAndPoint) {
  TempDir dir;
  write_synthetic_file(dir / "a.sim", 3000, 1);
  StreamConfig config = small_stream();
  const FileInfo info = read_info(dir / "a.sim");
  Bounds half = info.bounds;
  half.max[0] = 0.5 * (half.min[0] + half.max[0]);
  half.max[1] = half.max[0] - half.min[0] + half.min[1];  // a cube covering part of x
  half.max[2] = half.max[0] - half.min[0] + half.min[2];
  config.cube = half;
  Streamer streamer = Streamer::open({dir / "a.sim"}, config);
  const auto errors = stream_to_end(streamer);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_TRUE(mentions(errors[0], "a.sim")) << errors[0];
  EXPECT_TRUE(mentions(errors[0], "outside the octree cube")) << errors[0];
  EXPECT_EQ(streamer.octree().stats().points, 0u);
}

TEST(StreamErrors, AnUnreadableHeaderIsReportedAtItsPlaceInTheStream) {
  TempDir dir;
  write_synthetic_file(dir / "a.las", 5000, 1);
  std::ofstream(dir / "b.las") << "this is not a LAS file";
  write_synthetic_file(dir / "c.las", 5000, 3);
  Streamer streamer = Streamer::open({dir.path()}, small_stream());
  std::vector<std::uint64_t> inserted_at_error;
  while (!streamer.done()) {
    try {
      if (streamer.update(0ms).batches == 0) streamer.wait(20ms);
    } catch (const InvalidInput& e) {
      EXPECT_TRUE(mentions(e.what(), "b.las")) << e.what();
      inserted_at_error.push_back(streamer.octree().stats().points);
    }
  }
  ASSERT_EQ(inserted_at_error.size(), 1u);
  EXPECT_EQ(inserted_at_error[0], 5000u) << "the error came before a.las was in";
  EXPECT_EQ(streamer.octree().stats().points, 10000u);
}

TEST(StreamErrors, OpenRejectsWhatCannotBeStreamed) {
  TempDir dir;
  EXPECT_THROW((void)Streamer::open({}, small_stream()), InvalidInput);
  try {
    (void)Streamer::open({dir / "missing.las"}, small_stream());
    FAIL() << "no error for a missing file";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(mentions(e.what(), "missing.las")) << e.what();
  }
  std::ofstream(dir / "readme.txt") << "x";
  try {
    (void)Streamer::open({dir.path()}, small_stream());
    FAIL() << "no error for a folder without point clouds";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(mentions(e.what(), "no .las")) << e.what();
  }
  std::ofstream(dir / "bad.las") << "garbage";
  EXPECT_THROW((void)Streamer::open({dir / "bad.las"}, small_stream()), InvalidInput);
  StreamConfig config = small_stream();
  config.batch_points = 0;
  EXPECT_THROW((void)Streamer::synthetic({.points = 10}, config), InvalidInput);
}

TEST(StreamErrors, ABadDeclaredCubeIsRejected) {
  StreamConfig config = small_stream();
  config.cube = Bounds{};  // empty
  EXPECT_THROW((void)Streamer::synthetic({.points = 10}, config), InvalidInput);
  config.cube = Bounds{{0, 0, 0}, {std::numeric_limits<double>::infinity(), 1, 1}};
  EXPECT_THROW((void)Streamer::synthetic({.points = 10}, config), InvalidInput);
}

// A batch the octree's memory reserve cannot hold goes in as pieces until not one more point
// fits; then update() throws CapacityError on the caller's thread, the rest of that batch is
// counted as refused, the octree keeps what it had and the stream goes on with later batches.
TEST(StreamErrors, PointsBeyondTheMemoryReserveAreRefusedAndTheStreamGoesOn) {
  StreamConfig config = small_stream();
  config.batch_points = 1000;
  config.octree.memory_bytes = 64 * 1024;  // room for the first few batches only
  Streamer streamer = Streamer::synthetic({.points = 20000, .seed = 2}, config);
  std::size_t refused = 0;
  while (!streamer.done()) {
    try {
      if (streamer.update(0ms).batches == 0) streamer.wait(20ms);
    } catch (const CapacityError&) {
      ++refused;
    }
  }
  const std::uint64_t stored = streamer.octree().stats().points;
  const StreamProgress p = streamer.progress();
  EXPECT_GT(refused, 0u);
  EXPECT_GT(stored, 0u);
  EXPECT_GT(p.points_refused, 0u);
  EXPECT_LE(p.points_refused, refused * 1000u) << "batches go in as pieces until full";
  EXPECT_EQ(stored + p.points_refused, 20000u) << "every point is either in or refused";
  EXPECT_EQ(p.points_inserted, stored);
}

TEST(StreamErrors, AMovedFromStreamerSaysSo) {
  Streamer a = Streamer::synthetic({.points = 1000}, small_stream());
  Streamer b = std::move(a);
  EXPECT_THROW((void)a.update(), InvalidInput);  // NOLINT(bugprone-use-after-move)
  EXPECT_THROW((void)a.progress(), InvalidInput);
  EXPECT_TRUE(stream_to_end(b).empty());
  EXPECT_EQ(b.octree().stats().points, 1000u);
}

TEST(StreamErrors, AnEmptySceneIsDoneAtOnce) {
  Streamer streamer = Streamer::synthetic({.points = 0}, small_stream());
  EXPECT_TRUE(stream_to_end(streamer).empty());
  EXPECT_EQ(streamer.octree().stats().points, 0u);
  EXPECT_TRUE(streamer.done());
}

}  // namespace
}  // namespace simlod::test
