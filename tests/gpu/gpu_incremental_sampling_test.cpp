// Filtered voxel colours in the CUDA incremental builder: after any batching, every Random and
// Average voxel equals the CPU bulk builder's (whose colours the CPU tests check against a brute
// force), Weighted after finalize(); the voxel index is reported; a tree the CUDA bulk builder
// made takes more batches with every filter.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "core/bulk_scenes.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

OctreeConfig filtered(OctreeConfig c, Sampling mode) {
  c.sampling = mode;
  c.sampling_seed = 21;
  return c;
}

/// Inserts `s` into a CUDA octree in batches of `batch`; expects the CPU bulk build's voxels.
void expect_incremental_equals_bulk(const Scene& s, const OctreeConfig& config, std::size_t batch) {
  SCOPED_TRACE(batch);
  const NodeSnapshot want =
      Octree::build(s.points, s.bounds, on_backend(config, Backend::Cpu)).snapshot();
  const Octree gpu = build(s.bounds, on_backend(config, Backend::Cuda), s.points, batch);
  ASSERT_EQ(gpu.backend(), Backend::Cuda);
  expect_same_tree(gpu.snapshot(), want, /*colours=*/true);
  EXPECT_GT(gpu.stats().bytes_filter, 0u);
}

TEST(GpuIncrementalSampling, RandomAndAverageEqualTheBulkBuild) {
  SIMLOD_REQUIRE_GPU();
  const Scene deep = deep_cluster_scene(20'000);
  const Scene spot = one_spot_scene();
  for (const Sampling mode : {Sampling::Random, Sampling::Average}) {
    SCOPED_TRACE(static_cast<int>(mode));
    const OctreeConfig c = filtered(small_config(2000, 32, 500), mode);
    expect_incremental_equals_bulk(synth_scene(1'000'000, synth::Order::Scan), c, 100'000);
    expect_incremental_equals_bulk(random_scene(1'000'000), c, 250'000);
    expect_incremental_equals_bulk(synth_scene(1'000'000, synth::Order::Morton), c, 1'000'000);
    expect_incremental_equals_bulk(deep, filtered(small_config(50, 32, 100), mode), 997);
    expect_incremental_equals_bulk(spot, filtered(small_config(100, 8, 100), mode), 50);
  }
}

// The paper's configuration (leaves of 50,000 points, 128^3 grids) at 10^7 points.
TEST(GpuIncrementalSampling, TenMillionPointsEqualTheBulkBuild) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(10'000'000, synth::Order::Scan);
  for (const Sampling mode : {Sampling::Random, Sampling::Average}) {
    SCOPED_TRACE(static_cast<int>(mode));
    expect_incremental_equals_bulk(s, filtered(OctreeConfig{}, mode), 1'000'000);
  }
}

TEST(GpuIncrementalSampling, SanitizerSized) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(200'000, 4);
  for (const Sampling mode : {Sampling::Random, Sampling::Average}) {
    expect_incremental_equals_bulk(s, filtered(small_config(1000, 16, 200), mode), 50'000);
  }
}

// Weighted: batches write first-come colours; finalize() builds the tree of the stored points
// again with the bulk builder, which computes the weighted colours.
TEST(GpuIncrementalSampling, WeightedEqualsTheBulkBuildAfterFinalize) {
  SIMLOD_REQUIRE_GPU();
  const Scene deep = deep_cluster_scene(20'000);
  const struct {
    const Scene* scene;
    OctreeConfig config;
    std::size_t batch;
  } cases[] = {{&synth_scene(1'000'000, synth::Order::Scan), small_config(2000, 32, 500), 100'000},
               {&random_scene(1'000'000), small_config(2000, 32, 500), 300'000},
               {&deep, small_config(50, 32, 100), 997}};
  for (const auto& k : cases) {
    SCOPED_TRACE(k.batch);
    const OctreeConfig c = filtered(k.config, Sampling::Weighted);
    const NodeSnapshot want =
        Octree::build(k.scene->points, k.scene->bounds, on_backend(c, Backend::Cpu)).snapshot();
    Octree gpu = build(k.scene->bounds, on_backend(c, Backend::Cuda), k.scene->points, k.batch);
    expect_same_tree(gpu.snapshot(), want, /*colours=*/false);
    gpu.finalize();
    ASSERT_EQ(gpu.backend(), Backend::Cuda);
    expect_same_tree(gpu.snapshot(), want, /*colours=*/true);
    EXPECT_EQ(gpu.stats().points, k.scene->points.size());
    // The rebuild's own figures; the tree's build() figures stay zero (it was not bulk-built).
    const BuildStats f = gpu.stats().finalize;
    EXPECT_EQ(f.points, k.scene->points.size());
    EXPECT_GT(f.split_ms, 0.0);
    EXPECT_GT(f.voxelize_ms, 0.0);
    EXPECT_GE(f.total_ms, f.split_ms + f.voxelize_ms);
    EXPECT_GE(f.scratch_bytes, k.scene->points.size() * sizeof(Point));
    EXPECT_EQ(gpu.stats().build.points, 0u);
    // The rebuilt tree goes on taking batches.
    const std::vector<Point> more(k.scene->points.begin(), k.scene->points.begin() + 10);
    (void)gpu.insert_now(more);
    EXPECT_EQ(gpu.stats().points, k.scene->points.size() + 10);
  }
}

TEST(GpuIncrementalSampling, WeightedBuildThenUpdateEqualsBuildingEverything) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(600'000, 5);
  const std::span<const Point> all(s.points);
  const OctreeConfig c = filtered(small_config(1000, 32, 500), Sampling::Weighted);
  Octree gpu = Octree::build(all.first(200'000), s.bounds, on_backend(c, Backend::Cuda));
  insert_all(gpu, all.subspan(200'000), 100'000);
  gpu.finalize();
  expect_same_tree(gpu.snapshot(),
                   Octree::build(all, s.bounds, on_backend(c, Backend::Cpu)).snapshot(), true);
}

// A Random or Average tree the CUDA bulk builder made gets its voxel index at its first batch
// (its voxels in cell order give the entries; every stored point is folded in once).
TEST(GpuIncrementalSampling, BuildThenUpdateEqualsBuildingEverything) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(600'000, 6);
  const std::span<const Point> all(s.points);
  for (const Sampling mode : {Sampling::Random, Sampling::Average}) {
    SCOPED_TRACE(static_cast<int>(mode));
    const OctreeConfig c = filtered(small_config(1000, 32, 500), mode);
    Octree gpu = Octree::build(all.first(200'000), s.bounds, on_backend(c, Backend::Cuda));
    EXPECT_EQ(gpu.stats().bytes_filter, 0u) << "the index is made by the first batch";
    insert_all(gpu, all.subspan(200'000, 1), 1);  // one point: the index, then a tiny batch
    EXPECT_GT(gpu.stats().bytes_filter, 0u);
    insert_all(gpu, all.subspan(200'001), 100'000);
    expect_same_tree(gpu.snapshot(),
                     Octree::build(all, s.bounds, on_backend(c, Backend::Cpu)).snapshot(), true);
  }
}

}  // namespace
}  // namespace simlod::test
