// One batch, from the uploaded points to the last pass, on an executor: the CUDA backend's
// launches (kernels/update/insert.cu) or the sequential host model of the tests. The executor
// provides
//   std::byte* arena();                      the arena's base address
//   void reset_batch(uint32 node_count);     zero Control from kControlBatchBegin and d_new
//   void count(const BatchView&);            the passes of kernels/update/passes.hpp
//   void plan(const BatchView&, uint32 list_bound, bool last);
//   void zero_last();                        zero Control::last (before a repeated last plan)
//   void split(const BatchView&, uint32 list_bound, uint32 split_bound);
//   void next_round(const BatchView&);
//   void sample(const BatchView&);
//   void allocate(const BatchView&, uint32 list_bound);
//   void insert(const BatchView&);
//   IndexView reserve_index(uint64 entries, uint64 size);  room in the voxel index (holding
//                                            `size`) for `entries` in all: the view as grown;
//                                            throws CapacityError
//   IndexView reserve_classes(const BatchView&, uint32 depth);  room in Average's class counts
//                                            for every pair the pass may add (its points x the
//                                            tree's depth): the view as grown; throws
//                                            CapacityError
//   void fold(const BatchView&, uint32 old_grids);  the fold pass (filtered colours)
//   void rollback(const BatchView&, uint32 old_nodes, uint32 split_bound, const Control& old);
//                                            restore split leaves, then the whole Control
//   void map(uint64 low_end, uint64 high_begin);  back arena bytes [0, low_end) and
//                                            [high_begin, total) with memory; throws
//                                            CapacityError when the device has no more
//   Control read_control();                  waits for the passes so far
// and runs them in order. The host waits three times per batch at most: for the capacity
// check after round 1, for the end of expansion (rounds are queued kSpeculativeRounds at a
// time; rounds after the last split do nothing), and (the caller) for the final counters.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/fault_injection.hpp"
#include "kernels/tree/arena_layout.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/batch_view.hpp"
#include "kernels/update/capacity.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {

inline std::uint32_t clamp_u32(std::uint64_t v) {
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, kNil));
}

/// How far into the arena's gap a batch reached: everything below `low_end` and from
/// `high_begin` on was granted to it (chunks and backlog; grids and spill).
struct BatchExtent {
  std::uint64_t low_end = 0, high_begin = 0;
};

/// Inserts the `points` points at base.d_batch into the tree whose counters are `old` (as
/// after the last batch). Returns the expand rounds. All or nothing: throws CapacityError
/// (from a check, with the tree as before the batch, rolled back where the expansion had
/// begun) when the batch does not fit. `headroom` = grids granted to the expand rounds after
/// round 1 beyond round 1's splits; doubled (and kept for later batches) when the rounds ran
/// out of it, which costs a rollback and a second try of the batch. `extent` (optional)
/// receives how far the batch reached once its last pass is queued.
template <class Exec>
std::uint32_t run_batch(Exec& exec, const BatchView& base, const ArenaLayout& layout,
                        const Control& old, std::uint32_t points, std::uint64_t& headroom,
                        BatchExtent* extent = nullptr) {
  const std::uint32_t old_nodes = old.node_count;
  for (;;) {
    BatchView v = base;
    v.batch_points = points;
    v.spill_points = 0;
    v.walk_all_from = 0;
    v.node_limit = v.grid_limit = v.chunk_limit = v.spill_limit = v.backlog_limit = 0;
    v.split_limit = 0;

    // Round 1 counts and plans; the tree is untouched until the check has passed.
    exec.reset_batch(old_nodes);
    exec.count(v);
    fault_point("count");
    exec.plan(v, old_nodes, false);
    fault_point("plan");
    const Control before = exec.read_control();
    const TreeCounters tree{before.node_count, before.grid_count, before.chunk_top,
                            before.pool_size};
    const bool splits = before.plan.splits > 0;
    const ExpandGrant eg =
        grant_expansion(before.plan, tree, layout, points, splits ? headroom : 0);
    exec.map(0, eg.ceiling);

    v.node_limit = clamp_u32(tree.node_count + eg.nodes);
    v.grid_limit = clamp_u32(tree.grid_count + eg.grids);
    v.spill_limit = clamp_u32(eg.spill);
    v.split_limit = clamp_u32(eg.grids);
    v.d_spill = reinterpret_cast<Point*>(exec.arena() + eg.spill_at);
    v.d_spill_slots = reinterpret_cast<uint2*>(exec.arena() + eg.spill_slots_at);
    v.d_spill_records = v.record_bytes != 0 ? exec.arena() + eg.spill_records_at : nullptr;

    std::uint32_t rounds = 1;
    Control after = before;
    const std::uint32_t split_bound = clamp_u32(std::min<std::uint64_t>(eg.grids, kMaxSplitBlocks));
    if (splits) {
      // Only round 1 splits leaves that store points, so the spill buffer is complete after it.
      const std::uint32_t list_bound = v.node_limit;  // nodes after the most splits granted
      exec.split(v, old_nodes, clamp_u32(before.plan.splits));
      fault_point("split");
      v.spill_points = clamp_u32(before.plan.spill);
      v.walk_all_from = points;  // the spill points walk for the first time in round 2
      for (bool first = true;; first = false) {
        for (int k = 0; k < kSpeculativeRounds; ++k) {
          exec.next_round(v);
          exec.count(v);
          v.walk_all_from = v.points();
          exec.split(v, list_bound, split_bound);
        }
        if (!first) exec.zero_last();  // the sums of the final leaves, if this was the last round
        exec.plan(v, list_bound, true);
        fault_point("expand rounds");
        after = exec.read_control();
        if (after.expand_done != 0 || after.round_splits == 0) break;
      }
      if (after.need != 0) {
        exec.rollback(v, old_nodes, split_bound, old);
        if (eg.grids < before.plan.splits + headroom) {  // the gap or a table was the limit
          refuse(points, "its expansion needs more than the " + std::to_string(eg.grids) +
                             " occupancy grids that fit");
        }
        headroom = 2 * (headroom + before.plan.splits);
        continue;
      }
      rounds = 1 + after.extra_rounds;
    }
    const TreeCounters grown{after.node_count, after.grid_count, after.chunk_top, after.pool_size};
    const PlanSums& last = splits ? after.last : after.plan;  // no splits: round 1 was the last
    InsertGrant ig;
    try {
      ig = grant_insert(last, tree, grown, eg, layout, v.params, points);
      exec.map(ig.floor, eg.ceiling);
      // Every voxel has an entry: the index needs room for the batch's bound of new voxels.
      v.index = exec.reserve_index(old.voxels + ig.backlog, old.voxels);
      // Average's class counts grow here, where the batch can still be refused.
      v.index = exec.reserve_classes(v, after.depth);
    } catch (const CapacityError&) {
      if (splits) exec.rollback(v, old_nodes, split_bound, old);
      throw;
    }
    v.chunk_limit = clamp_u32(tree.chunk_top + ig.fresh_chunks);
    v.backlog_limit = clamp_u32(ig.backlog);
    v.d_backlog = reinterpret_cast<VoxelRecord*>(exec.arena() + ig.backlog_at);
    v.d_backlog_sources =
        v.record_bytes != 0 ? reinterpret_cast<std::uint32_t*>(exec.arena() + ig.backlog_sources_at)
                            : nullptr;
    exec.sample(v);
    fault_point("sample");
    exec.allocate(v, after.node_count);
    fault_point("allocate");
    exec.insert(v);
    fault_point("insert");
    exec.fold(v, old.grid_count);
    if (extent != nullptr) *extent = BatchExtent{ig.floor, eg.ceiling};
    return rounds;
  }
}

}  // namespace simlod::detail::cuda
