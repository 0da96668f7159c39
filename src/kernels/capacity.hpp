// The capacity check of the CUDA backend: before a batch changes anything, an upper bound of
// what it can need (grids, nodes, chunks, scratch) is compared with what the arena has left.
//
// Round 1 of expand only counts (the tree is untouched), so for every leaf it reaches the
// check knows stored + counted = the points that will end up in that leaf's subtree. Then:
// - a leaf that does not split in round 1 never splits in this batch (only children of split
//   leaves are new, and its count cannot change): its chunk need is exact;
// - a leaf holding P points that splits has, k levels below it, at most min(8^k, P/(limit+1))
//   splitting descendants (each needs more than `limit` of the P points), each with at most
//   2^(3g) voxels, and all inner nodes of one level together see at most P points;
// - batch points create at most one voxel per inner node above their round-1 leaf; stored
//   points that move to the spill buffer set no new bits there (they did when inserted).
// A node receiving m samples needs at most floor(m / capacity) + 1 new chunks.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/arena_layout.hpp"
#include "kernels/device_layout.hpp"
#include "simlod/detail/hd.hpp"

namespace simlod::detail {

/// Parameters of the bound (from config and geometry), trivially copyable for kernels.
struct PlanParams {
  std::uint32_t max_points_per_leaf;
  std::uint32_t chunk_capacity;
  std::uint32_t max_depth;
  std::uint32_t grid_bits;
};

SIMLOD_HD std::uint64_t chunks_for(std::uint64_t samples, std::uint32_t capacity) {
  return (samples + capacity - 1) / capacity;
}

SIMLOD_HD std::uint64_t min_u64(std::uint64_t a, std::uint64_t b) { return a < b ? a : b; }

/// Adds one reached leaf (level, `stored` points in `chunks` chunks, `counted` new points in
/// round 1) to the sums. Used by the plan kernel and by host tests of the bound.
SIMLOD_HD void plan_leaf(PlanSums& s, const PlanParams& p, std::uint32_t level,
                         std::uint64_t stored, std::uint64_t chunks, std::uint64_t counted) {
  const std::uint64_t total = stored + counted;
  s.leaves += 1;
  s.level_sum += level;
  s.voxels += counted * level;  // one per inner ancestor at most
  s.max_total = total > s.max_total ? total : s.max_total;
  if (total <= p.max_points_per_leaf || level >= p.max_depth) {
    s.point_chunks += chunks_for(total, p.chunk_capacity) - chunks_for(stored, p.chunk_capacity);
    s.point_nodes += 1;
    return;
  }
  s.splits += 1;
  s.spill += stored;
  s.freed_chunks += chunks;
  const std::uint64_t cells = std::uint64_t{1} << (3 * p.grid_bits);
  const std::uint64_t most = total / (std::uint64_t{p.max_points_per_leaf} + 1);  // >= 1
  std::uint64_t splits = 1, voxels = min_u64(total, cells), width = 1;
  for (std::uint32_t l = level + 1; l < p.max_depth; ++l) {
    width = min_u64(width * 8, most);  // splitting nodes on this level
    splits += width;
    voxels += min_u64(total, width * cells);
  }
  const std::uint64_t leaves = min_u64(total, 1 + 7 * splits);
  s.grids += splits;
  s.voxels += voxels;
  s.point_chunks += total / p.chunk_capacity + leaves;
  s.point_nodes += leaves;
}

/// Device counters of the tree that the check needs.
struct TreeCounters {
  std::uint64_t node_count = 0, grid_count = 0, chunk_top = 0, pool_size = 0;
};

/// What the check grants a batch: limits the kernels must stay within and where the per-batch
/// scratch lies (byte offsets in the arena).
struct BatchReservation {
  std::uint64_t grids = 0;         ///< grids the batch may take
  std::uint64_t nodes = 0;         ///< nodes it may create
  std::uint64_t chunks = 0;        ///< chunks it may need (pool and arena)
  std::uint64_t fresh_chunks = 0;  ///< of them from the arena (beyond the pool)
  std::uint64_t spill = 0;         ///< spill buffer entries
  std::uint64_t backlog = 0;       ///< voxel backlog entries
  std::uint64_t bytes = 0;         ///< arena bytes needed (grids, fresh chunks, scratch)
  std::uint64_t gap = 0;           ///< arena bytes free before the batch
  std::uint64_t spill_at = 0, spill_slots_at = 0, backlog_at = 0;  ///< scratch offsets
};

/// Bounds the batch's need from the round-1 sums and places its scratch; throws CapacityError
/// (need against what is free) when it does not fit. `points` = batch size.
[[nodiscard]] BatchReservation reserve_batch(const PlanSums& plan, const TreeCounters& tree,
                                             const ArenaLayout& layout, const PlanParams& params,
                                             std::uint64_t points);

/// Free arena bytes between the chunks and the grids.
[[nodiscard]] std::uint64_t arena_gap(const ArenaLayout& layout, const TreeCounters& tree);

}  // namespace simlod::detail
