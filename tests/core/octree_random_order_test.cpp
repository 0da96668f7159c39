// Points in random order (merged tiles, photogrammetry exports): every batch reaches leaves all
// over the tree and many leaves split at once. The tree must be the one scan order gives: the
// node set, the points of every leaf and the voxel cells do not depend on the order or the
// batching (a node is inner exactly when more than the leaf limit of points reached it).
#include <gtest/gtest.h>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"

namespace simlod::test {
namespace {

TEST(OctreeRandomOrder, SameTreeAsScanOrder) {
  const Scene& scan = synth_scene(1'000'000, synth::Order::Scan);
  const Scene& random = random_scene(1'000'000);
  OctreeConfig c;
  c.backend = Backend::Cpu;
  const Octree a = build(scan.bounds, c, scan.points, 100'000);
  const Octree b = build(random.bounds, c, random.points, 100'000);
  expect_same_tree(a.snapshot(), b.snapshot(), /*colours=*/false);
  EXPECT_EQ(b.stats().points, 1'000'000u);
  EXPECT_GT(b.stats().depth, 2u);
}

TEST(OctreeRandomOrder, OneBatchOverManyFullLeaves) {
  const FullLeaves f = full_leaves();
  OctreeConfig c = small_config(1000, 32, 100);
  c.memory_bytes = std::uint64_t{64} << 20;  // holds what the batch needs, with room to spare
  Octree tree = Octree::create(f.bounds, c);
  tree.insert(f.first);
  tree.update();
  ASSERT_EQ(tree.stats().leaves, 512u);
  tree.insert(f.second);
  const UpdateStats u = tree.update();
  EXPECT_EQ(u.pieces, 0u);
  EXPECT_EQ(u.split_rounds, 2u);
  std::vector<Point> all = f.first;
  all.insert(all.end(), f.second.begin(), f.second.end());
  const OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.inner_nodes, 1u + 8u + 64u + 512u);
  expect_octree_invariants(tree.snapshot(), all, c, &stats);
}

}  // namespace
}  // namespace simlod::test
