// The CUDA backend's capacity bound, checked against what the CPU backend (the same algorithm)
// actually uses batch by batch: the bound must never be below the need. No device needed.
#include "kernels/capacity.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/octree_impl.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
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

void expect_bound_holds(const Scene& scene, OctreeConfig config, std::size_t batch) {
  config.backend = Backend::Cpu;
  const OctreeGeometry g = make_geometry(scene.bounds, config);
  const PlanParams p{config.max_points_per_leaf, config.chunk_capacity, g.max_depth, g.grid_bits};
  const ArenaLayout layout = plan_arena(std::uint64_t{1} << 40, config, g);  // never the limit
  Octree tree = Octree::create(scene.bounds, config);
  const std::span<const Point> all(scene.points);
  for (std::size_t i = 0; i < all.size(); i += batch) {
    const auto piece = all.subspan(i, std::min(batch, all.size() - i));
    const OctreeStats s0 = tree.stats();
    const PlanSums plan = plan_batch(tree.snapshot(), g, p, piece);
    const TreeCounters counters{s0.nodes, s0.inner_nodes, s0.chunks_allocated, s0.chunks_pooled};
    const BatchReservation r = reserve_batch(plan, counters, layout, p, piece.size());
    tree.insert(piece);
    const UpdateStats u = tree.update();
    const OctreeStats s1 = tree.stats();
    SCOPED_TRACE(testing::Message() << "batch at " << i << ", " << u.split_rounds << " rounds");
    EXPECT_EQ(plan.leaves > 0, true);
    EXPECT_EQ(plan.splits == 0, u.split_rounds == 1) << "round-1 splits are exact";
    EXPECT_LE(s1.inner_nodes - s0.inner_nodes, r.grids);
    EXPECT_LE(s1.nodes - s0.nodes, r.nodes);
    EXPECT_LE(s1.voxels - s0.voxels, r.backlog);
    // Chunks handed to nodes = in use now - (in use before - freed by the splits).
    const std::uint64_t taken = s1.chunks_used - (s0.chunks_used - plan.freed_chunks);
    EXPECT_LE(taken, r.chunks);
    EXPECT_LE(s1.chunks_allocated - s0.chunks_allocated, r.fresh_chunks);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(CapacityBound, CoversTheCpuBackendsNeed) {
  using O = synth::Order;
  expect_bound_holds(test::synth_scene(200'000, O::Morton), OctreeConfig{}, 20'000);
  expect_bound_holds(test::synth_scene(200'000, O::Scan), test::small_config(1000, 32, 500),
                     10'000);
  expect_bound_holds(test::synth_scene(200'000, O::Morton), test::small_config(500, 2, 100),
                     50'000);
  expect_bound_holds(test::synth_scene(100'000, O::Scan), test::small_config(300, 128, 1000), 1000);
}

TEST(CapacityBound, CoversIdenticalPoints) {
  Scene scene;
  scene.bounds.expand(0, 0, 0);
  scene.bounds.expand(8, 8, 8);
  scene.points.assign(20'000, Point{5.0f, 1.0f, 2.0f, 9});
  expect_bound_holds(scene, test::small_config(100, 128, 1000), 3000);
}

TEST(CapacityBound, LeafWithoutSplitIsExact) {
  const PlanParams p{50'000, 1000, 24, 7};
  PlanSums s;
  plan_leaf(s, p, 3, 999, 1, 2);  // the tail has room for 1, the second needs a chunk
  EXPECT_EQ(s.point_chunks, 1u);
  EXPECT_EQ(s.splits, 0u);
  EXPECT_EQ(s.voxels, 6u);  // 2 points x 3 inner ancestors
  plan_leaf(s, p, 3, 1000, 1, 49'000);
  EXPECT_EQ(s.point_chunks, 1u + 49u);
  EXPECT_EQ(s.point_nodes, 2u);
}

TEST(CapacityBound, RefusesWhatDoesNotFitAndPlacesScratchInTheGap) {
  OctreeConfig c;
  Bounds b;
  b.expand(0, 0, 0);
  b.expand(1, 1, 1);
  const OctreeGeometry g = make_geometry(b, c);
  const PlanParams p{c.max_points_per_leaf, c.chunk_capacity, g.max_depth, g.grid_bits};
  const ArenaLayout layout = plan_arena(std::uint64_t{512} << 20, c, g);
  PlanSums plan;
  plan_leaf(plan, p, 0, 0, 0, 1'000'000);  // a fresh tree's root takes a 1M batch
  const TreeCounters fresh{1, 0, 0, 0};
  try {
    (void)reserve_batch(plan, fresh, layout, p, 1'000'000);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("batch of 1000000 points"), std::string::npos) << what;
    EXPECT_NE(what.find("not inserted"), std::string::npos) << what;
  }
  PlanSums small;
  plan_leaf(small, p, 0, 0, 0, 10'000);
  const TreeCounters used{1, 3, 100, 7};
  const BatchReservation r = reserve_batch(small, used, layout, p, 10'000);
  EXPECT_EQ(r.grids, 0u);
  EXPECT_EQ(r.fresh_chunks, 3u);  // 10 chunks, 7 pooled
  const std::uint64_t gap_begin = layout.dynamic_begin + 100 * layout.chunk_bytes;
  const std::uint64_t grid_low = layout.dynamic_end - 3 * layout.grid_bytes;
  EXPECT_GE(r.spill_at, gap_begin + r.fresh_chunks * layout.chunk_bytes);
  EXPECT_LE(r.backlog_at + r.backlog * sizeof(VoxelRecord), grid_low);
  EXPECT_EQ(r.gap, grid_low - gap_begin);
}

}  // namespace
}  // namespace simlod::detail
