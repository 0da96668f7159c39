// CUDA against CPU: build the same octree on both backends from the same batches and compare.
//
// The contract (core/octree_store.hpp): the same nodes by (level, position), the same leaf
// flags, the same multiset of points per leaf and the same voxel cells (voxel positions are
// cell centres, so equal cells give bitwise equal positions); first-come colours may differ.
// Node-level checks live in core/octree_check.hpp (shared with the CPU tests); this adds the
// statistics both backends must agree on and the skip for machines without a device.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <span>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/backend.hpp"
#include "simlod/device_batch.hpp"
#include "simlod/octree.hpp"

/// Skips the test (with the reason) where the CUDA backend cannot run.
#define SIMLOD_REQUIRE_GPU()                                                     \
  do {                                                                           \
    if (!::simlod::cuda_compiled()) GTEST_SKIP() << "built without CUDA";        \
    if (::simlod::cuda_device_count() == 0) {                                    \
      GTEST_SKIP() << "no CUDA device: " << ::simlod::cuda_unavailable_reason(); \
    }                                                                            \
  } while (false)

namespace simlod::test {

/// Fills `batch` with `points` through its staging pieces.
inline void fill_device_batch(DeviceBatch& batch, std::span<const Point> points) {
  for (std::size_t at = 0; at < points.size();) {
    const std::span<Point> piece = batch.piece();
    ASSERT_FALSE(piece.empty());
    const std::size_t n = std::min(piece.size(), points.size() - at);
    std::copy_n(points.begin() + static_cast<std::ptrdiff_t>(at), n, piece.begin());
    batch.commit(n);
    at += n;
  }
}

inline OctreeConfig on_backend(OctreeConfig config, Backend backend) {
  config.backend = backend;
  return config;
}

/// Statistics that depend only on the algorithm and the batches, not on the executor.
inline void expect_same_stats(const OctreeStats& cpu, const OctreeStats& gpu) {
  EXPECT_EQ(cpu.nodes, gpu.nodes);
  EXPECT_EQ(cpu.leaves, gpu.leaves);
  EXPECT_EQ(cpu.inner_nodes, gpu.inner_nodes);
  EXPECT_EQ(cpu.depth, gpu.depth);
  EXPECT_EQ(cpu.points, gpu.points);
  EXPECT_EQ(cpu.voxels, gpu.voxels);
  // Both take pooled chunks first and need ceil(samples / capacity) per node.
  EXPECT_EQ(cpu.points_per_chunk, gpu.points_per_chunk);
  EXPECT_EQ(cpu.voxels_per_chunk, gpu.voxels_per_chunk);
  EXPECT_EQ(cpu.bytes_points, gpu.bytes_points);
  EXPECT_EQ(cpu.chunks_used, gpu.chunks_used);
  EXPECT_EQ(cpu.chunks_pooled, gpu.chunks_pooled);
  EXPECT_EQ(cpu.chunks_allocated, gpu.chunks_allocated);
  EXPECT_EQ(cpu.bytes_voxels, gpu.bytes_voxels);
  // The same occupied cells fall into the same bricks; pages are fresh chunks on both.
  EXPECT_EQ(cpu.bricks, gpu.bricks);
  EXPECT_EQ(cpu.chunks_bricks, gpu.chunks_bricks);
  EXPECT_EQ(cpu.bytes_grids, gpu.bytes_grids);
}

/// Snapshots and statistics of two trees built from the same batches.
inline void expect_same_octree(const Octree& cpu, const Octree& gpu) {
  expect_same_tree(cpu.snapshot(), gpu.snapshot(), /*colours=*/false);
  if (::testing::Test::HasFatalFailure()) return;
  expect_same_stats(cpu.stats(), gpu.stats());
}

/// Builds `points` in batches of `batch` on both backends and compares them; with
/// `invariants`, also checks every invariant of the CUDA tree against the input (costly:
/// a sort of points x depth cell records, so for up to a few million points).
inline void expect_cuda_matches_cpu(const Bounds& bounds, const OctreeConfig& config,
                                    std::span<const Point> points, std::size_t batch,
                                    bool invariants) {
  const Octree cpu = build(bounds, on_backend(config, Backend::Cpu), points, batch);
  const Octree gpu = build(bounds, on_backend(config, Backend::Cuda), points, batch);
  ASSERT_EQ(gpu.backend(), Backend::Cuda);
  expect_same_octree(cpu, gpu);
  if (::testing::Test::HasFatalFailure() || !invariants) return;
  const OctreeStats stats = gpu.stats();
  expect_octree_invariants(gpu.snapshot(), points, on_backend(config, Backend::Cuda), &stats);
}

}  // namespace simlod::test
