// Where everything lives in the CUDA backend's one device allocation (the arena).
//
//   offset 0             Control (352 B, device_layout.hpp)
//   nodes                DeviceNode[max_nodes]          32 B each
//   links                NodeLink[max_nodes]            8 B each
//   new_counts           uint32[max_nodes]  per node: points counted / voxels emitted this batch
//   ordinal_base         uint32[max_nodes]  per node: ordinal of its first new chunk
//   old_tail             uint32[max_nodes]  per node: its tail chunk before this batch
//   touched              uint32[max_touched]  nodes that receive samples this batch
//   splits               SplitEntry[max_splits]         32 B each, splits of one round
//   pool                 uint32[max_chunks]             chunk pool (a stack of chunk ids)
//   batch                Point[max_batch]               the uploaded batch
//   batch_slots          uint2[max_batch]               per batch point: (leaf, slot in leaf)
//   dynamic_begin ->     chunks, growing up (chunk c at dynamic_begin + c * chunk_bytes)
//        ...             free gap; per-batch scratch (spill buffer, its slots, voxel backlog)
//                        is placed inside it after the capacity check
//   <- dynamic_end       occupancy grids, growing down (grid g ends at dynamic_end - g*grid_bytes)
// Every region starts at a multiple of kArenaAlign. The fixed part is sized at creation so
// that nothing is ever allocated per batch.
#pragma once

#include <cstdint>

#include "core/octree_store.hpp"

namespace simlod::detail::cuda {

struct ArenaLayout {
  std::uint64_t total_bytes = 0;  ///< size of the allocation
  std::uint32_t max_nodes = 0;    ///< node table entries
  std::uint32_t max_splits = 0;   ///< split table entries (inner nodes the table can hold)
  std::uint32_t max_touched = 0;  ///< list entries: max_nodes + max_splits
  std::uint32_t max_chunks = 0;   ///< chunk ids (and pool entries) that can exist
  std::uint32_t max_batch = 0;    ///< points per batch
  std::uint64_t chunk_bytes = 0;  ///< 16 * chunk_capacity + 16 (trailer with the next id)
  std::uint64_t grid_bytes = 0;   ///< 2^(3*grid_bits) / 8, rounded up to 16
  // Byte offsets from the start of the arena.
  std::uint64_t nodes = 0, links = 0, new_counts = 0, ordinal_base = 0, old_tail = 0;
  std::uint64_t touched = 0, splits = 0, pool = 0, batch = 0, batch_slots = 0;
  std::uint64_t dynamic_begin = 0;  ///< end of the fixed tables, first chunk
  std::uint64_t dynamic_end = 0;    ///< end of the arena rounded down; grids grow down from it

  /// Bytes of the fixed tables (everything before dynamic_begin).
  [[nodiscard]] std::uint64_t fixed_bytes() const { return dynamic_begin; }
};

[[nodiscard]] std::uint64_t chunk_bytes_for(std::uint32_t chunk_capacity);
[[nodiscard]] std::uint64_t grid_bytes_for(std::uint32_t grid_bits);

/// Lays out an arena of `total_bytes` for a validated configuration. Throws CapacityError
/// when the fixed tables do not fit, saying what to change.
[[nodiscard]] ArenaLayout plan_arena(std::uint64_t total_bytes, const OctreeConfig& config,
                                     const OctreeGeometry& geometry);

}  // namespace simlod::detail::cuda
