// One batch, from the uploaded points to the last pass, on an executor: the CUDA backend's
// launches (kernels/cuda_insert.cu) or the sequential host model of the tests. The executor
// provides
//   std::byte* arena();                      the arena's base address
//   void reset_batch(uint32 node_count);     zero Control from kControlBatchBegin and d_new
//   void count(const TreeView&);             the passes of kernels/passes.hpp
//   void plan(const TreeView&, uint32 list_bound);
//   void split(const TreeView&, uint32 list_bound, uint32 split_bound);
//   void next_round(const TreeView&);
//   void sample(const TreeView&);
//   void allocate(const TreeView&, uint32 list_bound);
//   void insert(const TreeView&);
//   Control read_control();                  waits for the passes so far
// and runs them in order. The host waits three times per batch at most: for the capacity
// check after round 1, for the end of expansion (rounds are queued kSpeculativeRounds at a
// time; rounds after the last split do nothing), and (the caller) for the final counters.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/arena_layout.hpp"
#include "kernels/capacity.hpp"
#include "kernels/tree_view.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail {

inline std::uint32_t clamp_u32(std::uint64_t v) {
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, kNil));
}

/// Inserts the `points` points at base.d_batch into the tree of `node_count` nodes. Returns the
/// expand rounds. Throws CapacityError (from the check after round 1, before anything of the
/// tree changed) when the batch may not fit.
template <class Exec>
std::uint32_t run_batch(Exec& exec, const TreeView& base, const ArenaLayout& layout,
                        std::uint32_t node_count, std::uint32_t points) {
  TreeView v = base;
  v.batch_points = points;
  v.spill_points = 0;
  v.walk_all_from = 0;
  v.node_limit = v.grid_limit = v.chunk_limit = v.spill_limit = v.backlog_limit = 0;
  v.split_limit = 0;

  // Round 1 counts and plans; the tree is untouched until the check has passed.
  exec.reset_batch(node_count);
  exec.count(v);
  exec.plan(v, node_count);
  const Control before = exec.read_control();
  const TreeCounters tree{before.node_count, before.grid_count, before.chunk_top, before.pool_size};
  const BatchReservation r = reserve_batch(before.plan, tree, layout, v.params, points);

  v.node_limit = clamp_u32(tree.node_count + r.nodes);
  v.grid_limit = clamp_u32(tree.grid_count + r.grids);
  v.chunk_limit = clamp_u32(tree.chunk_top + r.fresh_chunks);
  v.spill_limit = clamp_u32(r.spill);
  v.backlog_limit = clamp_u32(r.backlog);
  v.split_limit = layout.max_splits;
  v.d_spill = reinterpret_cast<Point*>(exec.arena() + r.spill_at);
  v.d_spill_slots = reinterpret_cast<uint2*>(exec.arena() + r.spill_slots_at);
  v.d_backlog = reinterpret_cast<VoxelRecord*>(exec.arena() + r.backlog_at);

  std::uint32_t rounds = 1;
  if (before.plan.splits > 0) {
    // Only round 1 splits leaves that store points, so the spill buffer is complete after it.
    const std::uint32_t list_bound = v.node_limit;  // nodes after the most splits granted
    const std::uint32_t split_bound = clamp_u32(std::min<std::uint64_t>(r.grids, kMaxSplitBlocks));
    exec.split(v, node_count, clamp_u32(before.plan.splits));
    v.spill_points = clamp_u32(before.plan.spill);
    v.walk_all_from = points;  // the spill points walk for the first time in round 2
    for (;;) {
      for (int k = 0; k < kSpeculativeRounds; ++k) {
        exec.next_round(v);
        exec.count(v);
        v.walk_all_from = v.points();
        exec.split(v, list_bound, split_bound);
      }
      const Control c = exec.read_control();
      if (c.expand_done != 0 || c.round_splits == 0) {
        rounds = 1 + c.extra_rounds;
        node_count = c.node_count;
        break;
      }
    }
  }
  exec.sample(v);
  exec.allocate(v, node_count);
  exec.insert(v);
  return rounds;
}

}  // namespace simlod::detail
