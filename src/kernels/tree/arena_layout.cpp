// Arena layout arithmetic of the CUDA backend (host only, so that it is testable without a GPU).
#include "kernels/tree/arena_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/tree/device_layout.hpp"
#include "kernels/tuning.hpp"
#include "simlod/detail/channels.hpp"
#include "simlod/error.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {
namespace {

std::uint64_t align_up(std::uint64_t v) {
  return (v + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
}

// Ids are uint32 with kNil reserved.
constexpr std::uint64_t kMaxIds = kNil - 1;

}  // namespace

std::uint64_t chunk_bytes_for(std::uint32_t chunk_capacity, std::uint32_t record_bytes) {
  const std::uint64_t records = std::uint64_t{chunk_capacity} * record_bytes;
  return std::uint64_t{chunk_capacity} * sizeof(Point) + 16 + (records + 15) / 16 * 16;
}

std::uint64_t grid_bytes_for(std::uint32_t grid_bits) {
  const std::uint64_t bytes = (std::uint64_t{1} << (3 * grid_bits)) / 8;
  return std::max<std::uint64_t>(32, (bytes + 31) / 32 * 32);
}

std::uint64_t scratch_budget(std::uint64_t max_nodes, std::uint64_t max_splits,
                             std::uint64_t max_batch, std::uint32_t record_bytes) {
  constexpr std::uint64_t kRegions = 8;
  return max_nodes * 4 * 4 + max_splits * (4 + sizeof(SplitEntry)) +
         max_batch * (sizeof(Point) + 8 + record_bytes) + kRegions * kArenaAlign;
}

namespace {

/// The parts of a layout that depend on the configuration alone: chunks, their samples,
/// occupancy pages.
ArenaLayout chunk_layouts(const OctreeConfig& config, const OctreeGeometry& geometry) {
  ArenaLayout a;
  a.chunk_capacity = config.chunk_capacity;
  a.channels = config.channels;
  a.record_bytes = channel_layout(config.channels).record_bytes;
  a.points = point_layout(config.chunk_capacity, a.record_bytes,
                          config.point_encoding == PointEncoding::Quantized16);
  a.chunk_bytes = chunk_bytes_for(config.chunk_capacity, a.record_bytes);
  a.voxels = voxel_layout(std::uint64_t{config.chunk_capacity} * (sizeof(Point) + a.record_bytes),
                          a.record_bytes, geometry.grid_bits);
  // Pages of bricks in the bytes a CPU chunk has, as many bricks as the CPU store's pages hold.
  a.occupancy = occupancy_layout(
      geometry.grid_bits, std::uint64_t{config.chunk_capacity} * (sizeof(Point) + a.record_bytes));
  a.dense_grid_bytes = grid_bytes_for(geometry.grid_bits);
  return a;
}

}  // namespace

ArenaLayout plan_compact_arena(const OctreeConfig& config, const OctreeGeometry& geometry,
                               std::uint32_t nodes, std::uint32_t chunks) {
  ArenaLayout a = chunk_layouts(config, geometry);
  a.compacted = true;
  a.max_nodes = nodes;
  a.max_chunks = chunks;
  std::uint64_t at = align_up(sizeof(Control));
  a.nodes = at;
  at = align_up(at + std::uint64_t{nodes} * sizeof(DeviceNode));
  a.links = at;
  at = align_up(at + std::uint64_t{nodes} * sizeof(NodeLink));
  a.pool = at;
  a.dynamic_begin = at;
  a.total_bytes = align_up(at + std::uint64_t{chunks} * a.chunk_bytes);
  a.dynamic_end = a.total_bytes;
  if (config.memory_bytes != 0 && a.total_bytes > config.memory_bytes) {
    throw CapacityError(fmt::format(
        "compact: the tree in chunks of {} samples takes {} bytes, more than memory_bytes = {}; "
        "the octree is unchanged",
        config.chunk_capacity, a.total_bytes, config.memory_bytes));
  }
  return a;
}

ArenaLayout plan_arena(std::uint64_t reserve_bytes, const OctreeConfig& config,
                       const OctreeGeometry& geometry) {
  ArenaLayout a = chunk_layouts(config, geometry);
  a.max_batch = config.max_batch_points;

  // Every split costs a grid (a slot table and bricks), 8 nodes and a split-table entry. The
  // node table (with its share of the builder's scratch) holds as many splits as dense grids
  // would fit, capped for tiny grids: a tree splits far less often than that (a split takes a
  // leaf of more than max_points_per_leaf points), and the fixed tables stay near 0.2% of
  // the reserve.
  const std::uint64_t per_split = a.dense_grid_bytes + 8 * kNodeTableBytes + sizeof(SplitEntry);
  const std::uint64_t by_memory = 1 + 8 * (reserve_bytes / per_split);
  const auto by_share =
      static_cast<std::uint64_t>(kMaxNodeTableShare * static_cast<double>(reserve_bytes)) /
      kNodeTableBytes;
  const std::uint64_t nodes =
      std::max<std::uint64_t>(1, std::min({by_memory, by_share, kMaxIds / 8 * 8 + 1}));
  a.max_nodes = static_cast<std::uint32_t>(nodes);
  a.max_splits = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (nodes - 1) / 8));
  // Slots address bricks in 64-byte units from the first chunk: below kClaimingSlot.
  const std::uint64_t by_units = std::uint64_t{kClaimingSlot} * kBrickBytes / a.chunk_bytes - 1;
  a.max_chunks =
      static_cast<std::uint32_t>(std::min({kMaxIds, reserve_bytes / a.chunk_bytes, by_units}));
  a.scratch_bytes = scratch_budget(a.max_nodes, a.max_splits, a.max_batch, a.record_bytes);
  a.total_bytes = reserve_bytes > a.scratch_bytes
                      ? (reserve_bytes - a.scratch_bytes) / kArenaAlign * kArenaAlign
                      : 0;

  std::uint64_t at = align_up(sizeof(Control));
  auto region = [&](std::uint64_t& offset, std::uint64_t bytes) {
    offset = at;
    at = align_up(at + bytes);
  };
  region(a.nodes, nodes * sizeof(DeviceNode));
  region(a.links, nodes * sizeof(NodeLink));
  region(a.pool, std::uint64_t{a.max_chunks} * 4);
  a.dynamic_begin = at;
  a.dynamic_end = a.total_bytes;
  if (a.dynamic_begin >= a.dynamic_end) {
    throw CapacityError(fmt::format(
        "a device memory reserve of {} bytes cannot hold the octree's fixed tables ({} bytes: "
        "{} nodes, a pool of {} chunks, and {} bytes of builder scratch with buffers for "
        "batches of {} points); raise memory_bytes or lower max_batch_points",
        reserve_bytes, a.dynamic_begin + a.scratch_bytes, a.max_nodes, a.max_chunks,
        a.scratch_bytes, a.max_batch));
  }
  return a;
}

}  // namespace simlod::detail::cuda
