// The memory reserve (OctreeConfig::memory_bytes): a batch that does not fit is refused with
// CapacityError, the octree stays exactly as it was and keeps accepting batches that fit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

void expect_same_memory(const OctreeStats& a, const OctreeStats& b) {
  EXPECT_EQ(a.chunks_allocated, b.chunks_allocated);
  EXPECT_EQ(a.chunks_pooled, b.chunks_pooled);
  EXPECT_EQ(a.bytes_grids, b.bytes_grids);
  EXPECT_EQ(a.bytes_nodes, b.bytes_nodes);
  EXPECT_EQ(a.bytes_free, b.bytes_free);
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.voxels, b.voxels);
}

/// A = the first points of a Morton-ordered scene (one region), B = the rest, S = a part of B.
/// With a reserve of exactly what A then S need, B is refused, and S still fits afterwards with
/// no byte to spare: the refused batch left no trace (no memory, no grid bit).
void refuse_and_continue(const OctreeConfig& base) {
  const Scene& scene = synth_scene(60'000, synth::Order::Morton);
  const std::span<const Point> all(scene.points);
  const auto a = all.first(20'000), b = all.subspan(20'000), s = b.first(8'000);
  OctreeConfig c = base;
  c.cpu_threads = 1;  // deterministic first-come colours, so trees compare exactly
  Octree reference = Octree::create(scene.bounds, c);
  insert_all(reference, a, a.size());
  insert_all(reference, s, s.size());
  c.memory_bytes = reference.stats().bytes_reserved;  // without a limit: the bytes held

  Octree tree = Octree::create(scene.bounds, c);
  insert_all(tree, a, a.size());
  const NodeSnapshot before = tree.snapshot();
  const OctreeStats stats_before = tree.stats();
  tree.insert(b);
  try {
    tree.update();
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("batch of 40000 points"), std::string::npos) << what;
    EXPECT_NE(what.find("not inserted"), std::string::npos) << what;
  }
  EXPECT_EQ(tree.stats().batches_queued, 0u) << "the refused batch is dropped";
  expect_identical(before, tree.snapshot());
  expect_same_memory(stats_before, tree.stats());

  insert_all(tree, s, s.size());
  const OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.bytes_reserved, c.memory_bytes);
  std::vector<Point> inserted(a.begin(), a.end());
  inserted.insert(inserted.end(), s.begin(), s.end());
  expect_octree_invariants(tree.snapshot(), inserted, c, &stats);
  expect_same_tree(reference.snapshot(), tree.snapshot(), true);
}

TEST(OctreeCapacity, RefusedForChunksTheTreeIsUnchanged) {
  refuse_and_continue(small_config(1000, 2, 100));  // tiny grids: chunks are the limit
}

TEST(OctreeCapacity, RefusedForGridsTheTreeIsUnchanged) {
  refuse_and_continue(small_config(1000, 128, 100));  // 256 KiB grids: splits are the limit
}

TEST(OctreeCapacity, LaterBatchesStayQueued) {
  const Scene& scene = synth_scene(60'000, synth::Order::Scan);
  OctreeConfig c = small_config(2000, 8, 100);
  c.memory_bytes = 400'000;
  Octree tree = Octree::create(scene.bounds, c);
  const std::span<const Point> all(scene.points);
  tree.insert(all.first(1000));
  tree.insert(all.subspan(1000, 40'000));  // 640 KB of points alone
  tree.insert(all.subspan(41'000, 1000));
  EXPECT_THROW(tree.update(), CapacityError);
  OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.points, 1000u);
  EXPECT_EQ(stats.batches_queued, 1u);
  EXPECT_EQ(stats.last_update.batches, 1u);
  EXPECT_EQ(stats.last_update.batches_left, 1u);
  EXPECT_LT(stats.bytes_free, stats.bytes_reserved);
  tree.update();
  stats = tree.stats();
  std::vector<Point> inserted(all.begin(), all.begin() + 1000);
  inserted.insert(inserted.end(), all.begin() + 41'000, all.begin() + 42'000);
  expect_octree_invariants(tree.snapshot(), inserted, c, &stats);
}

// Filling the reserve batch by batch: every batch either goes in whole or is refused whole.
TEST(OctreeCapacity, FillingUpRefusesWholeBatchesOnly) {
  const Scene& scene = synth_scene(100'000, synth::Order::Scan);
  OctreeConfig c = small_config(1500, 16, 250);
  c.memory_bytes = 1'000'000;
  Octree tree = Octree::create(scene.bounds, c);
  std::vector<Point> inserted;
  std::size_t refused = 0;
  const std::span<const Point> all(scene.points);
  for (std::size_t i = 0; i < all.size(); i += 5000) {
    tree.insert(all.subspan(i, 5000));
    try {
      tree.update();
      inserted.insert(inserted.end(), all.begin() + i, all.begin() + i + 5000);
    } catch (const CapacityError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u);
  EXPECT_GT(inserted.size(), 0u);
  const OctreeStats stats = tree.stats();
  EXPECT_LE(stats.bytes_reserved - stats.bytes_free, c.memory_bytes);
  expect_octree_invariants(tree.snapshot(), inserted, c, &stats);
}

}  // namespace
}  // namespace simlod::test
