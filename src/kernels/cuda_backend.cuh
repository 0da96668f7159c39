// The CUDA octree backend: SimLOD's incremental update (core/octree_backend.hpp) on the GPU.
//
// Owns one device address range (the arena, kernels/arena_layout.hpp, backed with memory as
// the tree grows: kernels/device_arena.cuh) holding the tree, the chunk pool and the batch
// buffers, a pinned staging buffer for uploads, a stream and events.
// A batch runs as:
//   upload (pinned staging, async copies; none when prefetch() already copied the batch, or
//           one direct copy when the batch lies in pinned memory)
//   round 1: count -> plan -> [sync] grant for the expansion (CapacityError: nothing changed)
//   if leaves split: split, then rounds { next -> count -> split } queued 4 at a time and a
//     plan of the leaves then, [sync] until a round split nothing (queued rounds after it do
//     nothing); a round beyond the grant rolls the batch back and runs it again
//   grant for the insertion (CapacityError: rolled back, nothing changed)
//   sample -> allocate -> insert (+ retire chunks) -> [sync] read the counters back
// The order lives in kernels/batch_driver.hpp, the passes in kernels/*_pass.cu (per-thread
// bodies in kernels/pass_bodies.hpp), the capacity bound in kernels/capacity.hpp.
#pragma once

#include <cstdint>
#include <span>

#include "core/octree_backend.hpp"
#include "kernels/arena_layout.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_resources.cuh"
#include "kernels/device_arena.cuh"
#include "kernels/tree_view.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda {

class CudaBackend final : public OctreeBackend {
 public:
  /// Reserves the arena and initialises an empty tree (the root leaf). Throws CapacityError
  /// when the reserve cannot be had or cannot hold the fixed tables, CudaError otherwise.
  CudaBackend(const OctreeConfig& config, const OctreeGeometry& geometry);

  [[nodiscard]] Backend kind() const override { return Backend::Cuda; }
  void insert_batch(std::span<const Point> batch, UpdateStats& stats) override;
  /// Copies `batch` on a second stream into a free batch buffer (cuda_prefetch.cu);
  /// insert_batch() of the same span then waits for that copy only, even if other batches
  /// were inserted in between.
  void prefetch(std::span<const Point> batch) override;
  /// From counters read back after the last batch; does not touch the device.
  [[nodiscard]] OctreeStats stats() const override;
  /// Copies node tables and chunks to the host (synchronous).
  [[nodiscard]] NodeSnapshot snapshot() const override;
  /// kernels/cuda_render.cu: selection, splatting and resolve on the framebuffer's stream.
  RenderStats render(const RenderJob& job, FramebufferStore& fb) const override;

  [[nodiscard]] const CudaBatchTiming& timing() const { return timing_; }
  [[nodiscard]] bool inserted_any() const { return points_ > 0; }

 private:
  void upload(std::span<const Point> batch);
  /// The second batch buffer, its copy stream and event (cuda_prefetch.cu); without device
  /// memory for it prefetch() does nothing.
  void reserve_second_batch_buffer();
  /// Points base_.d_batch at the buffer that holds `batch` (prefetched) or uploads it.
  void stage(std::span<const Point> batch);
  [[nodiscard]] std::byte* arena() const { return arena_.data(); }

  OctreeConfig config_;
  OctreeGeometry geometry_;
  ArenaLayout layout_;
  DeviceArena arena_;          ///< address range of layout_.total_bytes, backed as the tree grows
  std::uint64_t headroom_;     ///< grids granted to expand rounds after round 1 (batch_driver.hpp)
  PinnedMemory staging_;       ///< max_batch Points
  PinnedMemory control_host_;  ///< one Control, target of read_control()
  StreamHandle stream_;
  EventHandle started_, uploaded_, done_;
  TreeView base_;  ///< pointers and parameters; per-batch fields are filled in
  /// Batch buffers: [0] in the arena, the others in one allocation beside it. While the
  /// kernels of a batch read one, the prefetches of the next batches copy into the others; each
  /// remembers the span it holds until a batch consumes it, so that a prefetch made before the
  /// previous batch ran is still found.
  struct BatchBuffer {
    Point* d = nullptr;
    std::span<const Point> pending;  ///< prefetched and not yet consumed (empty: free)
    std::uint64_t order = 0;         ///< when `pending` was prefetched (the oldest is reused)
    EventHandle copied;              ///< recorded on copy_stream_ after its copy
  };
  BatchBuffer buffers_[kBatchBuffers];
  std::uint64_t prefetches_ = 0;
  DeviceMemory second_batch_;
  StreamHandle copy_stream_;
  /// The buffer to (re)fill: a free one, else the one prefetched longest ago.
  [[nodiscard]] int buffer_to_fill() const;
  Control control_{};         ///< counters after the last completed batch
  std::uint64_t points_ = 0;  ///< points inserted
  CudaBatchTiming timing_;
};

}  // namespace simlod::detail::cuda
