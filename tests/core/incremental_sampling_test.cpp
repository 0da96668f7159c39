// Filtered voxel colours in the incremental builder (CPU backend): Sampling::Random and Average
// equal the bulk builder's colours exactly after any batching (the bulk builder's own tests
// check its colours against a brute force, octree_sampling_test.cpp); Weighted after
// finalize(); build then update; batches refused for memory leave every colour as it was; the
// voxel index's memory is reported and charged to the reserve.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "core/bulk_scenes.hpp"
#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

constexpr Sampling kFilters[] = {Sampling::Random, Sampling::Average, Sampling::Weighted};

OctreeConfig filter_config(Sampling s, std::uint32_t leaf, std::uint32_t grid) {
  OctreeConfig c = small_config(leaf, grid, 200);
  c.sampling = s;
  c.sampling_seed = 11;
  return c;
}

/// The bulk build of `points`: the reference for every incremental tree.
NodeSnapshot bulk(const Bounds& bounds, std::span<const Point> points, const OctreeConfig& c) {
  return Octree::build(points, bounds, c).snapshot();
}

struct Case {
  const char* name;
  const Scene* scene;
  std::uint32_t leaf, grid;
};

TEST(IncrementalSampling, EqualsTheBulkBuildForAnyBatching) {
  const Scene deep = deep_cluster_scene(12'000);
  const Scene spot = one_spot_scene();
  const Case cases[] = {{"scan", &synth_scene(40'000, synth::Order::Scan), 500, 16},
                        {"random order", &random_scene(40'000), 500, 16},
                        {"morton", &synth_scene(40'000, synth::Order::Morton), 1000, 32},
                        {"deep cluster", &deep, 50, 32},
                        {"one spot", &spot, 100, 8}};
  for (const Sampling mode : kFilters) {
    for (const Case& k : cases) {
      SCOPED_TRACE(::testing::Message() << "sampling " << static_cast<int>(mode) << ", " << k.name);
      const OctreeConfig c = filter_config(mode, k.leaf, k.grid);
      const std::span<const Point> all(k.scene->points);
      const NodeSnapshot want = bulk(k.scene->bounds, all, c);
      for (const std::size_t batch : {all.size(), std::size_t{997}, std::size_t{6'000}}) {
        SCOPED_TRACE(batch);
        Octree tree = Octree::create(k.scene->bounds, c);
        insert_all(tree, all, batch, 3);
        if (mode == Sampling::Weighted) {
          // Batches write first-come colours; the cells are already the bulk build's.
          expect_same_tree(tree.snapshot(), want, false);
          tree.finalize();
        }
        expect_same_tree(tree.snapshot(), want, true);
      }
    }
  }
}

TEST(IncrementalSampling, BuildThenUpdateEqualsBuildingEverything) {
  const Scene& s = random_scene(40'000, 2);
  const std::span<const Point> all(s.points);
  for (const Sampling mode : kFilters) {
    SCOPED_TRACE(static_cast<int>(mode));
    const OctreeConfig c = filter_config(mode, 400, 16);
    Octree tree = Octree::build(all.first(15'000), s.bounds, c);
    EXPECT_EQ(tree.stats().bytes_filter, 0u) << "the index is made by the first batch";
    insert_all(tree, all.subspan(15'000), 5'000);
    tree.finalize();
    expect_same_tree(tree.snapshot(), bulk(s.bounds, all, c), true);
    EXPECT_EQ(tree.stats().bytes_filter > 0, mode != Sampling::Weighted);
  }
}

TEST(IncrementalSampling, FinalizeIsNeededOnceAfterTheLastBatch) {
  const Scene& s = synth_scene(30'000, synth::Order::Scan);
  const OctreeConfig c = filter_config(Sampling::Weighted, 500, 16);
  Octree tree = Octree::create(s.bounds, c);
  insert_all(tree, s.points, 4'000);
  EXPECT_EQ(tree.stats().finalize.points, 0u);
  tree.finalize();
  const BuildStats first = tree.stats().finalize;
  EXPECT_EQ(first.points, s.points.size());
  EXPECT_GT(first.voxelize_ms, 0.0);
  EXPECT_GE(first.total_ms, first.voxelize_ms);
  EXPECT_GT(first.scratch_bytes, 0u);
  const NodeSnapshot once = tree.snapshot();
  tree.finalize();  // nothing went in since: the same tree, voxel for voxel
  expect_identical(once, tree.snapshot());
  EXPECT_EQ(tree.stats().finalize.total_ms, first.total_ms);  // nothing computed, nothing timed
  // Without batches nothing is stale: a bulk-built tree keeps its colours.
  Octree built = Octree::build(s.points, s.bounds, c);
  const NodeSnapshot before = built.snapshot();
  built.finalize();
  expect_identical(before, built.snapshot());
}

// With a small reserve, update() inserts pieces until a point does not fit; every refused
// piece is rolled back. The colours must then be those of exactly the points that went in.
TEST(IncrementalSampling, RefusedBatchesLeaveTheColoursExact) {
  const Scene& s = random_scene(30'000, 3);
  for (const Sampling mode : {Sampling::Random, Sampling::Average}) {
    SCOPED_TRACE(static_cast<int>(mode));
    OctreeConfig c = filter_config(mode, 400, 16);
    const std::uint64_t full = Octree::build(s.points, s.bounds, c).stats().bytes_reserved;
    c.memory_bytes = full / 2;
    Octree tree = Octree::create(s.bounds, c);
    std::uint64_t in = 0;
    try {
      insert_all(tree, s.points, 3'000);
      FAIL() << "half of the memory should not hold every point";
    } catch (const CapacityError&) {
      in = tree.stats().points;
    }
    ASSERT_GT(in, 0u);
    ASSERT_LT(in, s.points.size());
    const OctreeStats st = tree.stats();
    EXPECT_GT(st.bytes_filter, 0u);
    EXPECT_LE(st.bytes_points + st.bytes_voxels + st.bytes_grids + st.bytes_nodes + st.bytes_filter,
              c.memory_bytes)
        << "the voxel index is charged to the reserve";
    // The points in are the first `in` of the input (batches go in in order, a batch's
    // pieces too).
    OctreeConfig unlimited = c;
    unlimited.memory_bytes = 0;
    expect_same_tree(
        tree.snapshot(),
        bulk(s.bounds, std::span(s.points).first(static_cast<std::size_t>(in)), unlimited), true);
  }
}

TEST(IncrementalSampling, IndexMemoryIsReportedForRandomAndAverageOnly) {
  const Scene& s = synth_scene(20'000, synth::Order::Scan);
  std::uint64_t bytes[4] = {};
  const Sampling modes[4] = {Sampling::FirstCome, Sampling::Random, Sampling::Average,
                             Sampling::Weighted};
  for (int i = 0; i < 4; ++i) {
    Octree tree = build(s.bounds, filter_config(modes[i], 500, 16), s.points, 5'000);
    const OctreeStats st = tree.stats();
    bytes[i] = st.bytes_filter;
    EXPECT_EQ(st.bytes_reserved, st.bytes_points + st.bytes_voxels + st.bytes_grids +
                                     st.bytes_nodes + st.bytes_filter +
                                     st.chunks_pooled * 200 * sizeof(Point))
        << "without a reserve, bytes_reserved is what the tree holds";
  }
  EXPECT_EQ(bytes[0], 0u);
  EXPECT_EQ(bytes[3], 0u);
  EXPECT_GT(bytes[1], 0u);
  EXPECT_GT(bytes[2], bytes[1]) << "colour sums take more than random keys";
}

}  // namespace
}  // namespace simlod::test
