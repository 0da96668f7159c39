// Device functions of the CUDA bulk builder's filtered voxelizing passes
// (kernels/bulk/filter_passes.cu): a cell's voxel index from the level's grids and their
// scanned set cells, and the accumulators of Sampling::Random, Average and Weighted.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/bulk/bulk_passes.hpp"
#include "kernels/bulk/bulk_view.hpp"
#include "kernels/common/device_ops.hpp"
#include "kernels/common/warp_ops.cuh"
#include "simlod/detail/sampling.hpp"

namespace simlod::detail::cuda::bulk {

/// Voxel index of the set cell at word offset `off` (from the lowest word of all levels'
/// grids), bit `bit`, among the voxels of its level (from v.voxel_base); with bit = 0 the set
/// cells before that word.
inline __device__ std::uint32_t voxel_index(const BulkView& v, std::uint64_t off,
                                            std::uint32_t bit) {
  std::uint32_t idx = v.d_groups[off >> 3] - v.voxel_base;
  for (std::uint64_t j = off & ~std::uint64_t{7}; j < off; ++j) idx += __popc(v.d_level_words[j]);
  return idx + __popc(v.d_level_words[off] & ((1u << bit) - 1u));
}

/// Word offset of the first word of inner rank `rank`'s grid (from the lowest of all levels').
inline __device__ std::uint64_t grid_offset(const BulkView& v, std::uint32_t rank) {
  return static_cast<std::uint64_t>(v.tree.dense_words(rank) - v.d_level_words);
}

/// The sums of voxel `i` of an Average level, wide or narrow.
inline __device__ ColourSum sums_at(const void* sums, bool narrow, std::uint32_t i) {
  if (!narrow) return static_cast<const ColourSum*>(sums)[i];
  const NarrowSum n = static_cast<const NarrowSum*>(sums)[i];
  ColourSum c;
  c.r = n.r;
  c.g = n.g;
  c.b = n.b;
  c.a = n.a;
  c.count = n.count;
  return c;
}

/// Adds `sum` to the 64-bit sums of voxel `idx` (wide Average levels, Weighted).
inline __device__ void add_wide(const BulkView& v, std::uint32_t idx, const ColourSum& sum) {
  auto* s = static_cast<unsigned long long*>(v.d_sums) + 5ull * idx;
  atomicAdd(s + 0, static_cast<unsigned long long>(sum.r));
  atomicAdd(s + 1, static_cast<unsigned long long>(sum.g));
  atomicAdd(s + 2, static_cast<unsigned long long>(sum.b));
  atomicAdd(s + 3, static_cast<unsigned long long>(sum.a));
  atomicAdd(s + 4, static_cast<unsigned long long>(sum.count));
}

/// The warp's lanes that add to voxel `idx` at once sum their five fields `f` (r, g, b, a and
/// the count or weight) in place; returns true for the one lane that then adds them: the
/// lowest of its group, or every lane that is alone. A shuffle and a vote first: in scan
/// order a whole warp often shares its voxel, which a match would find more slowly. The
/// callers' sums over 32 lanes stay below 2^32 per field. sm_80 on; older GPUs add per lane.
inline __device__ bool lead_voxel_lanes(std::uint32_t idx, std::uint32_t (&f)[5]) {
#if __CUDA_ARCH__ >= 800
  const unsigned active = __activemask();
  const unsigned group = same_key(active, idx) ? active : __match_any_sync(active, idx);
  if (__popc(group) == 1) return true;
  for (std::uint32_t& x : f) x = __reduce_add_sync(group, x);
  return static_cast<int>(lane_id()) == __ffs(group) - 1;
#else
  (void)idx;
  (void)f;
  return true;
#endif
}

/// Adds `sum` to the Average sums of voxel `idx`. Narrow sums: with `group_lanes`, the warp's
/// lanes of one voxel add theirs first (neighbouring points and cells share voxels: scan order
/// gives runs; a narrow voxel's sums stay below 2^32, so the lanes' totals cannot wrap either),
/// and one of them takes the three atomics.
inline __device__ void add_sums(const BulkView& v, std::uint32_t idx, const ColourSum& sum,
                                bool group_lanes) {
  if (!v.narrow) {
    add_wide(v, idx, sum);
    return;
  }
  std::uint32_t f[5] = {static_cast<std::uint32_t>(sum.r), static_cast<std::uint32_t>(sum.g),
                        static_cast<std::uint32_t>(sum.b), static_cast<std::uint32_t>(sum.a),
                        static_cast<std::uint32_t>(sum.count)};
  if (group_lanes && !lead_voxel_lanes(idx, f)) return;
  auto* s = reinterpret_cast<unsigned long long*>(static_cast<NarrowSum*>(v.d_sums) + idx);
  atomicAdd(s + 0, f[0] | (static_cast<unsigned long long>(f[1]) << 32));
  atomicAdd(s + 1, f[2] | (static_cast<unsigned long long>(f[3]) << 32));
  atomicAdd(reinterpret_cast<unsigned*>(s + 2), f[4]);
}

/// Marks (accumulate false) or folds in (true) one sample of inner rank `rank`'s cell `cell`.
template <Sampling kMode>
inline __device__ void sample(const BulkView& v, std::uint32_t rank, std::uint32_t cell,
                              bool accumulate, std::uint64_t key, const ColourSum& sum) {
  std::uint32_t* word = v.tree.dense_words(rank) + (cell >> 5);
  if (!accumulate) {
    const std::uint32_t bit = 1u << (cell & 31);
    if ((*word & bit) == 0) atomicOr(word, bit);
    return;
  }
  const std::uint32_t idx =
      voxel_index(v, static_cast<std::uint64_t>(word - v.d_level_words), cell & 31);
  if constexpr (kMode == Sampling::Random) {
    auto* k = reinterpret_cast<unsigned long long*>(v.d_keys + idx);
    if (*k < key) atomicMax(k, static_cast<unsigned long long>(key));
  } else {
    add_sums(v, idx, sum, true);
  }
}

/// Random with channels, after the fold: among the samples of the voxel's largest key, the
/// largest record digest (FilterStage::Digest), then among the samples of both the largest
/// place (FilterStage::Source), whose record the voxel takes: the CPU's winner, (key, digest),
/// whatever the order (samples equal in both have equal records unless their digests collide).
/// `digest()` reads the sample's digest, only for samples of the largest key.
template <FilterStage kStage, class Digest>
inline __device__ void sample_winner(const BulkView& v, std::uint32_t rank, std::uint32_t cell,
                                     std::uint64_t key, std::uint64_t place, Digest digest) {
  const std::uint32_t* word = v.tree.dense_words(rank) + (cell >> 5);
  const std::uint32_t idx =
      voxel_index(v, static_cast<std::uint64_t>(word - v.d_level_words), cell & 31);
  if (v.d_keys[idx] != key) return;
  const std::uint32_t d = digest();
  if constexpr (kStage == FilterStage::Digest) {
    if (v.d_digests[idx] < d) atomicMax(v.d_digests + idx, d);
  } else {
    auto* at = reinterpret_cast<unsigned long long*>(v.d_sources + idx);
    if (v.d_digests[idx] == d && *at < place) atomicMax(at, static_cast<unsigned long long>(place));
  }
}

/// Sums of a leaf chunk's points per voxel in shared memory, kLeafRound points at a time, so
/// that the global atomics go per voxel of the round rather than per point (a leaf's
/// neighbouring points share their parent's voxels). An open-addressing table twice as large
/// as a round: red, green and blue in 21-bit fields of one word, alpha (18 bits) and the count
/// (11 bits) in another, which kLeafRound points of 8-bit channels cannot overflow.
constexpr std::uint32_t kLeafRound = 1024, kLeafSlots = 2 * kLeafRound;
constexpr std::uint32_t kEmptySlot = 0xFFFFFFFFu;
static_assert(kLeafRound * 255u < (1u << 18) && kLeafRound < (1u << 11));

inline __device__ void average_leaf_chunk(const BulkView& v, std::uint32_t chunk,
                                          const DeviceNode& n, std::uint32_t m, std::uint32_t rank,
                                          std::uint32_t level) {
  __shared__ std::uint32_t keys[kLeafSlots];
  __shared__ unsigned long long rgb[kLeafSlots];
  __shared__ std::uint32_t alpha_count[kLeafSlots];
  const std::uint32_t g = v.tree.params.grid_bits;
  for (std::uint32_t i = threadIdx.x; i < kLeafSlots; i += blockDim.x) {
    keys[i] = kEmptySlot;
    rgb[i] = 0;
    alpha_count[i] = 0;
  }
  __syncthreads();
  for (std::uint32_t round = 0; round < m; round += kLeafRound) {
    const std::uint32_t end = min_u32(m, round + kLeafRound);
    for (std::uint32_t s = round + threadIdx.x; s < end; s += blockDim.x) {
      const LeafSample sample = v.tree.leaf_point(chunk, s, n);
      const QuantPoint q = sample.q;
      const std::uint32_t rgba = sample.point.rgba;
      const std::uint32_t cell = cell_index(q, level, g);
      const std::uint32_t* word = v.tree.dense_words(rank) + (cell >> 5);
      const std::uint32_t idx =
          voxel_index(v, static_cast<std::uint64_t>(word - v.d_level_words), cell & 31);
      std::uint32_t h = (idx * 2654435761u) >> 21;  // 11 bits: kLeafSlots
      for (;;) {
        const std::uint32_t k = atomicCAS(&keys[h], kEmptySlot, idx);
        if (k == kEmptySlot || k == idx) break;
        h = (h + 1) & (kLeafSlots - 1);
      }
      atomicAdd(&rgb[h], static_cast<unsigned long long>(red_of(rgba)) |
                             (static_cast<unsigned long long>(green_of(rgba)) << 21) |
                             (static_cast<unsigned long long>(blue_of(rgba)) << 42));
      atomicAdd(&alpha_count[h], alpha_of(rgba) | (1u << 18));
    }
    __syncthreads();
    for (std::uint32_t i = threadIdx.x; i < kLeafSlots; i += blockDim.x) {
      if (keys[i] == kEmptySlot) continue;
      ColourSum sum;
      const unsigned long long c = rgb[i];
      sum.r = c & 0x1FFFFFu;
      sum.g = (c >> 21) & 0x1FFFFFu;
      sum.b = c >> 42;
      sum.a = alpha_count[i] & 0x3FFFFu;
      sum.count = alpha_count[i] >> 18;
      add_sums(v, keys[i], sum, false);
      keys[i] = kEmptySlot;
      rgb[i] = 0;
      alpha_count[i] = 0;
    }
    __syncthreads();
  }
}

/// True when adding (lo, hi) to the two 32-bit fields of `old` wrapped either of them.
inline __device__ bool wraps(unsigned long long old, std::uint32_t lo, std::uint32_t hi) {
  return static_cast<std::uint32_t>(old) + lo < lo ||
         static_cast<std::uint32_t>(old >> 32) + hi < hi;
}

/// Weighted: adds weighted sums to voxel `idx`. Narrow levels add to 32-bit sums in three
/// atomics (every add stays below 2^32 per field, so one add wraps a field at most once); an
/// add that wraps one sets *d_counter, and the level folds again with 64-bit sums
/// (kernels/bulk/build.cu). A voxel's sums wrap only beyond about 16,000 samples of full
/// weight and colour around it: points piled at one spot. The lanes of a warp that add to one
/// voxel at once add theirs first (lead_voxel_lanes): a lane's add is below 2^18 per field, so
/// 32 of them stay below 2^23, and the sums end the same whatever the grouping.
inline __device__ void add_weighted(const BulkView& v, std::uint32_t idx, std::uint32_t r,
                                    std::uint32_t g, std::uint32_t b, std::uint32_t a,
                                    std::uint32_t w) {
  static_assert(255u * kWeightOne * 32u < (1u << 31));
  if (!v.narrow) {
    ColourSum sum;
    sum.r = r;
    sum.g = g;
    sum.b = b;
    sum.a = a;
    sum.count = w;
    add_wide(v, idx, sum);
    return;
  }
  std::uint32_t f[5] = {r, g, b, a, w};
  if (!lead_voxel_lanes(idx, f)) return;
  auto* s = reinterpret_cast<unsigned long long*>(static_cast<NarrowSum*>(v.d_sums) + idx);
  const unsigned long long rg =
      atomicAdd(s + 0, f[0] | (static_cast<unsigned long long>(f[1]) << 32));
  const unsigned long long ba =
      atomicAdd(s + 1, f[2] | (static_cast<unsigned long long>(f[3]) << 32));
  const std::uint32_t count = atomicAdd(reinterpret_cast<unsigned*>(s + 2), f[4]);
  if (wraps(rg, f[0], f[1]) || wraps(ba, f[2], f[3]) || count + f[4] < f[4]) {
    atomicOr(v.d_counter, 1u);
  }
}

/// Weighted: adds `rgba` with its weight to every occupied cell of inner rank `rank`'s grid
/// around position p (fixed point, detail::for_each_spread_cell).
inline __device__ void spread(const BulkView& v, std::uint32_t rank, const std::uint32_t (&p)[3],
                              std::uint32_t rgba) {
  const std::uint32_t* words = v.tree.dense_words(rank);
  for_each_spread_cell(p, v.tree.params.grid_bits, [&](std::uint32_t cell, std::uint32_t w) {
    if ((words[cell >> 5] & (1u << (cell & 31))) == 0) return;  // no sample: no voxel
    const std::uint32_t idx = voxel_index(
        v, static_cast<std::uint64_t>(words + (cell >> 5) - v.d_level_words), cell & 31);
    add_weighted(v, idx, w * red_of(rgba), w * green_of(rgba), w * blue_of(rgba),
                 w * alpha_of(rgba), w);
  });
}

}  // namespace simlod::detail::cuda::bulk
