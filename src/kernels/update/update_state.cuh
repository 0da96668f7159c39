// What the CUDA incremental builder keeps between batches beside the tree store: its fixed
// scratch (kernels/update/scratch_layout.hpp) and the view of store and scratch its passes get,
// the capacity headroom of expand rounds, a pinned staging buffer for uploads, its events and
// timing, and the batch buffers with their prefetch state (kernels/update/prefetch.cu).
//
// A batch runs as:
//   upload (pinned staging, async copies; none when prefetch() already copied the batch, or
//           one direct copy when the batch lies in pinned memory)
//   round 1: count -> plan -> [sync] grant for the expansion (CapacityError: nothing changed)
//   if leaves split: split, then rounds { next -> count -> split } queued 4 at a time and a
//     plan of the leaves then, [sync] until a round split nothing (queued rounds after it do
//     nothing); a round beyond the grant rolls the batch back and runs it again
//   grant for the insertion (CapacityError: rolled back, nothing changed)
//   sample -> allocate -> insert (+ retire chunks) -> [sync] read the counters back
// The order lives in kernels/update/batch_driver.hpp, the passes in kernels/update/*_pass.cu
// (per-thread bodies in pass_bodies.hpp), the capacity bound in kernels/update/capacity.hpp.
#pragma once

#include <cstdint>
#include <span>

#include "kernels/common/cuda_resources.cuh"
#include "kernels/entry.hpp"
#include "kernels/tree/store.cuh"
#include "kernels/tuning.hpp"
#include "kernels/update/batch_view.hpp"
#include "kernels/update/scratch_layout.hpp"

namespace simlod::detail::cuda {

struct UpdateState {
  explicit UpdateState(const TreeStore& store);

  ScratchLayout scratch_layout;
  DeviceMemory scratch;  ///< the fixed scratch, scratch_layout.total_bytes
  /// The store's writer view with the scratch; d_batch points at the batch being inserted.
  BatchView view;
  std::uint64_t headroom;  ///< grids granted to expand rounds after round 1 (batch_driver.hpp)
  PinnedMemory staging;    ///< max_batch Points, page-locked at the first pageable upload
  EventHandle started, uploaded, done;
  /// Batch buffers: [0] in the scratch, the others in one allocation beside it. While the
  /// kernels of a batch read one, the prefetches of the next batches copy into the others; each
  /// remembers the span it holds until a batch consumes it, so that a prefetch made before the
  /// previous batch ran is still found.
  struct BatchBuffer {
    Point* d = nullptr;
    std::span<const Point> pending;  ///< prefetched and not yet consumed (empty: free)
    std::uint64_t order = 0;         ///< when `pending` was prefetched (the oldest is reused)
    EventHandle copied;              ///< recorded on copy_stream after its copy
  };
  BatchBuffer buffers[kBatchBuffers];
  std::uint64_t prefetches = 0;
  DeviceMemory more_buffers;  ///< buffers [1, kBatchBuffers)
  StreamHandle copy_stream;
  CudaBatchTiming timing;
  bool inserted_any = false;
  int device = 0;  ///< the store's
};

/// Points state.view.d_batch at the buffer that holds `batch` (prefetched) or uploads it
/// (kernels/update/prefetch.cu).
void stage(TreeStore& store, UpdateState& state, std::span<const Point> batch);
/// Copies `batch` to state.view.d_batch on the store's stream (kernels/update/insert.cu).
void upload(TreeStore& store, UpdateState& state, std::span<const Point> batch);

}  // namespace simlod::detail::cuda
