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

  /// Average with a classification channel: the voxels' class counts (IndexView::tally).
  [[nodiscard]] bool counts_classes() const {
    return view_.averages != 0 && view_.layout.has(Attribute::Classification);
  }
  /// Grows the class counts (doubling, at least kFirstTallySlots slots) until `more` keys fit
  /// beside the ones they hold, keeping every count (on `stream`, waited for). Throws
  /// CapacityError when the device has no memory for them (the counts are then unchanged).
  void reserve_tally(std::uint64_t more, cudaStream_t stream);

 private:
  [[nodiscard]] std::uint64_t bytes_for(std::uint64_t capacity) const;

  IndexView view_;
  std::uint64_t capacity_ = 0;
  std::uint64_t tally_slots_ = 0;
  bool ready_ = true;
  DeviceMemory memory_;        ///< every array of the view, one allocation
  DeviceMemory tally_memory_;  ///< the class counts and their key counter
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

/// Adds the entry of a new voxel of (node, cell) whose colour word lies at `word`, with an empty
/// accumulator; false when the index is full (it was reserved for the batch's bound of voxels,
/// so that is an internal error).
inline __device__ bool index_add(const IndexView& x, std::uint32_t node, std::uint32_t cell,
                                 std::uint32_t* word) {
  const std::uint32_t e = atomicAdd(&x.counts[0], 1u);
  if (e >= x.capacity) return false;
  const unsigned long long key = index_key(node, cell);
  x.keys[e] = key;
  x.voxel_words[e] = word;
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

inline constexpr unsigned long long kTallyEmpty = ~0ull;

/// The class count key of (node, cell, class) (cells below 2^24).
inline __device__ unsigned long long tally_key(std::uint32_t node, std::uint32_t cell,
                                               std::uint32_t cls) {
  return index_key(node, cell << 8 | cls);
}

/// Adds n to the count of `key`, taking a slot for it if it has none (reserve_tally() left
/// room for every key a pass adds); returns the new count.
inline __device__ unsigned long long tally_add(const IndexView& x, unsigned long long key,
                                               unsigned long long n) {
  for (std::uint64_t s = index_hash(key) & x.tally_mask;; s = (s + 1) & x.tally_mask) {
    unsigned long long now = static_cast<volatile unsigned long long*>(x.tally)[2 * s];
    if (now == kTallyEmpty) {
      now = atomicCAS(x.tally + 2 * s, kTallyEmpty, key);
      if (now == kTallyEmpty) atomicAdd(x.tally_counts, 1u);  // a new key (its count is 0)
    }
    if (now == kTallyEmpty || now == key) return atomicAdd(x.tally + 2 * s + 1, n) + n;
  }
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
/// Random path's check and atomicMax); older GPUs take the entry's lock (the word after the
/// pair). Average with channels keeps its winner the same way (IndexView::winner).
inline __device__ void fold_winner(const IndexView& x, std::uint32_t e, unsigned long long best,
                                   unsigned long long tail) {
  unsigned long long* acc = x.acc + std::uint64_t{e} * x.words + x.winner;
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

/// What a point brings to the fold besides its position and colour (detail::record_extras):
/// its record's digest (with channels) and, Average with channels, its intensity, NIR and
/// class; nothing for `record` nullptr or an index without channels.
inline __device__ RecordExtras point_extras(const IndexView& x, const std::byte* record) {
  if (record == nullptr || x.record_bytes == 0) return {};
  return record_extras(reinterpret_cast<const std::uint8_t*>(record), x.layout, x.averages != 0);
}

/// Average with channels: folds point `i` (q, rgba, extras `ex`) into (node, cell): the
/// colour, intensity and NIR sums, the winner (Random's key, then the digest) whose record
/// the voxel takes, and the class count, which raises the entry's mode word. The warp's lanes
/// of one cell combine first (sm_80 on: one lane takes the sums' atomics, one the winner's,
/// one per class the count's); older GPUs fold per lane.
inline __device__ void fold_average_record(const BatchView& v, std::uint32_t node,
                                           std::uint32_t cell, const QuantPoint& q,
                                           std::uint32_t rgba, std::uint32_t i,
                                           const RecordExtras& ex) {
  const IndexView& x = v.index;
  const unsigned long long key = index_key(node, cell);
  unsigned long long best = random_key(q, rgba, x.seed);
  std::uint32_t sum[6] = {red_of(rgba),   green_of(rgba), blue_of(rgba),
                          alpha_of(rgba), ex.intensity,   ex.nir};
  std::uint32_t count = 1;
  unsigned long long same_class = 1;
  bool sums_lead = true, winner_lead = true, class_lead = true;
  std::uint32_t e = kNil;
#if __CUDA_ARCH__ >= 800
  const unsigned group = __match_any_sync(__activemask(), key);
  const auto lane = static_cast<int>(threadIdx.x & 31u);
  const int first = __ffs(group) - 1;
  const unsigned long long own = best;
  best = max_sync(group, best);
  const std::uint32_t top = __reduce_max_sync(group, own == best ? ex.digest : 0u);  // odd
  winner_lead = lane == __ffs(__ballot_sync(group, own == best && ex.digest == top)) - 1;
  for (std::uint32_t& c : sum) c = __reduce_add_sync(group, c);  // at most 32 x 65535
  count = static_cast<std::uint32_t>(__popc(group));
  const unsigned classes = __match_any_sync(group, ex.cls);
  same_class = static_cast<unsigned long long>(__popc(classes));
  class_lead = lane == __ffs(classes) - 1;
  sums_lead = lane == first;
  if (sums_lead) e = index_find(x, key);
  e = __shfl_sync(group, e, first);
#else
  e = index_find(x, key);
#endif
  if (e == kNil) {
    if (sums_lead) v.flag(kOverflowIndex);
    return;
  }
  unsigned long long* acc = x.acc + std::uint64_t{e} * x.words;
  if (sums_lead) {
    for (int c = 0; c < 4; ++c) atomicAdd(acc + c, static_cast<unsigned long long>(sum[c]));
    atomicAdd(acc + 4, static_cast<unsigned long long>(count));
    if (sum[4] != 0)
      atomicAdd(acc + kAverageIntensityWord, static_cast<unsigned long long>(sum[4]));
    if (sum[5] != 0) atomicAdd(acc + kAverageNirWord, static_cast<unsigned long long>(sum[5]));
    mark_dirty(x, e);
  }
  if (winner_lead) fold_winner(x, e, best, static_cast<unsigned long long>(ex.digest) << 32 | i);
  if (class_lead && x.tally != nullptr) {
    const unsigned long long total = tally_add(x, tally_key(node, cell, ex.cls), same_class);
    atomicMax(acc + kAverageModeWord, mode_word(total, ex.cls));
  }
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

/// Folds point `i` of the pass, at stored position `q` with colour `rgba` (with extras `ex`,
/// see fold()), into its cell of every inner node on its path whose grid is `from_grid` or
/// newer (0: every inner node).
inline __device__ void fold_point(const BatchView& v, const QuantPoint& q, std::uint32_t rgba,
                                  std::uint32_t i, const RecordExtras& ex,
                                  std::uint32_t from_grid) {
  const std::uint32_t g = v.params.grid_bits;
  const bool averages = v.index.averages != 0;
  v.for_each_inner(q, [&](std::uint32_t node, std::uint32_t level, const NodeLink& link) {
    if (link.grid < from_grid) return;
    const std::uint32_t cell = cell_index(q, level, g);
    if (averages) {
      fold_average_record(v, node, cell, q, rgba, i, ex);
    } else {
      fold(v, node, cell, q, rgba, i, ex.digest);
    }
  });
}

}  // namespace simlod::detail::cuda
