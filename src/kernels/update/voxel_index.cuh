// The voxel index of the CUDA store (layout: kernels/update/index_view.hpp): its owner, the
// device functions the insert pass uses to add entries, and the fold pass that keeps
// Sampling::Random and Average exact batch by batch. A batch's own points fold into their cell
// of every inner node on their path; the stored points of a leaf the batch split folded into
// its ancestors when they came, so they fold into the nodes that split in this batch only:
// those whose grid is new (grid ids grow with every split; a rolled-back batch gives its grids
// back before anything folds).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/cuda_resources.cuh"
#include "kernels/tree/device_layout.hpp"
#include "kernels/update/batch_view.hpp"
#include "kernels/update/index_view.hpp"
#include "simlod/detail/sampling.hpp"
#include "simlod/octree.hpp"

namespace simlod::detail::cuda {

class VoxelIndexStore {
 public:
  explicit VoxelIndexStore(const OctreeConfig& config);

  /// Whether the store keeps an index (Sampling::Random, Average).
  [[nodiscard]] bool enabled() const { return view_.words != 0; }
  /// Whether every voxel has its entry (false after the bulk builder wrote the store).
  [[nodiscard]] bool ready() const { return ready_; }
  void set_ready(bool ready) { ready_ = ready; }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_for(capacity_); }
  [[nodiscard]] const IndexView& view() const { return view_; }

  /// Room for `entries` entries in all, keeping the `size` it holds (copied on `stream`).
  /// Throws CapacityError when the device has no memory for it (the index is then unchanged).
  void reserve(std::uint64_t entries, std::uint64_t size, cudaStream_t stream);

 private:
  [[nodiscard]] std::uint64_t bytes_for(std::uint64_t capacity) const;

  IndexView view_;
  std::uint64_t capacity_ = 0;
  bool ready_ = true;
  DeviceMemory memory_;  ///< every array of the view, one allocation
};

/// Fold pass, after the insert pass of a batch that added its voxels' entries: every point of
/// the batch (and the spill) folds into the index, then the changed voxels get their colours.
/// `old_grids` = the store's grids before the batch. Nothing without an index.
void launch_fold(const BatchView& v, std::uint32_t old_grids, cudaStream_t stream);

inline __device__ unsigned long long index_key(std::uint32_t node, std::uint32_t cell) {
  return (static_cast<unsigned long long>(node) << 32) | cell;
}

inline __device__ std::uint32_t index_hash(unsigned long long key) {
  return mix32(mix32(static_cast<std::uint32_t>(key)) ^ static_cast<std::uint32_t>(key >> 32));
}

/// Puts entry `e` (its key written) into the table.
inline __device__ void index_link(const IndexView& x, std::uint32_t e, unsigned long long key) {
  for (std::uint64_t s = index_hash(key) & x.slot_mask;; s = (s + 1) & x.slot_mask) {
    if (x.slots[s] == kNil && atomicCAS(&x.slots[s], kNil, e) == kNil) return;
  }
}

/// Adds the entry of a new voxel of (node, cell) whose sample lies at `sample`, with an empty
/// accumulator; false when the index is full (it was reserved for the batch's bound of voxels,
/// so that is an internal error).
inline __device__ bool index_add(const IndexView& x, std::uint32_t node, std::uint32_t cell,
                                 Point* sample) {
  const std::uint32_t e = atomicAdd(&x.counts[0], 1u);
  if (e >= x.capacity) return false;
  const unsigned long long key = index_key(node, cell);
  x.keys[e] = key;
  x.samples[e] = sample;
  for (std::uint32_t w = 0; w < x.words; ++w) x.acc[std::uint64_t{e} * x.words + w] = 0;
  x.dirty[e] = 0;
  index_link(x, e, key);
  return true;
}

}  // namespace simlod::detail::cuda
