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
#include "kernels/common/warp_ops.cuh"
#include "kernels/tree/device_layout.hpp"
#include "kernels/update/batch_view.hpp"
#include "kernels/update/index_view.hpp"

namespace simlod::detail::cuda {
struct TreeStore;  // kernels/tree/store.cuh
}  // namespace simlod::detail::cuda
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
/// Writes the colours of the entries folded into since the last call into their voxels (a
/// grid-stride pass sized for `work` items) and empties the list.
void launch_write_colours(const IndexView& x, std::uint64_t work, cudaStream_t stream);
/// Gives the store the bulk builder wrote its index (every voxel's entry, every stored point
/// folded in), which the incremental builder then keeps; nothing when it has one. Throws
/// CapacityError when the device has no memory for it (the store then stays without)
/// (kernels/update/index_build.cu).
void index_tree(TreeStore& store);

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

/// The entry of `key`; kNil when it has none (an internal error).
inline __device__ std::uint32_t index_find(const IndexView& x, unsigned long long key) {
  for (std::uint64_t s = index_hash(key) & x.slot_mask;; s = (s + 1) & x.slot_mask) {
    const std::uint32_t e = x.slots[s];
    if (e == kNil || x.keys[e] == key) return e;
  }
}

/// Lists entry `e`, whose colour may have changed, once per batch.
inline __device__ void mark_dirty(const IndexView& x, std::uint32_t e) {
  if (x.dirty[e] == 0 && atomicExch(&x.dirty[e], 1u) == 0) x.list[atomicAdd(&x.counts[1], 1u)] = e;
}

/// Random with channels: whether (key, tail) beats (key2, tail2): the larger key, then the
/// larger digest (a tail's high word; its low word names the point).
inline __device__ bool beats(unsigned long long key, unsigned long long tail,
                             unsigned long long key2, unsigned long long tail2) {
  return key > key2 || (key == key2 && (tail >> 32) > (tail2 >> 32));
}

/// Random with channels: folds the sample of key `best` and tail (digest << 32 | its point
/// number in the pass) into entry `e`; when it beats the entry's pair, the entry takes both
/// and is listed, and launch_fold() then copies the winner's record into the voxel, once per
/// changed voxel. sm_90 on: a 16-byte compare-and-swap (two round trips a win, as the plain
/// Random path's check and atomicMax); older GPUs take the entry's lock (word 2).
inline __device__ void fold_winner(const IndexView& x, std::uint32_t e, unsigned long long best,
                                   unsigned long long tail) {
  unsigned long long* acc = x.acc + std::uint64_t{e} * x.words;
  volatile unsigned long long* seen = acc;
  if (!beats(best, tail, seen[0], seen[1])) return;  // it cannot win (pairs only grow)
#if __CUDA_ARCH__ >= 900
  struct alignas(16) Pair {
    unsigned long long key, tail;
  };
  auto* slot = reinterpret_cast<Pair*>(acc);
  Pair now{seen[0], seen[1]};  // a torn read only costs a failed swap
  const Pair mine{best, tail};
  while (beats(best, tail, now.key, now.tail)) {
    const Pair old = atomicCAS(slot, now, mine);
    if (old.key == now.key && old.tail == now.tail) return mark_dirty(x, e);
    now = old;
  }
#else
  bool won = false;
  for (bool done = false; !done;) {
    if (atomicCAS(acc + 2, 0ull, 1ull) != 0ull) continue;
    __threadfence();
    won = beats(best, tail, seen[0], seen[1]);
    if (won) {
      seen[0] = best;
      seen[1] = tail;
    }
    __threadfence();
    atomicExch(acc + 2, 0ull);
    done = true;
  }
  if (won) mark_dirty(x, e);
#endif
}

/// Folds point `i` of the pass, (q, rgba) with record digest `digest` (Random with channels;
/// else 0), into the accumulator of (node, cell). The warp's lanes of one key (neighbouring
/// points share the cells of coarse levels) combine first, and one of them finds the entry and
/// takes the atomics (sm_80 on; older GPUs fold per lane).
inline __device__ void fold(const BatchView& v, std::uint32_t node, std::uint32_t cell,
                            const QuantPoint& q, std::uint32_t rgba, std::uint32_t i,
                            std::uint32_t digest) {
  const IndexView& x = v.index;
  const unsigned long long key = index_key(node, cell);
  unsigned long long best = x.random != 0 ? random_key(q, rgba, x.seed) : 0;
  std::uint32_t sum[4] = {red_of(rgba), green_of(rgba), blue_of(rgba), alpha_of(rgba)};
  std::uint32_t count = 1;
#if __CUDA_ARCH__ >= 800
  const unsigned group = __match_any_sync(__activemask(), key);
  unsigned leader = group;  // lanes that may take the atomics: the first of them does
  if (x.random != 0) {      // the group's largest (key, digest)
    const unsigned long long own = best;
    best = max_sync(group, best);
    if (x.record_bytes != 0) {
      const std::uint32_t top = __reduce_max_sync(group, own == best ? digest : 0u);  // odd
      leader = __ballot_sync(group, own == best && digest == top);
    }
  } else {  // at most 32 x 255 per channel
    for (std::uint32_t& c : sum) c = __reduce_add_sync(group, c);
    count = static_cast<std::uint32_t>(__popc(group));
  }
  if ((threadIdx.x & 31u) != static_cast<std::uint32_t>(__ffs(leader) - 1)) return;
#endif
  const std::uint32_t e = index_find(x, key);
  if (e == kNil) return v.flag(kOverflowIndex);
  if (x.record_bytes != 0) {
    return fold_winner(x, e, best, static_cast<unsigned long long>(digest) << 32 | i);
  }
  unsigned long long* acc = x.acc + std::uint64_t{e} * x.words;
  if (x.random != 0) {
    if (*acc >= best || atomicMax(acc, best) >= best) return;  // the colour stays
  } else {
    for (int c = 0; c < 4; ++c) atomicAdd(acc + c, static_cast<unsigned long long>(sum[c]));
    atomicAdd(acc + 4, static_cast<unsigned long long>(count));
  }
  mark_dirty(x, e);
}

/// Folds point `i` of the pass, `p` (its record's digest `digest`, see fold()), into its cell
/// of every inner node on its path whose grid is `from_grid` or newer (0: every inner node).
inline __device__ void fold_point(const BatchView& v, const Point& p, std::uint32_t i,
                                  std::uint32_t digest, std::uint32_t from_grid) {
  const QuantPoint q = quantize(p, v.quant_scale);
  const std::uint32_t g = v.params.grid_bits;
  v.for_each_inner(q, [&](std::uint32_t node, std::uint32_t level, const NodeLink& link) {
    if (link.grid >= from_grid) fold(v, node, cell_index(q, level, g), q, p.rgba, i, digest);
  });
}

}  // namespace simlod::detail::cuda
