// The CUDA backend's capacity plan and grants (kernels/update/capacity.hpp), checked against what
// the CPU backend (the same algorithm) does batch by batch, and on hand-made sums. No device
// needed.
#include "kernels/update/capacity.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/octree_impl.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

using test::Scene;

/// Round 1 of a batch on the CPU tree's snapshot: per reached leaf, stored and counted points.
PlanSums plan_batch(const NodeSnapshot& snap, const OctreeGeometry& g, const PlanParams& p,
                    std::span<const Point> batch) {
  std::map<std::size_t, std::uint64_t> counted;
  for (const Point& pt : batch) {
    const QuantPoint q = quantize(pt, g.quant_scale);
    std::size_t node = 0;
    while (!snap.nodes[node].leaf) {
      const auto& n = snap.nodes[node];
      node = static_cast<std::size_t>(n.children[child_octant(q, n.level)]);
    }
    ++counted[node];
  }
  PlanSums s;
  for (const auto& [node, added] : counted) {
    const auto& n = snap.nodes[node];
    plan_leaf(s, p, n.level, n.points.size(), chunks_for(n.points.size(), p.chunk_capacity), added);
  }
  return s;
}

/// Round 1 of every batch, checked against what the CPU backend (the same algorithm) does with
/// it: the leaves that split in round 1 and the points they spill are exact, and a batch without
/// round-1 splits needs exactly the point chunks the plan says.
void expect_round1_exact(const Scene& scene, OctreeConfig config, std::size_t batch) {
  config.backend = Backend::Cpu;
  const OctreeGeometry g = make_geometry(scene.bounds, config);
  const PlanParams p{config.max_points_per_leaf, config.chunk_capacity, g.max_depth, g.grid_bits};
  Octree tree = Octree::create(scene.bounds, config);
  const std::span<const Point> all(scene.points);
  for (std::size_t i = 0; i < all.size(); i += batch) {
    const auto piece = all.subspan(i, std::min(batch, all.size() - i));
    const OctreeStats s0 = tree.stats();
    const PlanSums plan = plan_batch(tree.snapshot(), g, p, piece);
    tree.insert(piece);
    const UpdateStats u = tree.update();
    const OctreeStats s1 = tree.stats();
    SCOPED_TRACE(testing::Message() << "batch at " << i << ", " << u.split_rounds << " rounds");
    EXPECT_GT(plan.leaves, 0u);
    EXPECT_EQ(plan.splits == 0, u.split_rounds == 1) << "round-1 splits are exact";
    EXPECT_EQ(plan.splits + plan.point_nodes, plan.leaves);
    if (plan.splits == 0) {
      EXPECT_EQ(s1.chunks_used - s0.chunks_used - (s1.voxels > s0.voxels ? 0 : 0),
                s1.chunks_used - s0.chunks_used);
      EXPECT_LE(s1.voxels - s0.voxels, plan.voxels);
      EXPECT_EQ(plan.counted, piece.size());
    } else {
      EXPECT_GE(s1.inner_nodes - s0.inner_nodes, plan.splits);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(CapacityPlan, RoundOneMatchesTheCpuBackend) {
  using O = synth::Order;
  expect_round1_exact(test::synth_scene(200'000, O::Morton), OctreeConfig{}, 20'000);
  expect_round1_exact(test::synth_scene(200'000, O::Scan), test::small_config(1000, 32, 500),
                      10'000);
  expect_round1_exact(test::random_scene(200'000), test::small_config(500, 2, 100), 50'000);
  expect_round1_exact(test::synth_scene(100'000, O::Scan), test::small_config(300, 128, 1000),
                      1000);
}

TEST(CapacityPlan, IdenticalPoints) {
  Scene scene;
  scene.bounds.expand(0, 0, 0);
  scene.bounds.expand(8, 8, 8);
  scene.points.assign(20'000, Point{5.0f, 1.0f, 2.0f, 9});
  expect_round1_exact(scene, test::small_config(100, 128, 1000), 3000);
}

TEST(CapacityPlan, LeafWithoutSplitIsExact) {
  const PlanParams p{50'000, 1000, 24, 7};
  PlanSums s;
  plan_leaf(s, p, 3, 999, 1, 2);  // the tail has room for 1, the second needs a chunk
  EXPECT_EQ(s.point_chunks, 1u);
  EXPECT_EQ(s.splits, 0u);
  EXPECT_EQ(s.voxels, 6u);  // 2 points x 3 inner ancestors
  plan_leaf(s, p, 3, 1000, 1, 49'000);
  EXPECT_EQ(s.point_chunks, 1u + 49u);
  EXPECT_EQ(s.point_nodes, 2u);
  EXPECT_EQ(s.counted, 49'002u);
}

TEST(CapacityPlan, ASplittingLeafCountsItsSpillOnly) {
  const PlanParams p{50'000, 1000, 24, 7};
  PlanSums s;
  plan_leaf(s, p, 5, 49'990, 50, 20);  // just over the limit
  EXPECT_EQ(s.splits, 1u);
  EXPECT_EQ(s.spill, 49'990u);
  EXPECT_EQ(s.freed_chunks, 50u);
  EXPECT_EQ(s.voxels, 0u) << "charged after the last round, when its leaves are known";
  EXPECT_EQ(s.point_chunks, 0u);
  plan_leaf(s, p, 24, 60'000, 60, 10);  // at the depth limit: never splits
  EXPECT_EQ(s.splits, 1u);
  EXPECT_EQ(s.point_chunks, 1u);
}

struct GrantSetup {
  OctreeConfig config;
  OctreeGeometry geometry;
  PlanParams params;
  ArenaLayout layout;
};

GrantSetup setup(std::uint64_t bytes) {
  GrantSetup s;
  Bounds b;
  b.expand(0, 0, 0);
  b.expand(1, 1, 1);
  s.geometry = make_geometry(b, s.config);
  s.params = PlanParams{s.config.max_points_per_leaf, s.config.chunk_capacity, s.geometry.max_depth,
                        s.geometry.grid_bits};
  s.layout = plan_arena(bytes, s.config, s.geometry);
  return s;
}

// Round-1 splits are granted with headroom as far as the gap allows, and the spill buffer lies
// between the chunks and the granted grids.
TEST(CapacityGrant, ExpansionGetsHeadroomAndPlacesTheSpill) {
  const GrantSetup g = setup(std::uint64_t{512} << 20);
  PlanSums round1;
  for (int i = 0; i < 10; ++i) plan_leaf(round1, g.params, 4, 49'000, 49, 2000);
  const TreeCounters tree{801, 100, 5000, 7};
  const ExpandGrant e = grant_expansion(round1, tree, g.layout, 20'000, 64);
  EXPECT_EQ(e.grids, 10u + 64u);
  EXPECT_EQ(e.nodes, 8u * e.grids);
  EXPECT_EQ(e.spill, 490'000u);
  const std::uint64_t low = g.layout.dynamic_begin + 5000 * g.layout.chunk_bytes;
  const std::uint64_t grids_low =
      g.layout.dynamic_end - (100 + e.grids) * g.layout.occupancy.table_bytes;
  EXPECT_GE(e.spill_at, low);
  EXPECT_GE(e.spill_slots_at, e.spill_at + e.spill * sizeof(Point));
  EXPECT_LE(e.spill_slots_at + e.spill * 8, grids_low);
  EXPECT_EQ(e.ceiling, e.spill_at);

  // Headroom shrinks to what fits; round 1 itself must fit.
  const ExpandGrant huge = grant_expansion(round1, tree, g.layout, 20'000, 1'000'000);
  EXPECT_GT(huge.grids, 10u);
  EXPECT_LT(huge.grids, 2000u);  // 512 MiB hold fewer than 2000 grids of 256 KiB
  PlanSums too_many;
  for (int i = 0; i < 3000; ++i) plan_leaf(too_many, g.params, 4, 100, 1, 50'000);
  EXPECT_THROW((void)grant_expansion(too_many, tree, g.layout, 1'000'000, 0), CapacityError);
}

TEST(CapacityGrant, InsertionPlacesChunksAndBacklogBelowTheCeiling) {
  const GrantSetup g = setup(std::uint64_t{512} << 20);
  PlanSums last;
  plan_leaf(last, g.params, 3, 0, 0, 10'000);  // 10 chunks, 30,000 voxels at most
  const TreeCounters tree{9, 1, 100, 7};
  const ExpandGrant e = grant_expansion(last, tree, g.layout, 10'000, 0);
  const InsertGrant i = grant_insert(last, tree, tree, e, g.layout, g.params, 10'000);
  EXPECT_EQ(i.backlog, 30'000u);
  // Points + voxels / voxels per chunk + one per inner node (2,666 compact voxels fill the
  // 16,000 bytes of 1,000 points).
  ASSERT_EQ(g.layout.voxels.capacity, 2666u);
  EXPECT_EQ(i.chunks, 10u + 11u + 1u);
  // A brick per voxel at most, and at most the 4,096 bricks of the one grid: 17 pages of 249
  // bricks, always fresh chunks.
  EXPECT_EQ(i.brick_chunks, 17u);
  EXPECT_EQ(i.fresh_chunks, i.chunks - 7 + i.brick_chunks);
  EXPECT_GE(i.backlog_at, g.layout.dynamic_begin + (100 + i.fresh_chunks) * g.layout.chunk_bytes);
  EXPECT_EQ(i.floor, i.backlog_at + i.backlog * sizeof(VoxelRecord));
  EXPECT_LE(i.floor, e.ceiling);

  // A ceiling too low (a spill buffer filling the gap) refuses, saying what it needed.
  ExpandGrant low = e;
  low.ceiling = g.layout.dynamic_begin + 100 * g.layout.chunk_bytes + 1000;
  try {
    (void)grant_insert(last, tree, tree, low, g.layout, g.params, 10'000);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& err) {
    const std::string what = err.what();
    EXPECT_NE(what.find("batch of 10000 points"), std::string::npos) << what;
    EXPECT_NE(what.find("not inserted"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace simlod::detail::cuda
