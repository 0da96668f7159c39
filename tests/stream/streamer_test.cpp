// Streamer on the CPU backend: the same octree as inserting the stream's batches directly,
// progress, cancellation and bounded memory.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "core/octree_check.hpp"
#include "io/synthetic_file.hpp"
#include "io/temp_dir.hpp"
#include "io/test_data.hpp"
#include "simlod/error.hpp"
#include "stream/stream_test_util.hpp"

namespace simlod::test {
namespace {

using namespace std::chrono_literals;

void expect_streams_like_direct_inserts(const std::filesystem::path& file, std::uint32_t batch,
                                        std::uint32_t first) {
  const StreamConfig config = cpu_stream(batch, first);
  Streamer streamer = Streamer::open({file}, config);
  EXPECT_TRUE(stream_to_end(streamer).empty());
  const FileInfo info = read_info(file);
  EXPECT_EQ(streamer.octree().stats().points, info.point_count);
  EXPECT_GT(streamer.batches().size(), 2u);
  const Octree direct = direct_octree(streamer, config.octree);
  expect_same_tree(streamer.octree().snapshot(), direct.snapshot(), /*colours=*/true);
  const StreamProgress p = streamer.progress();
  EXPECT_TRUE(p.done);
  EXPECT_EQ(p.points_total, info.point_count);
  EXPECT_EQ(p.points_read, info.point_count);
  EXPECT_EQ(p.points_inserted, info.point_count);
  EXPECT_EQ(p.files_done, 1u);
  EXPECT_EQ(p.files_failed, 0u);
}

TEST(Streamer, LionLasGivesTheOctreeOfDirectInserts) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  expect_streams_like_direct_inserts(data / "lion_takanawa.las", 40000, 10000);
}

TEST(Streamer, LionLazGivesTheOctreeOfDirectInserts) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  if (!laz_supported()) GTEST_SKIP() << "built without LASzip";
  // Chunks of 50,000: a first batch of 20,000 cuts the first chunk in two, batches of
  // 100,000 hold two chunks each.
  expect_streams_like_direct_inserts(data / "lion_takanawa.laz", 100000, 20000);
}

TEST(Streamer, SyntheticSceneGivesTheOctreeOfDirectInserts) {
  const synth::SceneConfig scene{.points = 300000, .seed = 7, .order = synth::Order::Scan};
  const StreamConfig config = cpu_stream(50000, 5000);
  Streamer streamer = Streamer::synthetic(scene, config);
  EXPECT_TRUE(stream_to_end(streamer, 1ms).empty());
  EXPECT_EQ(streamer.octree().stats().points, scene.points);
  EXPECT_TRUE(streamer.files().empty());
  const Octree direct = direct_octree(streamer, config.octree, &scene);
  expect_same_tree(streamer.octree().snapshot(), direct.snapshot(), /*colours=*/true);
}

TEST(Streamer, CompactOnceDoneKeepsTheTree) {
  const synth::SceneConfig scene{.points = 100000, .seed = 9, .order = synth::Order::Scan};
  Streamer streamer = Streamer::synthetic(scene, cpu_stream(20000, 5000));
  EXPECT_THROW(streamer.compact(), InvalidInput);  // nothing is in yet
  EXPECT_FALSE(streamer.octree().stats().compacted);
  EXPECT_TRUE(stream_to_end(streamer, 1ms).empty());
  const NodeSnapshot before = streamer.octree().snapshot();
  streamer.compact();
  EXPECT_TRUE(streamer.octree().stats().compacted);
  EXPECT_EQ(streamer.octree().stats().bytes_grids, 0u);
  expect_identical(before, streamer.octree().snapshot());
  EXPECT_EQ(streamer.update().points, 0u);
}

// Sampling::Weighted does not decompose per batch: the Streamer computes its colours when the
// last batch is in (Octree::finalize()).
TEST(Streamer, WeightedColoursAreFinalizedWhenTheLastBatchIsIn) {
  const synth::SceneConfig scene{.points = 120000, .seed = 3, .order = synth::Order::Scan};
  StreamConfig config = cpu_stream(20000, 5000);
  config.octree.sampling = Sampling::Weighted;
  Streamer streamer = Streamer::synthetic(scene, config);
  EXPECT_TRUE(stream_to_end(streamer, 1ms).empty());
  Octree direct = direct_octree(streamer, config.octree, &scene);
  const NodeSnapshot first_come = direct.snapshot();
  direct.finalize();
  const NodeSnapshot weighted = direct.snapshot();
  expect_same_tree(streamer.octree().snapshot(), weighted, /*colours=*/true);
  std::size_t changed = 0;  // finalize() did change colours
  for (std::size_t id = 0; id < weighted.nodes.size(); ++id) {
    changed += !same_points(sorted_points(first_come.nodes[id].voxels),
                            sorted_points(weighted.nodes[id].voxels));
  }
  EXPECT_GT(changed, 0u);
}

TEST(Streamer, AFolderStreamsItsFilesInNameOrder) {
  TempDir dir;
  write_synthetic_file(dir / "b.sim", 30000, 2);
  write_synthetic_file(dir / "a.las", 20000, 1);
  write_synthetic_file(dir / "c.sim", 10000, 3);
  std::ofstream(dir / "notes.txt") << "not a point cloud";
  const StreamConfig config = cpu_stream(8000);
  Streamer streamer = Streamer::open({dir.path()}, config);
  ASSERT_EQ(streamer.files().size(), 3u);
  EXPECT_EQ(streamer.files()[0].path.filename(), "a.las");
  EXPECT_EQ(streamer.files()[2].path.filename(), "c.sim");
  Bounds all;
  for (const auto& f : streamer.files()) all.expand(f.bounds);
  EXPECT_EQ(streamer.octree().cube(), all.cube());
  EXPECT_TRUE(stream_to_end(streamer).empty());
  EXPECT_EQ(streamer.progress().files_done, 3u);
  const Octree direct = direct_octree(streamer, config.octree);
  expect_same_tree(streamer.octree().snapshot(), direct.snapshot(), /*colours=*/true);
}

TEST(Streamer, ProgressIsReportedOnTheCallersThread) {
  StreamConfig config = cpu_stream(20000);
  const auto caller = std::this_thread::get_id();
  std::vector<StreamProgress> seen;
  config.on_progress = [&](const StreamProgress& p) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    seen.push_back(p);
  };
  Streamer streamer = Streamer::synthetic({.points = 100000}, config);
  stream_to_end(streamer);
  ASSERT_FALSE(seen.empty());
  for (std::size_t i = 1; i < seen.size(); ++i) {
    EXPECT_GE(seen[i].points_inserted, seen[i - 1].points_inserted);
  }
  EXPECT_TRUE(seen.back().done);
  EXPECT_EQ(seen.back().points_inserted, 100000u);
  EXPECT_EQ(seen.back().points_total, 100000u);
  EXPECT_EQ(seen.back().bytes_read, 100000u * sizeof(Point));
  EXPECT_GT(seen.back().points_per_second, 0.0);
  EXPECT_EQ(seen.back().eta_seconds, 0.0);
}

TEST(Streamer, CancelStopsWithinOneBatchPerLoader) {
  TempDir dir;
  write_synthetic_file(dir / "big.sim", 400000, 5);
  StreamConfig config = cpu_stream(10000);
  config.loader_threads = 2;
  config.ring_batches = 8;  // loaders run at most 8 batches ahead of insertion
  Streamer streamer = Streamer::open({dir / "big.sim"}, config);
  while (streamer.update(1us).batches == 0) streamer.wait(10ms);  // one batch
  const StreamProgress before = streamer.progress();
  streamer.cancel();  // returns once the loaders stopped
  const StreamProgress at_cancel = streamer.progress();
  EXPECT_TRUE(streamer.done());
  EXPECT_LE(at_cancel.points_read, before.points_read + 2u * 10000u)
      << "loaders read more than the batch each had begun";
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(streamer.progress().points_read, at_cancel.points_read)
      << "a loader kept reading after cancel()";
  EXPECT_LT(at_cancel.points_read, 400000u);
  EXPECT_EQ(streamer.update(0ms).batches, 0u);
  EXPECT_EQ(streamer.octree().stats().points, at_cancel.points_inserted);
  EXPECT_TRUE(streamer.progress().done);
}

TEST(Streamer, MemoryStaysBoundedWhileTheConsumerIsSlow) {
  TempDir dir;
  write_synthetic_file(dir / "big.sim", 300000, 6);
  StreamConfig config = cpu_stream(5000);
  config.loader_threads = 3;
  config.ring_batches = 4;
  Streamer streamer = Streamer::open({dir / "big.sim"}, config);
  EXPECT_EQ(streamer.ring_bytes(), 4u * 5000u * sizeof(Point));
  std::this_thread::sleep_for(200ms);  // the consumer inserts nothing yet
  EXPECT_LE(streamer.progress().points_read, 4u * 5000u)
      << "loaders read past the ring while nothing was inserted";
  EXPECT_GT(streamer.progress().points_read, 0u);
  // One batch per update, as a slow consumer would take them: the ring still bounds reading.
  while (!streamer.done()) {
    streamer.update(1us);
    EXPECT_LE(streamer.progress().points_read, streamer.progress().points_inserted + 4u * 5000u);
    streamer.wait(5ms);
  }
  EXPECT_EQ(streamer.octree().stats().points, 300000u);
}

TEST(Streamer, TheBudgetLeavesLaterBatchesForTheNextUpdate) {
  StreamConfig config = cpu_stream(1000);
  config.ring_batches = 64;
  Streamer streamer = Streamer::synthetic({.points = 64000}, config);
  while (streamer.progress().points_read < 64000) std::this_thread::sleep_for(5ms);
  const UpdateStats first = streamer.update(1us);
  EXPECT_EQ(first.batches, 1u) << "a budget already spent still inserts one batch";
  EXPECT_EQ(first.batches_left, 63u);
  const UpdateStats rest = streamer.update(0ms);
  EXPECT_EQ(rest.batches, 63u);
  EXPECT_TRUE(streamer.done());
}

}  // namespace
}  // namespace simlod::test
