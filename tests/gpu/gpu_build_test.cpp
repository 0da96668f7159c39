// The bulk builder on the CUDA backend: the same tree as the CPU bulk builder and as the
// incremental builders (node set, leaf points, voxel cells, statistics), with refining blocks
// (leaves below the root block's 7 levels), at the depth limit, exactly at the leaf limit, from
// a DeviceBatch, then update() on top; filtered voxel colours (Sampling::Random, Average) equal
// to the CPU's voxel by voxel (update() on top of those: gpu_incremental_sampling_test.cpp);
// and the refusals (memory, bad points).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "core/bulk_scenes.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

/// Inner nodes of `cpu` and `gpu` (the same node set) hold the same voxels in the same order.
void expect_same_voxels_in_order(const NodeSnapshot& cpu, const NodeSnapshot& gpu) {
  std::map<NodeKey, std::size_t> index;
  for (std::size_t i = 0; i < gpu.nodes.size(); ++i) index[key_of(gpu.nodes[i])] = i;
  for (const NodeSnapshot::Node& a : cpu.nodes) {
    const NodeSnapshot::Node& b = gpu.nodes[index.at(key_of(a))];
    ASSERT_EQ(a.voxels.size(), b.voxels.size()) << "level " << a.level;
    for (std::size_t i = 0; i < a.voxels.size(); ++i) {
      const Point &va = a.voxels[i], &vb = b.voxels[i];
      ASSERT_TRUE(va.x == vb.x && va.y == vb.y && va.z == vb.z && va.rgba == vb.rgba)
          << "node at level " << a.level << " (" << a.position[0] << ", " << a.position[1] << ", "
          << a.position[2] << "), voxel " << i << ": CPU (" << va.x << ", " << va.y << ", " << va.z
          << ", " << va.rgba << "), CUDA (" << vb.x << ", " << vb.y << ", " << vb.z << ", "
          << vb.rgba << ")";
    }
  }
}

/// CUDA bulk against CPU bulk (and every invariant of the CUDA tree when `invariants`).
void expect_bulk_cuda_matches_cpu(const Scene& s, const OctreeConfig& config, bool invariants) {
  const Octree cpu = Octree::build(s.points, s.bounds, on_backend(config, Backend::Cpu));
  const Octree gpu = Octree::build(s.points, s.bounds, on_backend(config, Backend::Cuda));
  ASSERT_EQ(gpu.backend(), Backend::Cuda);
  expect_same_octree(cpu, gpu);
  if (::testing::Test::HasFatalFailure() || !invariants) return;
  const OctreeStats stats = gpu.stats();
  expect_octree_invariants(gpu.snapshot(), s.points, on_backend(config, Backend::Cuda), &stats);
  EXPECT_EQ(stats.build.points, s.points.size());
  EXPECT_GT(stats.build.split_ms, 0.0);
  EXPECT_GT(stats.build.scratch_bytes, 0u);
}

/// CUDA bulk against CPU bulk with a voxel filter: the same tree, and every inner node's voxels
/// equal in order, colours included (both backends emit voxels in cell order, and the filters'
/// integer arithmetic leaves no room for a difference).
void expect_filtered_cuda_matches_cpu(const Scene& s, OctreeConfig config, Sampling mode,
                                      std::uint32_t seed = 1) {
  config.sampling = mode;
  config.sampling_seed = seed;
  const Octree cpu = Octree::build(s.points, s.bounds, on_backend(config, Backend::Cpu));
  const Octree gpu = Octree::build(s.points, s.bounds, on_backend(config, Backend::Cuda));
  ASSERT_EQ(gpu.backend(), Backend::Cuda);
  expect_same_octree(cpu, gpu);
  if (::testing::Test::HasFatalFailure()) return;
  expect_same_voxels_in_order(cpu.snapshot(), gpu.snapshot());
}

TEST(GpuBuild, SameTreeAsCpuInScanOrder) {
  SIMLOD_REQUIRE_GPU();
  expect_bulk_cuda_matches_cpu(synth_scene(1'000'000, synth::Order::Scan), small_config(), true);
}

TEST(GpuBuild, SameTreeAsCpuInMortonOrder) {
  SIMLOD_REQUIRE_GPU();
  expect_bulk_cuda_matches_cpu(synth_scene(1'000'000, synth::Order::Morton), small_config(), true);
}

TEST(GpuBuild, SameTreeAsCpuInRandomOrder) {
  SIMLOD_REQUIRE_GPU();
  expect_bulk_cuda_matches_cpu(random_scene(1'000'000), small_config(), true);
}

TEST(GpuBuild, SameTreeAsCpuWithGridsOf64And128) {
  SIMLOD_REQUIRE_GPU();
  // With these grids a leaf's octant of its parent's grid is set in shared memory.
  for (const std::uint32_t grid : {64u, 128u}) {
    SCOPED_TRACE(grid);
    expect_bulk_cuda_matches_cpu(synth_scene(1'000'000, synth::Order::Scan),
                                 small_config(2000, grid), true);
    expect_bulk_cuda_matches_cpu(synth_scene(1'000'000, synth::Order::Morton),
                                 small_config(5000, grid), true);
    expect_bulk_cuda_matches_cpu(random_scene(1'000'000), small_config(2000, grid, 300), true);
    expect_bulk_cuda_matches_cpu(deep_cluster_scene(200'000), small_config(50, grid, 64), true);
    for (const Sampling mode : {Sampling::Random, Sampling::Average, Sampling::Weighted}) {
      expect_filtered_cuda_matches_cpu(synth_scene(1'000'000, synth::Order::Scan),
                                       small_config(2000, grid), mode, 3);
    }
  }
}

// A first-come level that emits more voxels than its records' first room (its bound, at most
// half a record a point) samples again with room for all of them: the root of a uniform cube
// of points, whose eight leaves' points nearly all fall in cells of their own.
TEST(GpuBuild, FirstComeLevelBeyondItsRoomSamplesAgain) {
  SIMLOD_REQUIRE_GPU();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<Point> points(300'000);
  for (Point& p : points) p = Point{u(rng), u(rng), u(rng), static_cast<std::uint32_t>(rng())};
  const Scene s = to_octree_coordinates(std::move(points));
  const OctreeConfig c = small_config(50'000, 128, 1000);
  expect_bulk_cuda_matches_cpu(s, c, true);
  const Octree gpu = Octree::build(s.points, s.bounds, on_backend(c, Backend::Cuda));
  const NodeSnapshot snap = gpu.snapshot();
  EXPECT_GT(snap.nodes[0].voxels.size(), s.points.size() / 2);  // beyond the first room
}

// Small enough for compute-sanitizer (memcheck, racecheck on the shared octants).
TEST(GpuBuild, SanitizerSharedOctants) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(100'000, synth::Order::Scan);
  for (const std::uint32_t grid : {64u, 128u}) {
    expect_bulk_cuda_matches_cpu(s, small_config(3000, grid), true);
    expect_filtered_cuda_matches_cpu(s, small_config(3000, grid), Sampling::Average);
    expect_filtered_cuda_matches_cpu(s, small_config(3000, grid), Sampling::Weighted);
  }
}

TEST(GpuBuild, RefiningBlocksInManyRounds) {
  SIMLOD_REQUIRE_GPU();
  // A leaf limit of 50 on 10^6 points: cells over the limit far below level 7, refined in
  // several counting rounds.
  expect_bulk_cuda_matches_cpu(random_scene(1'000'000), small_config(50, 16, 64), true);
  expect_bulk_cuda_matches_cpu(deep_cluster_scene(200'000), small_config(50, 16, 64), true);
}

TEST(GpuBuild, DepthLimitAndExactLimit) {
  SIMLOD_REQUIRE_GPU();
  const OctreeConfig c = small_config(100, 8, 40);
  expect_bulk_cuda_matches_cpu(one_spot_scene(), c, true);
  EXPECT_EQ(
      Octree::build(one_spot_scene().points, one_spot_scene().bounds, on_backend(c, Backend::Cuda))
          .stats()
          .depth,
      24u);
  expect_bulk_cuda_matches_cpu(octant_scene(100), small_config(100, 8, 30), true);
  const std::vector<Point> one{{0.5f, 0.5f, 0.5f, 7u}};
  const Octree single = Octree::build(one, cube_at_origin(1.0), on_backend(c, Backend::Cuda));
  EXPECT_EQ(single.stats().nodes, 1u);
  EXPECT_EQ(single.snapshot().nodes[0].points.size(), 1u);
}

TEST(GpuBuild, TenMillionSameTreeAsIncremental) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(10'000'000);
  OctreeConfig c;
  c.backend = Backend::Cuda;
  const Octree bulk = Octree::build(s.points, s.bounds, c);
  const Octree incremental = build(s.bounds, c, s.points, 1'000'000);
  expect_same_tree(incremental.snapshot(), bulk.snapshot(), /*colours=*/false);
  const OctreeStats a = bulk.stats(), b = incremental.stats();
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.depth, b.depth);
  EXPECT_EQ(a.voxels, b.voxels);
  EXPECT_EQ(a.bytes_points, b.bytes_points);
  EXPECT_EQ(a.bytes_voxels, b.bytes_voxels);
  EXPECT_EQ(a.bytes_grids, b.bytes_grids);
  EXPECT_EQ(a.bricks, b.bricks);
}

TEST(GpuBuild, FromADeviceBatch) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(1'000'000, synth::Order::Scan);
  DeviceBatch batch(s.points.size());
  fill_device_batch(batch, s.points);
  const OctreeConfig c = on_backend(small_config(), Backend::Cuda);
  const Octree from_device = Octree::build(batch, s.bounds, c);
  EXPECT_EQ(batch.size(), s.points.size());  // left as it was
  const Octree from_host = Octree::build(s.points, s.bounds, c);
  expect_same_octree(from_host, from_device);
  // A CPU octree cannot be built from a DeviceBatch.
  EXPECT_THROW((void)Octree::build(batch, s.bounds, on_backend(c, Backend::Cpu)), InvalidInput);
}

TEST(GpuBuild, BuildThenUpdateEqualsBuildingEverything) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(2'000'000);
  const OctreeConfig c = on_backend(small_config(), Backend::Cuda);
  const std::span<const Point> all(s.points);
  Octree tree = Octree::build(all.first(800'000), s.bounds, c);
  insert_all(tree, all.subspan(800'000), 300'000);
  const Octree everything = Octree::build(all, s.bounds, on_backend(c, Backend::Cpu));
  expect_same_octree(everything, tree);
  if (HasFatalFailure()) return;
  const OctreeStats stats = tree.stats();
  expect_octree_invariants(tree.snapshot(), all, c, &stats);
}

TEST(GpuBuild, RandomSamplingEqualsCpu) {
  SIMLOD_REQUIRE_GPU();
  const Sampling r = Sampling::Random;
  expect_filtered_cuda_matches_cpu(synth_scene(1'000'000, synth::Order::Scan), small_config(), r);
  expect_filtered_cuda_matches_cpu(random_scene(1'000'000), small_config(), r, 0xC0FFEEu);
  expect_filtered_cuda_matches_cpu(deep_cluster_scene(200'000), small_config(50, 16, 64), r, 7);
  // Equal positions share a hash: the larger colour must win on both (ties in atomicMax).
  expect_filtered_cuda_matches_cpu(one_spot_scene(), small_config(100, 8, 40), r, 0);
  // The same from a DeviceBatch (no upload).
  const Scene& s = synth_scene(1'000'000, synth::Order::Morton);
  DeviceBatch batch(s.points.size());
  fill_device_batch(batch, s.points);
  OctreeConfig c = small_config();
  c.sampling = r;
  const Octree cpu = Octree::build(s.points, s.bounds, c);
  const Octree gpu = Octree::build(batch, s.bounds, on_backend(c, Backend::Cuda));
  expect_same_octree(cpu, gpu);
  if (HasFatalFailure()) return;
  expect_same_voxels_in_order(cpu.snapshot(), gpu.snapshot());
}

/// The scenes the colour sums are compared on: scan and random order, a deep cluster, one
/// spot, and the default configuration (grid 128, 50k points a leaf: cells of many points).
void expect_sums_match(Sampling mode) {
  expect_filtered_cuda_matches_cpu(synth_scene(1'000'000, synth::Order::Scan), small_config(),
                                   mode);
  expect_filtered_cuda_matches_cpu(random_scene(1'000'000), small_config(), mode);
  expect_filtered_cuda_matches_cpu(deep_cluster_scene(200'000), small_config(50, 16, 64), mode);
  expect_filtered_cuda_matches_cpu(one_spot_scene(), small_config(100, 8, 40), mode);
  expect_filtered_cuda_matches_cpu(random_scene(1'000'000), OctreeConfig{}, mode);
}

TEST(GpuBuild, AverageSamplingEqualsCpu) {
  SIMLOD_REQUIRE_GPU();
  expect_sums_match(Sampling::Average);
}

TEST(GpuBuild, WeightedSamplingEqualsCpu) {
  SIMLOD_REQUIRE_GPU();
  expect_sums_match(Sampling::Weighted);
  // The accumulators are reported, within the scratch; first-come has none.
  const Scene& s = synth_scene(1'000'000, synth::Order::Scan);
  OctreeConfig c = on_backend(small_config(), Backend::Cuda);
  EXPECT_EQ(Octree::build(s.points, s.bounds, c).stats().build.filter_bytes, 0u);
  c.sampling = Sampling::Weighted;
  const BuildStats b = Octree::build(s.points, s.bounds, c).stats().build;
  EXPECT_GT(b.filter_bytes, 0u);
  EXPECT_LE(b.filter_bytes, b.scratch_bytes);
}

// Weighted levels fold into 32-bit sums first and fold again into 64-bit ones where a sum
// wrapped: 245,000 points piled at one spot give a cell weighted sums far beyond 2^32 (over
// 137 x 255 per point and channel), every other level stays narrow.
TEST(GpuBuild, WeightedSumsBeyondThirtyTwoBits) {
  SIMLOD_REQUIRE_GPU();
  const Scene s = cluster_scene(250'000, 50, 0.0f, [](std::uint32_t i) {
    return pack_rgba(255 - i % 7, 200 + i % 50, 100 + i % 3, 255);
  });
  expect_filtered_cuda_matches_cpu(s, small_config(1000, 16, 64), Sampling::Weighted);
}

// Grids of 2^3 and 4^3 cells: a grid word holds several rows, so an inner child's cells mark
// several words of its parent's grid, and a grid is padded to 8 words (a voxel index group).
TEST(GpuBuild, FilteredVoxelsOnGridsOfTwoAndFourCells) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(100'000, synth::Order::Scan);
  for (const std::uint32_t grid : {2u, 4u}) {
    SCOPED_TRACE(grid);
    for (const Sampling mode : {Sampling::Random, Sampling::Average, Sampling::Weighted}) {
      expect_filtered_cuda_matches_cpu(s, small_config(300, grid, 64), mode);
    }
  }
}

// Nodes of 2^24 points or more keep 64-bit colour sums on the GPU (smaller ones 32-bit, which
// such a node's bright colours would wrap): 18M bright points, nearly all in one cluster.
TEST(GpuBuild, AverageOfNodesOverTwoToThe24Points) {
  SIMLOD_REQUIRE_GPU();
  const Scene s = cluster_scene(18'000'000, 1000, 0.5f, [](std::uint32_t i) {
    return pack_rgba(240 + i % 16, 250 + i % 6, 255 - i % 9, 255 - i % 3);
  });
  expect_filtered_cuda_matches_cpu(s, OctreeConfig{}, Sampling::Average);
}

TEST(GpuBuild, RefusesWhatDoesNotFitAndBadPoints) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(1'000'000, synth::Order::Scan);
  OctreeConfig c = on_backend(small_config(), Backend::Cuda);
  c.max_batch_points = 1000;                 // small scratch for the incremental builder
  c.memory_bytes = std::uint64_t{12} << 20;  // holds the tables, not the 16 MB of points
  try {
    (void)Octree::build(s.points, s.bounds, c);
    FAIL() << "no exception";
  } catch (const CapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("nothing was built"), std::string::npos) << e.what();
  }
  c.memory_bytes = 0;
  c.max_batch_points = 1u << 20;
  EXPECT_EQ(Octree::build(s.points, s.bounds, c).stats().points, s.points.size());
  std::vector<Point> bad(s.points.begin(), s.points.begin() + 1000);
  bad[321].x = std::numeric_limits<float>::infinity();
  try {
    (void)Octree::build(bad, s.bounds, c);
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("point 321"), std::string::npos) << e.what();
  }
  DeviceBatch batch(bad.size());
  fill_device_batch(batch, bad);
  EXPECT_THROW((void)Octree::build(batch, s.bounds, c), InvalidInput);
  DeviceBatch empty(16);  // no points committed
  EXPECT_THROW((void)Octree::build(empty, s.bounds, c), InvalidInput);
}

// The layout (one launch for every level) stops before a level whose nodes pass the node
// table, and the build refuses with nothing built; the same points then build with room.
TEST(GpuBuild, RefusesATreeOverItsNodeTable) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(1'000'000, synth::Order::Scan);
  OctreeConfig c = on_backend(small_config(100, 128, 500), Backend::Cuda);
  c.memory_bytes = std::uint64_t{48} << 20;  // a node table of about 1,500 nodes
  try {
    (void)Octree::build(s.points, s.bounds, c);
    FAIL() << "no exception";
  } catch (const CapacityError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("nodes or more, the node table holds"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing was built"), std::string::npos) << what;
  }
  c.memory_bytes = 0;
  EXPECT_EQ(Octree::build(s.points, s.bounds, c).stats().points, s.points.size());
}

}  // namespace
}  // namespace simlod::test
