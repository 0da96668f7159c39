// Snapshots and statistics of the CUDA backend assembled from host copies of the device
// tables (no device needed: the tables are made by hand here).
#include "kernels/tree/host_tree.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/octree_impl.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr std::uint32_t kCap = 2;
const std::uint64_t kChunkBytes = chunk_bytes_for(kCap);

struct FakeTree {
  HostTreeCopy copy;

  explicit FakeTree(std::uint32_t chunks) { copy.chunks.resize(chunks * kChunkBytes); }

  void put(std::uint32_t chunk, std::uint32_t slot, const Point& p) {
    std::memcpy(copy.chunks.data() + chunk * kChunkBytes + slot * sizeof(Point), &p, sizeof(p));
  }
  void link(std::uint32_t chunk, std::uint32_t next) {
    std::memcpy(copy.chunks.data() + (chunk + 1) * kChunkBytes - 16, &next, 4);  // the trailer
  }
};

OctreeGeometry geometry() {
  Bounds b;
  b.expand(0, 0, 0);
  b.expand(8, 8, 8);
  return make_geometry(b, OctreeConfig{});
}

/// The chunks of 2 points (or, in the same 32 bytes, 5 compact voxels).
ArenaLayout layout() {
  ArenaLayout l;
  l.chunk_capacity = kCap;
  l.points = point_layout(kCap, 0, false);
  l.chunk_bytes = kChunkBytes;
  l.voxels = voxel_layout(kCap * sizeof(Point), 0, geometry().grid_bits);
  return l;
}

/// The cells of the root's voxels: (3, 0, 0), (0, 5, 0), (127, 127, 127) at the default grid.
constexpr std::uint32_t kCells[] = {3, 5u << 7, (1u << 21) - 1};

/// Root (inner, 7 voxels in chunks 0 -> 1) with 8 leaf children; child 1 holds 5 points in
/// chunks 4 -> 2 -> 3, the others are empty.
FakeTree make_tree() {
  FakeTree t(5);
  t.copy.nodes.push_back(DeviceNode{0, 0, 0, 0, 7, 2, 0, 1});
  t.copy.links.push_back(NodeLink{1, 0});
  for (std::uint32_t k = 0; k < 8; ++k) {
    DeviceNode child{k & 1u, (k >> 1) & 1u, k >> 2, 1, 0, 0, kNil, kNil};
    if (k == 1) child = DeviceNode{1, 0, 0, 1, 5, 3, 4, 3};
    t.copy.nodes.push_back(child);
    t.copy.links.push_back(NodeLink{kNil, kNil});
  }
  const VoxelLayout v = layout().voxels;
  for (std::uint32_t i = 0; i < 7; ++i) {
    put_voxel(t.copy.chunks.data() + i / v.capacity * kChunkBytes, v, i % v.capacity, kCells[i % 3],
              i);
  }
  t.link(0, 1);
  t.link(1, kNil);
  const std::uint32_t order[] = {4, 2, 3};
  for (std::uint32_t i = 0; i < 5; ++i)
    t.put(order[i / 2], i % 2, Point{6.0f, 1.0f, 1.0f, 100 + i});
  t.link(4, 2);
  t.link(2, 3);
  t.link(3, kNil);
  return t;
}

TEST(HostTree, SnapshotFollowsTheChunkLists) {
  const FakeTree t = make_tree();
  const NodeSnapshot s = build_snapshot(t.copy, geometry(), layout());
  ASSERT_EQ(s.nodes.size(), 9u);
  EXPECT_FALSE(s.nodes[0].leaf);
  for (std::int32_t k = 0; k < 8; ++k) EXPECT_EQ(s.nodes[0].children[k], k + 1);
  ASSERT_EQ(layout().voxels.capacity, 5u);
  ASSERT_EQ(s.nodes[0].voxels.size(), 7u);
  for (std::uint32_t i = 0; i < 7; ++i) {
    const Point& p = s.nodes[0].voxels[i];
    EXPECT_EQ(p.rgba, 0xff000000u | i) << "alpha 255";
    // Cells of 8 / 128 = 0.0625 units: the centres of the cells written.
    const std::uint32_t c = kCells[i % 3];
    EXPECT_EQ(p.x, ((c & 127u) + 0.5f) * 0.0625f);
    EXPECT_EQ(p.y, (((c >> 7) & 127u) + 0.5f) * 0.0625f);
    EXPECT_EQ(p.z, ((c >> 14) + 0.5f) * 0.0625f);
  }
  const auto& leaf = s.nodes[2];
  EXPECT_TRUE(leaf.leaf);
  EXPECT_EQ(leaf.level, 1u);
  EXPECT_EQ(leaf.position, (std::array<std::uint32_t, 3>{1, 0, 0}));
  EXPECT_EQ(leaf.bounds.min[0], 4.0);
  EXPECT_EQ(leaf.bounds.max[0], 8.0);
  ASSERT_EQ(leaf.points.size(), 5u);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(leaf.points[i].rgba, 100 + i);
  EXPECT_TRUE(s.nodes[3].points.empty());
}

TEST(HostTree, InconsistentCopiesAreReported) {
  FakeTree bad_count = make_tree();
  bad_count.copy.nodes[2].chunks = 2;  // 5 points need 3 chunks of 2
  EXPECT_THROW((void)build_snapshot(bad_count.copy, geometry(), layout()), Error);
  FakeTree bad_link = make_tree();
  bad_link.link(2, 77);
  EXPECT_THROW((void)build_snapshot(bad_link.copy, geometry(), layout()), Error);
  FakeTree bad_tail = make_tree();
  bad_tail.copy.nodes[2].tail = 2;
  EXPECT_THROW((void)build_snapshot(bad_tail.copy, geometry(), layout()), Error);
}

TEST(HostTree, StatsFromTheCounters) {
  ArenaLayout layout = simlod::detail::cuda::layout();
  layout.total_bytes = 1 << 20;
  layout.occupancy = detail::occupancy_layout(7, 16000);  // 249 bricks a page
  layout.occupancy.table_bytes = 512;
  layout.dynamic_begin = 4096;
  layout.dynamic_end = 1 << 20;
  Control c{};
  c.node_count = 17;
  c.grid_count = 2;
  c.chunk_top = 12;  // 7 in lists, 3 pooled, 2 pages of bricks
  c.pool_size = 3;
  c.depth = 2;
  c.voxels = 40;
  c.point_chunks = 5;
  c.voxel_chunks = 2;
  c.bricks = layout.occupancy.bricks_per_page + 1;  // two pages
  const OctreeStats s = tree_stats(c, layout, 123);
  EXPECT_EQ(s.nodes, 17u);
  EXPECT_EQ(s.inner_nodes, 2u);
  EXPECT_EQ(s.leaves, 15u);
  EXPECT_EQ(s.points, 123u);
  EXPECT_EQ(s.chunks_used + s.chunks_pooled + s.chunks_bricks, s.chunks_allocated);
  EXPECT_EQ(s.bricks, c.bricks);
  EXPECT_EQ(s.chunks_bricks, 2u);
  EXPECT_EQ(s.bytes_points, 5 * kCap * sizeof(Point));
  EXPECT_EQ(s.bytes_voxels, 2 * kCap * sizeof(Point));
  EXPECT_EQ(s.points_per_chunk, kCap);
  EXPECT_EQ(s.voxels_per_chunk, 5u);
  EXPECT_EQ(s.bytes_grids, 2u * 512 + 2 * kCap * sizeof(Point));  // pages count as payload
  EXPECT_EQ(s.bytes_free, (1u << 20) - 2 * 512 - 4096 - 12 * kChunkBytes + 3 * kChunkBytes);
}

}  // namespace
}  // namespace simlod::detail::cuda
