// Capacity check of the CUDA backend (host side; the sums come from the plan kernel).
#include "kernels/capacity.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/tuning.hpp"
#include "simlod/error.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {
namespace {

std::uint64_t align_up(std::uint64_t v) {
  return (v + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
}

}  // namespace

std::uint64_t arena_gap(const ArenaLayout& layout, const TreeCounters& tree) {
  const std::uint64_t low = layout.dynamic_begin + tree.chunk_top * layout.chunk_bytes;
  const std::uint64_t high = layout.dynamic_end - tree.grid_count * layout.grid_bytes;
  return high > low ? high - low : 0;
}

BatchReservation reserve_batch(const PlanSums& plan, const TreeCounters& tree,
                               const ArenaLayout& layout, const PlanParams& params,
                               std::uint64_t points) {
  BatchReservation r;
  r.grids = plan.grids;
  r.nodes = 8 * plan.grids;
  // Inner nodes that can receive voxels: ancestors of reached leaves (at most one per level of
  // each leaf, at most all inner nodes) plus the ones this batch creates.
  const std::uint64_t voxel_nodes =
      std::min(plan.voxels, std::min(tree.grid_count, plan.level_sum) + plan.grids);
  r.chunks = plan.point_chunks + plan.voxels / params.chunk_capacity + voxel_nodes;
  const std::uint64_t reusable = tree.pool_size + plan.freed_chunks;
  r.fresh_chunks = r.chunks > reusable ? r.chunks - reusable : 0;
  r.spill = plan.spill;
  r.backlog = plan.voxels;
  r.gap = arena_gap(layout, tree);

  auto refuse = [&](const std::string& why) {
    throw CapacityError(fmt::format(
        "a batch of {} points does not fit into the octree's device memory reserve: {}; the "
        "batch was not inserted (insert smaller batches, or raise memory_bytes or "
        "memory_fraction)",
        points, why));
  };
  constexpr std::uint64_t kIdLimit = kNil - 1;
  if (plan.max_total >= kIdLimit) {
    refuse(fmt::format("a leaf at the depth limit would hold {} points, more than {}",
                       plan.max_total, kIdLimit));
  }
  if (points + plan.spill >= kIdLimit) {
    refuse(
        fmt::format("with the {} points of the leaves it splits it would move {} points, "
                    "more than {}",
                    plan.spill, points + plan.spill, kIdLimit));
  }
  if (points + plan.spill + plan.voxels >= kIdLimit) {
    refuse(fmt::format("it may write up to {} points and voxels in one pass, more than {}",
                       points + plan.spill + plan.voxels, kIdLimit));
  }
  if (tree.node_count + r.nodes > layout.max_nodes) {
    refuse(
        fmt::format("it may create up to {} nodes but the node table has room for {} more "
                    "(of {})",
                    r.nodes, layout.max_nodes - tree.node_count, layout.max_nodes));
  }
  if (tree.chunk_top + r.fresh_chunks > layout.max_chunks) {
    refuse(fmt::format("it may need up to {} new chunks but only {} more chunk ids exist",
                       r.fresh_chunks, layout.max_chunks - tree.chunk_top));
  }

  // Chunks grow up from the current top, grids down from the current bottom; the scratch sits
  // between the two reservations and is dropped when the batch ends.
  const std::uint64_t gap_begin = layout.dynamic_begin + tree.chunk_top * layout.chunk_bytes;
  r.spill_at = align_up(gap_begin + r.fresh_chunks * layout.chunk_bytes);
  r.spill_slots_at = align_up(r.spill_at + r.spill * sizeof(Point));
  r.backlog_at = align_up(r.spill_slots_at + r.spill * 8);
  const std::uint64_t scratch_end = r.backlog_at + r.backlog * sizeof(VoxelRecord);
  r.bytes = (scratch_end - gap_begin) + r.grids * layout.grid_bytes;
  if (r.bytes > r.gap) {
    refuse(fmt::format(
        "it may need up to {} bytes ({} occupancy grids of {} bytes, {} new chunks of {} bytes "
        "beyond {} reusable pooled chunks, {} bytes of scratch for {} spilled points and {} "
        "voxels) but only {} of the {} reserved bytes are free",
        r.bytes, r.grids, layout.grid_bytes, r.fresh_chunks, layout.chunk_bytes, reusable,
        scratch_end - r.spill_at, r.spill, r.backlog, r.gap, layout.total_bytes));
  }
  return r;
}

}  // namespace simlod::detail
