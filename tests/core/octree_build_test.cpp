// The bulk builder (Octree::build) on the CPU: the same tree as the incremental builder for the
// same points whatever their order and batching, every invariant, a normal octree afterwards
// (update() inserts more), and the bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/bulk_scenes.hpp"
#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

/// Statistics that depend only on the points: the tree, not how it was built.
void expect_same_shape_stats(const OctreeStats& a, const OctreeStats& b) {
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.leaves, b.leaves);
  EXPECT_EQ(a.inner_nodes, b.inner_nodes);
  EXPECT_EQ(a.depth, b.depth);
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.voxels, b.voxels);
  EXPECT_EQ(a.bytes_points, b.bytes_points);
  EXPECT_EQ(a.bytes_voxels, b.bytes_voxels);
  EXPECT_EQ(a.bytes_grids, b.bytes_grids);
  EXPECT_EQ(a.bytes_nodes, b.bytes_nodes);
}

/// Bulk against incremental (batches of `batch`), and the bulk tree's invariants.
void expect_bulk_matches(const Scene& scene, const OctreeConfig& config, std::size_t batch) {
  const Octree bulk = Octree::build(scene.points, scene.bounds, config);
  const Octree incremental = build(scene.bounds, config, scene.points, batch);
  expect_same_tree(bulk.snapshot(), incremental.snapshot(), /*colours=*/false);
  if (::testing::Test::HasFatalFailure()) return;
  expect_same_shape_stats(bulk.stats(), incremental.stats());
  const OctreeStats stats = bulk.stats();
  expect_octree_invariants(bulk.snapshot(), scene.points, config, &stats);
  EXPECT_EQ(stats.build.points, scene.points.size());
  EXPECT_EQ(stats.chunks_pooled, 0u);
}

TEST(OctreeBuild, SameTreeAsIncrementalInScanOrder) {
  expect_bulk_matches(synth_scene(200'000, synth::Order::Scan), small_config(), 30'000);
}

TEST(OctreeBuild, SameTreeAsIncrementalInMortonOrder) {
  expect_bulk_matches(synth_scene(200'000, synth::Order::Morton), small_config(), 7'000);
}

TEST(OctreeBuild, SameTreeAsIncrementalInRandomOrder) {
  expect_bulk_matches(random_scene(200'000), small_config(), 50'000);
}

TEST(OctreeBuild, SameTreeWithDefaultConfig) {
  OctreeConfig c;
  c.backend = Backend::Cpu;
  expect_bulk_matches(random_scene(1'000'000), c, 250'000);
}

TEST(OctreeBuild, ALeafHoldsExactlyTheLimit) {
  // 8 x 100 points: the root splits, each octant holds exactly the limit and stays a leaf.
  const Scene s = octant_scene(100);
  const OctreeConfig c = small_config(100, 8, 30);
  const Octree tree = Octree::build(s.points, s.bounds, c);
  EXPECT_EQ(tree.stats().nodes, 9u);
  EXPECT_EQ(tree.stats().depth, 1u);
  expect_bulk_matches(s, c, 37);
  // One more point in octant 0 splits it.
  Scene more = s;
  more.points.push_back({1.0f, 1.0f, 1.0f, 0xFF0000FFu});
  EXPECT_EQ(Octree::build(more.points, more.bounds, c).stats().nodes, 17u);
  expect_bulk_matches(more, c, 64);
}

TEST(OctreeBuild, MorePointsThanTheLimitAtOneSpotGoToMaxDepth) {
  const Scene s = one_spot_scene();
  const OctreeConfig c = small_config(100, 8, 40);  // grid 2^3: max depth 24
  const Octree tree = Octree::build(s.points, s.bounds, c);
  EXPECT_EQ(tree.stats().depth, 24u);
  expect_bulk_matches(s, c, 33);
}

TEST(OctreeBuild, TreesDeeperThanTwelveLevels) {
  // A cluster 2^-16 of the cube wide inside a sparse cloud: leaves far below level 12.
  const Scene s = deep_cluster_scene(20'000);
  const OctreeConfig c = small_config(50, 16, 64);
  EXPECT_GT(Octree::build(s.points, s.bounds, c).stats().depth, 16u);
  expect_bulk_matches(s, c, 4'096);
}

TEST(OctreeBuild, BuildThenUpdateEqualsBuildingEverything) {
  const Scene& scene = random_scene(300'000);
  const OctreeConfig c = small_config();
  const std::span<const Point> all(scene.points);
  Octree tree = Octree::build(all.first(120'000), scene.bounds, c);
  insert_all(tree, all.subspan(120'000), 40'000);
  const Octree everything = Octree::build(all, scene.bounds, c);
  expect_same_tree(tree.snapshot(), everything.snapshot(), /*colours=*/false);
  if (HasFatalFailure()) return;
  expect_same_shape_stats(tree.stats(), everything.stats());
  const OctreeStats stats = tree.stats();
  expect_octree_invariants(tree.snapshot(), all, c, &stats);
}

TEST(OctreeBuild, OnePoint) {
  const std::vector<Point> one{{0.0f, 0.0f, 0.0f, 0xFF00FF00u}};
  const Octree tree = Octree::build(one, cube_at_origin(0.0), small_config());
  EXPECT_EQ(tree.stats().nodes, 1u);
  EXPECT_EQ(tree.stats().points, 1u);
  EXPECT_EQ(tree.snapshot().nodes[0].points.size(), 1u);
}

TEST(OctreeBuild, RefusesAnEmptySpan) {
  try {
    (void)Octree::build(std::span<const Point>{}, cube_at_origin(1.0), small_config());
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("no points"), std::string::npos) << e.what();
  }
}

TEST(OctreeBuild, RefusesABadPointNamingIt) {
  std::vector<Point> points(1000, Point{1.0f, 1.0f, 1.0f, 0});
  points[617].y = std::numeric_limits<float>::quiet_NaN();
  try {
    (void)Octree::build(points, cube_at_origin(2.0), small_config());
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("point 617"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos) << e.what();
  }
  points[617].y = 1.0f;
  points[12].z = 2.5f;  // outside [0, 2]
  try {
    (void)Octree::build(points, cube_at_origin(2.0), small_config());
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("point 12"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("outside"), std::string::npos) << e.what();
  }
}

TEST(OctreeBuild, ALargeInputNamesItsFirstBadPoint) {
  // More than one block of the parallel check: bad points in several blocks, the first named.
  std::vector<Point> points((std::size_t{1} << 20) * 3 + 5, Point{1.0f, 1.0f, 1.0f, 0});
  points[3'000'001].x = std::numeric_limits<float>::infinity();
  points[2'100'000].z = -0.5f;
  points[1'500'000].y = std::numeric_limits<float>::quiet_NaN();
  for (const std::size_t fixed : {std::size_t{0}, std::size_t{1'500'000}, std::size_t{2'100'000}}) {
    if (fixed != 0) points[fixed] = Point{1.0f, 1.0f, 1.0f, 0};
    const std::size_t want = fixed == 0 ? 1'500'000 : fixed == 1'500'000 ? 2'100'000 : 3'000'001;
    try {
      (void)Octree::build(points, cube_at_origin(2.0), small_config());
      FAIL() << "no exception";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("point " + std::to_string(want) + " "),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(OctreeBuild, RefusesATreeLargerThanTheReserve) {
  const Scene& scene = synth_scene(200'000, synth::Order::Scan);
  OctreeConfig c = small_config();
  const std::uint64_t need = [&] {
    const OctreeStats s = Octree::build(scene.points, scene.bounds, c).stats();
    return s.bytes_points + s.bytes_voxels + s.bytes_grids + s.bytes_nodes;
  }();
  c.memory_bytes = need - 1;
  try {
    (void)Octree::build(scene.points, scene.bounds, c);
    FAIL() << "no exception";
  } catch (const CapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("memory_bytes"), std::string::npos) << e.what();
  }
  c.memory_bytes = need / 4;  // not even the points fit: refused before voxelizing
  EXPECT_THROW((void)Octree::build(scene.points, scene.bounds, c), CapacityError);
  c.memory_bytes = need;
  EXPECT_EQ(Octree::build(scene.points, scene.bounds, c).stats().bytes_free, 0u);
}

TEST(OctreeBuild, ReportsItsTimes) {
  const Scene& scene = synth_scene(100'000, synth::Order::Scan);
  const Octree tree = Octree::build(scene.points, scene.bounds, small_config());
  const BuildStats b = tree.stats().build;
  EXPECT_EQ(b.points, 100'000u);
  EXPECT_GT(b.split_ms, 0.0);
  EXPECT_GT(b.voxelize_ms, 0.0);
  EXPECT_GE(b.total_ms, b.split_ms + b.voxelize_ms);
  EXPECT_GT(b.scratch_bytes, 100'000u * 16);
  EXPECT_EQ(Octree::create(scene.bounds, small_config()).stats().build.points, 0u);
}

}  // namespace
}  // namespace simlod::test
