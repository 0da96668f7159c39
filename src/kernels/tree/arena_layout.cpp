// Arena layout arithmetic of the CUDA backend (host only, so that it is testable without a GPU).
#include "kernels/tree/arena_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/tree/device_layout.hpp"
#include "kernels/tuning.hpp"
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

std::uint64_t chunk_bytes_for(std::uint32_t chunk_capacity) {
  return std::uint64_t{chunk_capacity} * sizeof(Point) + 16;
}

std::uint64_t grid_bytes_for(std::uint32_t grid_bits) {
  const std::uint64_t bytes = (std::uint64_t{1} << (3 * grid_bits)) / 8;
  return std::max<std::uint64_t>(16, (bytes + 15) / 16 * 16);
}

ArenaLayout plan_arena(std::uint64_t total_bytes, const OctreeConfig& config,
                       const OctreeGeometry& geometry) {
  ArenaLayout a;
  a.total_bytes = total_bytes;
  a.chunk_bytes = chunk_bytes_for(config.chunk_capacity);
  a.grid_bytes = grid_bytes_for(geometry.grid_bits);
  a.max_batch = config.max_batch_points;

  // Every split costs one grid, 8 nodes and a split-table entry: size the node table so that
  // grids run out first, capped for tiny grids (tuning.hpp).
  const std::uint64_t per_split = a.grid_bytes + 8 * kNodeTableBytes + sizeof(SplitEntry);
  const std::uint64_t by_memory = 1 + 8 * (total_bytes / per_split);
  const auto by_share =
      static_cast<std::uint64_t>(kMaxNodeTableShare * static_cast<double>(total_bytes)) /
      kNodeTableBytes;
  const std::uint64_t nodes =
      std::max<std::uint64_t>(1, std::min({by_memory, by_share, kMaxIds / 8 * 8 + 1}));
  a.max_nodes = static_cast<std::uint32_t>(nodes);
  a.max_splits = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (nodes - 1) / 8));
  a.max_chunks = static_cast<std::uint32_t>(std::min(kMaxIds, total_bytes / a.chunk_bytes));

  std::uint64_t at = align_up(sizeof(Control));
  auto region = [&](std::uint64_t& offset, std::uint64_t bytes) {
    offset = at;
    at = align_up(at + bytes);
  };
  region(a.nodes, nodes * sizeof(DeviceNode));
  region(a.links, nodes * sizeof(NodeLink));
  region(a.new_counts, nodes * 4);
  region(a.ordinal_base, nodes * 4);
  region(a.old_tail, nodes * 4);
  // A leaf that splits keeps its (cleared) entry and may be listed again for its voxels.
  a.max_touched = a.max_nodes + a.max_splits;
  region(a.touched, std::uint64_t{a.max_touched} * 4);
  region(a.splits, std::uint64_t{a.max_splits} * sizeof(SplitEntry));
  region(a.pool, std::uint64_t{a.max_chunks} * 4);
  region(a.batch, std::uint64_t{a.max_batch} * sizeof(Point));
  region(a.batch_slots, std::uint64_t{a.max_batch} * 8);
  a.dynamic_begin = at;
  a.dynamic_end = total_bytes / kArenaAlign * kArenaAlign;
  if (a.dynamic_begin >= a.dynamic_end) {
    throw CapacityError(fmt::format(
        "a device memory reserve of {} bytes cannot hold the octree's fixed tables ({} bytes: "
        "{} nodes, a pool of {} chunks and buffers for batches of {} points); raise "
        "memory_bytes or lower max_batch_points",
        total_bytes, a.dynamic_begin, a.max_nodes, a.max_chunks, a.max_batch));
  }
  return a;
}

}  // namespace simlod::detail::cuda
