// Working state of the CPU bulk builder (core/cpu/bulk/bulk.hpp), internal to core/cpu/bulk/.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cpu/tree/store.hpp"
#include "core/fill_vector.hpp"
#include "core/thread_pool.hpp"
#include "simlod/detail/octree_math.hpp"

namespace simlod::detail::cpu::bulk {

/// A voxel while the tree is voxelized: its cell in its node's grid, its colour and, with
/// attribute channels, the input point whose colour (and record) it took.
struct CellSample {
  std::uint32_t cell;
  std::uint32_t rgba;
  std::uint32_t source = 0;
};

/// The points in Morton order and the node ranges over them.
struct SortedPoints {
  FillVector<std::uint32_t> order;   ///< input index of sorted point i
  FillVector<QuantPoint> q;          ///< quantised sorted point i
  std::vector<std::uint64_t> begin;  ///< per node: first sorted point; range ends at end[i]
  std::vector<std::uint64_t> end;
  /// First node id of each level (breadth-first ids group levels), and one past the last.
  std::vector<std::uint32_t> level_begin;
};

/// Sorts `points` by Morton code and appends the breadth-first tree to store.nodes (which holds
/// the root only). Throws std::bad_alloc.
SortedPoints split(TreeStore& store, PoolView& pool, std::span<const Point> points);

/// The voxels of every inner node in cell order (empty lists for leaves), coloured by
/// store.config.sampling; sets the bits of store.grids (one grid per inner node, acquired in id
/// order); `peak_bytes` = the most bytes its accumulators held at once. With attribute channels
/// (`records`: the input points' records, store.chunks.record_bytes() each) every voxel names
/// its source point (FirstCome, Random). Throws std::bad_alloc.
std::vector<std::vector<CellSample>> voxelize(TreeStore& store, PoolView& pool,
                                              std::span<const Point> points,
                                              std::span<const std::byte> records,
                                              const SortedPoints& sorted,
                                              std::uint64_t& peak_bytes);

}  // namespace simlod::detail::cpu::bulk
