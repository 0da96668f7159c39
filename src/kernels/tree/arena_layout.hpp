// How the CUDA backend's device memory reserve is split, and where the tree lives in its part
// (the arena, one range of device addresses):
//
//   offset 0             Control (352 B, device_layout.hpp)
//   nodes                DeviceNode[max_nodes]          32 B each
//   links                NodeLink[max_nodes]            8 B each
//   pool                 uint32[max_chunks]             chunk pool (a stack of chunk ids)
//   dynamic_begin ->     chunks, growing up (chunk c at dynamic_begin + c * chunk_bytes)
//        ...             free gap; a builder borrows part of it for the scratch of one batch
//                        whose size only the batch tells (the incremental builder's spill
//                        buffer and voxel backlog, placed after its capacity check)
//   <- dynamic_end       occupancy grids' slot tables, growing down (grid g ends at
//                        dynamic_end - g*occupancy.table_bytes); their bricks lie in chunks
//
// The rest of the reserve, `scratch_bytes`, is not the store's: it is set aside for a builder's
// fixed scratch (per node, per split entry and per batch point: kernels/update/scratch_layout.hpp
// lays it out), a separate device allocation that consumers never see. Every region starts at
// a multiple of kArenaAlign. Both parts are sized at creation, so nothing is allocated per batch.
#pragma once

#include <cstdint>

#include "core/octree_store.hpp"
#include "simlod/attributes.hpp"
#include "simlod/detail/occupancy_codec.hpp"
#include "simlod/detail/point_codec.hpp"
#include "simlod/detail/voxel_codec.hpp"

namespace simlod::detail::cuda {

struct ArenaLayout {
  std::uint64_t total_bytes = 0;    ///< size of the arena (the reserve less scratch_bytes)
  std::uint64_t scratch_bytes = 0;  ///< set aside for a builder's fixed scratch
  std::uint32_t max_nodes = 0;      ///< node table entries
  std::uint32_t max_splits = 0;     ///< split table entries (inner nodes the table can hold)
  std::uint32_t max_chunks = 0;     ///< chunk ids (and pool entries) that can exist
  std::uint32_t max_batch = 0;      ///< points per batch (sizes the builder's scratch)
  /// 16 * chunk_capacity, then with attribute channels the chunk's records (chunk_capacity *
  /// record_bytes, rounded up to 16) at points.records_offset, then 16 (trailer with the next id)
  std::uint64_t chunk_bytes = 0;
  std::uint32_t chunk_capacity = 0;
  AttributeMask channels = 0;      ///< OctreeConfig::channels
  std::uint32_t record_bytes = 0;  ///< channel record per sample (detail/channels.hpp)
  /// A leaf's chunk: chunk_capacity Points, or quantised points in the same bytes
  /// (OctreeConfig::point_encoding, detail/point_codec.hpp), as in the CPU store
  PointLayout points;
  /// An inner node's chunk: compact voxels in the chunk_capacity * (16 + record_bytes) bytes
  /// before the trailer, as in the CPU store (detail/voxel_codec.hpp)
  VoxelLayout voxels;
  /// Occupancy (detail/occupancy_codec.hpp): an inner node's slot table takes
  /// occupancy.table_bytes at the top of the arena; its bricks lie in chunks.
  OccupancyLayout occupancy;
  /// 2^(3*grid_bits) / 8, rounded up to 32 (bulk builder; whole groups of 8 words for the
  /// filters' voxel index, kernels/bulk/filter_accumulate.cuh)
  std::uint64_t dense_grid_bytes = 0;
  // Byte offsets from the start of the arena.
  std::uint64_t nodes = 0, links = 0, pool = 0;
  std::uint64_t dynamic_begin = 0;  ///< end of the fixed tables, first chunk
  std::uint64_t dynamic_end = 0;    ///< end of the arena rounded down; grids grow down from it
  /// A store that Octree::compact() made (plan_compact_arena): its chunks fill the arena up to
  /// dynamic_end, and it has no occupancy grids, bricks, pool or builder scratch.
  bool compacted = false;

  /// Bytes of the fixed tables (everything before dynamic_begin).
  [[nodiscard]] std::uint64_t fixed_bytes() const { return dynamic_begin; }
};

[[nodiscard]] std::uint64_t chunk_bytes_for(std::uint32_t chunk_capacity,
                                            std::uint32_t record_bytes = 0);
[[nodiscard]] std::uint64_t grid_bytes_for(std::uint32_t grid_bits);

/// Upper bound of a builder's fixed scratch for these tables: per node four uint32 (counts,
/// first chunk ordinal, tail before the batch, list entry), per split entry one more list
/// entry and a SplitEntry, per batch point the point, its (leaf, slot) and its channel record;
/// plus alignment.
[[nodiscard]] std::uint64_t scratch_budget(std::uint64_t max_nodes, std::uint64_t max_splits,
                                           std::uint64_t max_batch, std::uint32_t record_bytes = 0);

/// Splits a reserve of `reserve_bytes` into the arena and the builder's scratch and lays out
/// the arena, for a validated configuration. Throws CapacityError when the fixed tables do not
/// fit, saying what to change.
[[nodiscard]] ArenaLayout plan_arena(std::uint64_t reserve_bytes, const OctreeConfig& config,
                                     const OctreeGeometry& geometry);

/// The arena of a compacted store (Octree::compact()): the fixed tables for `nodes` nodes and
/// exactly `chunks` chunks of config.chunk_capacity after them, no pool, no room for grids and
/// no builder scratch. Throws CapacityError when config.memory_bytes (if set) is smaller.
[[nodiscard]] ArenaLayout plan_compact_arena(const OctreeConfig& config,
                                             const OctreeGeometry& geometry, std::uint32_t nodes,
                                             std::uint32_t chunks);

}  // namespace simlod::detail::cuda
