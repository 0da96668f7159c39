// Filtered voxel colours in the CUDA incremental builder (Sampling::Random, Average): after any
// batching, every voxel equals the CPU bulk builder's (whose colours the CPU tests check against
// a brute force); the voxel index is reported; and what the CUDA incremental builder refuses
// (Weighted, and batches into a filtered tree the bulk builder made).
#include <gtest/gtest.h>

#include <cstdint>
#include <span>

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

TEST(GpuIncrementalSampling, WhatTheCudaIncrementalBuilderRefuses) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(50'000, synth::Order::Scan);
  // Weighted does not decompose per batch: CUDA refuses it, Auto takes the CPU.
  OctreeConfig c = filtered(on_backend(small_config(), Backend::Cuda), Sampling::Weighted);
  EXPECT_THROW((void)Octree::create(s.bounds, c), InvalidInput);
  c.backend = Backend::Auto;
  EXPECT_EQ(Octree::create(s.bounds, c).backend(), Backend::Cpu);
  c = filtered(on_backend(small_config(), Backend::Auto), Sampling::Average);
  EXPECT_EQ(Octree::create(s.bounds, c).backend(), Backend::Cuda);
  // A filtered tree the CUDA bulk builder made has no voxel index: batches are refused and
  // the tree stays as built.
  for (const Sampling mode : {Sampling::Random, Sampling::Average, Sampling::Weighted}) {
    Octree tree = Octree::build(s.points, s.bounds,
                                filtered(on_backend(small_config(), Backend::Cuda), mode));
    const NodeSnapshot before = tree.snapshot();
    EXPECT_THROW(tree.insert(std::span(s.points).first(10)), InvalidInput);
    EXPECT_THROW((void)tree.insert_now(std::span(s.points).first(10)), InvalidInput);
    expect_identical(before, tree.snapshot());
  }
}

}  // namespace
}  // namespace simlod::test
