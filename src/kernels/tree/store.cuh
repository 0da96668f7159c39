// The CUDA tree store: one device address range (the arena, kernels/tree/arena_layout.hpp,
// backed with memory as the tree grows: kernels/common/device_arena.cuh) holding the node
// tables, chunks, the chunk pool and occupancy grids; the counters of the last completed
// batch; the stream the builders run on and a ready event recorded after each batch, which
// consumers on other streams wait for.
//
// Views: `writer` (kernels/tree/tree_view.hpp) is what a builder's passes receive, beside its
// own scratch (the incremental builder's: kernels/update/scratch_layout.hpp, a separate
// allocation budgeted in ArenaLayout::scratch_bytes); read() gives consumers (renderer,
// snapshot, node reader) the tree's pointers and counts.
//
// Room for per-point attribute channels: as on the CPU (core/cpu/tree/store.hpp), a channel
// will be an array parallel to the chunk region, element (chunk, slot) beside sample
// (chunk, slot), so the insert pass writes it at the slot it writes the point.
#pragma once

#include <cstdint>

#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/device_arena.cuh"
#include "kernels/entry.hpp"
#include "kernels/tree/arena_layout.hpp"
#include "kernels/tree/tree_view.hpp"
#include "kernels/update/voxel_index.cuh"

namespace simlod::detail::cuda {

/// What consumers see of the store: trivially copyable device pointers and counts of the last
/// completed batch.
struct ReadView {
  const TreeView* tree = nullptr;  ///< pointers and parameters
  std::uint32_t node_count = 0;
  std::uint32_t chunk_top = 0;  ///< chunks handed out from the arena (pooled included)
};

struct HostTreeCopy;  // kernels/tree/host_tree.hpp

struct TreeStore {
  TreeStore(const OctreeConfig& config, const OctreeGeometry& geometry);
  /// An empty tree in an arena laid out as `layout` (plan_compact_arena()), all of it backed.
  TreeStore(const OctreeConfig& config, const OctreeGeometry& geometry, const ArenaLayout& layout);

  [[nodiscard]] ReadView read() const { return {&writer, control.node_count, control.chunk_top}; }
  [[nodiscard]] cudaStream_t stream_handle() const { return stream.get(); }

  OctreeConfig config;
  OctreeGeometry geometry;
  ArenaLayout layout;
  DeviceArena arena;          ///< address range of layout.total_bytes, backed as the tree grows
  PinnedMemory control_host;  ///< one Control, target of counter read-backs
  StreamHandle stream;
  EventHandle ready;     ///< recorded on `stream` when a batch completed
  EventHandle external;  ///< recorded on an application's stream (order_after)
  TreeView writer;       ///< pointers and parameters
  Control control{};     ///< counters after the last completed batch
  std::uint64_t points = 0;
  /// Filter accumulators of the voxels (Sampling::Random, Average), in device memory of their
  /// own; empty otherwise.
  VoxelIndexStore index;
  /// Sampling::Weighted: batches went in since the voxel colours were computed (they are
  /// first-come until rebuild_for_colours(), kernels/entry.hpp).
  bool stale_colours = false;
};

/// Queues copies of the node records and links into `copy` on the store's stream (the caller
/// synchronises).
void copy_nodes(const TreeStore& t, HostTreeCopy& copy);

}  // namespace simlod::detail::cuda
