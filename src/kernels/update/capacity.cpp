// Capacity check of the CUDA backend (host side; the sums come from the plan kernel).
#include "kernels/update/capacity.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/tuning.hpp"
#include "simlod/error.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {
namespace {

std::uint64_t align_up(std::uint64_t v) {
  return (v + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
}
std::uint64_t align_down(std::uint64_t v) { return v / kArenaAlign * kArenaAlign; }

// Ids and per-pass counts are uint32 with kNil reserved.
constexpr std::uint64_t kIdLimit = kNil - 1;

std::uint64_t low_end(const ArenaLayout& layout, const TreeCounters& tree) {
  return layout.dynamic_begin + tree.chunk_top * layout.chunk_bytes;
}

std::uint64_t grid_floor(const ArenaLayout& layout, std::uint64_t grids) {
  const std::uint64_t bytes = grids * layout.occupancy.table_bytes;
  return bytes < layout.dynamic_end ? layout.dynamic_end - bytes : 0;
}

}  // namespace

void refuse(std::uint64_t points, const std::string& why) {
  throw CapacityError(fmt::format(
      "a batch of {} points does not fit into the octree's device memory reserve: {}; the "
      "batch was not inserted (insert smaller batches, or raise memory_bytes or "
      "memory_fraction)",
      points, why));
}

std::uint64_t arena_gap(const ArenaLayout& layout, const TreeCounters& tree) {
  const std::uint64_t low = low_end(layout, tree);
  const std::uint64_t high = grid_floor(layout, tree.grid_count);
  return high > low ? high - low : 0;
}

ExpandGrant grant_expansion(const PlanSums& round1, const TreeCounters& tree,
                            const ArenaLayout& layout, std::uint64_t points,
                            std::uint64_t headroom) {
  if (round1.max_total >= kIdLimit) {
    refuse(points, fmt::format("a leaf at the depth limit would hold {} points, more than {}",
                               round1.max_total, kIdLimit));
  }
  if (points + round1.spill >= kIdLimit) {
    refuse(points,
           fmt::format("with the {} points of the leaves it splits it would move {} points, "
                       "more than {}",
                       round1.spill, points + round1.spill, kIdLimit));
  }
  const std::uint64_t low = low_end(layout, tree);
  const std::uint64_t top = grid_floor(layout, tree.grid_count);
  const std::uint64_t spill_bytes =
      round1.spill * (sizeof(Point) + 8 + layout.record_bytes) + 3 * kArenaAlign;
  const std::uint64_t fit =
      top > low + spill_bytes ? (top - low - spill_bytes) / layout.occupancy.table_bytes : 0;
  const std::uint64_t grids_left =
      layout.max_splits > tree.grid_count ? layout.max_splits - tree.grid_count : 0;
  const std::uint64_t nodes_left =
      layout.max_nodes > tree.node_count ? (layout.max_nodes - tree.node_count) / 8 : 0;
  const std::uint64_t grids = std::min({round1.splits + headroom, grids_left, nodes_left, fit});
  if (grids < round1.splits || top < low + spill_bytes) {
    refuse(
        points,
        fmt::format("its first expand round splits {} leaves (grids of {} bytes; {} more fit "
                    "into the node table, {} into the {} free bytes beside a spill buffer of "
                    "{} bytes for their {} points)",
                    round1.splits, layout.occupancy.table_bytes, std::min(grids_left, nodes_left),
                    fit, arena_gap(layout, tree), spill_bytes, round1.spill));
  }
  ExpandGrant g;
  g.grids = grids;
  g.nodes = 8 * grids;
  g.spill = round1.spill;
  const std::uint64_t floor = grid_floor(layout, tree.grid_count + grids);
  g.spill_slots_at = align_down(floor - g.spill * 8);
  g.spill_records_at = align_down(g.spill_slots_at - g.spill * layout.record_bytes);
  g.spill_at = align_down(g.spill_records_at - g.spill * sizeof(Point));
  g.ceiling = g.spill_at;
  return g;
}

InsertGrant grant_insert(const PlanSums& last, const TreeCounters& tree, const TreeCounters& after,
                         const ExpandGrant& expand, const ArenaLayout& layout,
                         const PlanParams& params, std::uint64_t points) {
  const std::uint64_t cells = std::uint64_t{1} << (3 * params.grid_bits);
  const std::uint64_t voxels = std::min(last.voxels, after.grid_count * cells);
  const std::uint64_t voxel_nodes = std::min(voxels, after.grid_count);
  // A voxel claims at most one brick; the batch's bricks open at most ceil(bricks / per page)
  // pages, taken from the arena (never the pool).
  const std::uint64_t bricks = std::min(voxels, after.grid_count * layout.occupancy.bricks);
  InsertGrant g;
  g.chunks = last.point_chunks + voxels / layout.voxels.capacity + voxel_nodes;
  g.brick_chunks = brick_pages(bricks, layout.occupancy);
  g.fresh_chunks = (g.chunks > after.pool_size ? g.chunks - after.pool_size : 0) + g.brick_chunks;
  g.backlog = voxels;
  if (points + expand.spill + voxels >= kIdLimit) {
    refuse(points, fmt::format("it may write up to {} points and voxels in one pass, more than {}",
                               points + expand.spill + voxels, kIdLimit));
  }
  if (tree.chunk_top + g.fresh_chunks > layout.max_chunks) {
    refuse(points, fmt::format("it may need up to {} new chunks but only {} more chunk ids exist",
                               g.fresh_chunks, layout.max_chunks - tree.chunk_top));
  }
  const std::uint64_t low = low_end(layout, tree);
  g.backlog_at = align_up(low + g.fresh_chunks * layout.chunk_bytes);
  g.backlog_sources_at = align_up(g.backlog_at + g.backlog * sizeof(VoxelRecord));
  g.floor = layout.record_bytes == 0 ? g.backlog_at + g.backlog * sizeof(VoxelRecord)
                                     : g.backlog_sources_at + g.backlog * 4;
  if (g.floor > expand.ceiling) {
    refuse(points,
           fmt::format("it may need up to {} bytes ({} new chunks of {} bytes beyond {} "
                       "reusable pooled chunks, {} of them for occupancy bricks, {} bytes of "
                       "backlog for {} voxels and their sources) below its "
                       "{} occupancy grids and the spill buffer of {} points, where {} bytes "
                       "are free (of {} reserved)",
                       g.floor - low, g.fresh_chunks, layout.chunk_bytes, after.pool_size,
                       g.brick_chunks, g.floor - g.backlog_at, g.backlog,
                       after.grid_count - tree.grid_count, expand.spill,
                       expand.ceiling > low ? expand.ceiling - low : 0, layout.total_bytes));
  }
  return g;
}

}  // namespace simlod::detail::cuda
