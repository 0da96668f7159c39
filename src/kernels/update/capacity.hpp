// The capacity check of the CUDA backend: a batch's memory is granted from what it really
// needs, in two steps, and a batch either goes in completely or leaves the tree as it was.
//
// 1. After round 1 of expand has counted (the tree is untouched), the plan sums over the
//    reached leaves give exactly which leaves split in round 1, the points they store (the
//    spill buffer) and their chunks (they go to the pool). The expansion is granted those
//    splits plus headroom for the splits of later rounds (only new children split there, and
//    what they need is unknown until they are counted). The spill buffer is placed right below
//    the granted grids, at the top of the free gap.
// 2. After the last round (no leaf splits any more) the plan sums are reduced again: the chunks
//    that receive points are exact, the voxels a batch can emit are bounded by one per point
//    and inner ancestor (and by the cells of all inner nodes), the occupancy bricks it claims
//    by one per voxel. Fresh chunks (with the pages of bricks) and the voxel backlog are
//    placed at the bottom of the gap, below the spill buffer.
// When the speculative rounds run out of granted grids, nodes or split entries (Control::need),
// or step 2 does not fit, the expansion is rolled back (kernels/update/batch_driver.hpp): the split
// leaves get their chunk lists back and the tree counters their old values. A batch that does
// not fit even with all the headroom the gap has is refused with CapacityError; the facade
// then inserts it in smaller pieces (core/octree.cpp).
// A node receiving m samples needs at most floor(m / capacity) + 1 new chunks.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/tree/arena_layout.hpp"
#include "kernels/tree/device_layout.hpp"
#include "simlod/detail/hd.hpp"

namespace simlod::detail::cuda {

/// Parameters of the plan (from config and geometry), trivially copyable for kernels.
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

/// Adds one reached leaf (level, `stored` points in `chunks` chunks, `counted` new points) to
/// the sums. Used by the plan kernel and by host tests.
SIMLOD_HD void plan_leaf(PlanSums& s, const PlanParams& p, std::uint32_t level,
                         std::uint64_t stored, std::uint64_t chunks, std::uint64_t counted) {
  const std::uint64_t total = stored + counted;
  s.leaves += 1;
  s.max_total = total > s.max_total ? total : s.max_total;
  if (total <= p.max_points_per_leaf || level >= p.max_depth) {
    s.counted += counted;
    s.voxels += counted * level;  // one per inner ancestor at most
    s.point_chunks += chunks_for(total, p.chunk_capacity) - chunks_for(stored, p.chunk_capacity);
    s.point_nodes += 1;
    return;
  }
  s.splits += 1;
  s.spill += stored;
  s.freed_chunks += chunks;
}

/// Device counters of the tree that the check needs.
struct TreeCounters {
  std::uint64_t node_count = 0, grid_count = 0, chunk_top = 0, pool_size = 0;
};

/// Step 1: what the expansion may take, and where the spill buffer lies (byte offsets).
struct ExpandGrant {
  std::uint64_t grids = 0;  ///< splits (grids) the whole expansion may make
  std::uint64_t nodes = 0;  ///< nodes it may create (8 per split)
  std::uint64_t spill = 0;  ///< spill buffer entries (exact)
  std::uint64_t spill_at = 0, spill_slots_at = 0;
  std::uint64_t spill_records_at = 0;  ///< the spill points' channel records (with channels)
  /// Lowest byte the batch uses at the top of the gap (= spill_at): grids and spill lie above.
  std::uint64_t ceiling = 0;
};

/// Step 2: the chunks the batch may hand out and where the voxel backlog lies.
struct InsertGrant {
  std::uint64_t chunks = 0;        ///< chunks of samples it may need (pool and arena)
  std::uint64_t brick_chunks = 0;  ///< pages of occupancy bricks it may open (arena only)
  std::uint64_t fresh_chunks = 0;  ///< chunks from the arena: samples' beyond the pool, pages
  std::uint64_t backlog = 0;       ///< voxel backlog entries
  std::uint64_t backlog_at = 0;
  std::uint64_t backlog_sources_at = 0;  ///< per voxel its source point (with channels)
  std::uint64_t floor = 0;               ///< end of the backlog: the batch uses the gap below it
};

/// Step 1 from the round-1 sums: round-1 splits plus up to `headroom` more, as far as the gap,
/// the node table and the split table allow. Throws CapacityError when round 1 alone does not
/// fit. `points` = batch size.
[[nodiscard]] ExpandGrant grant_expansion(const PlanSums& round1, const TreeCounters& tree,
                                          const ArenaLayout& layout, std::uint64_t points,
                                          std::uint64_t headroom);

/// Step 2 from the sums after the last round; `after` = the counters then (node and grid
/// counts of the grown tree, the pool with the chunks the splits freed), `tree` = before the
/// batch. Throws CapacityError when it does not fit below `expand.ceiling`.
[[nodiscard]] InsertGrant grant_insert(const PlanSums& last, const TreeCounters& tree,
                                       const TreeCounters& after, const ExpandGrant& expand,
                                       const ArenaLayout& layout, const PlanParams& params,
                                       std::uint64_t points);

/// Throws the CapacityError of a refused batch of `points` points, saying `why`.
[[noreturn]] void refuse(std::uint64_t points, const std::string& why);

/// Free arena bytes between the chunks and the grids.
[[nodiscard]] std::uint64_t arena_gap(const ArenaLayout& layout, const TreeCounters& tree);

}  // namespace simlod::detail::cuda
