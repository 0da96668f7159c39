// The one-dimensional CUDA build in one pass over the values (kernels/fenwick/fenwick_passes.cuh).
//
// A block takes a tile of 4096 aligned elements (16 consecutive ones per thread). Every entry
// of levels 0 .. 11 ends in one tile and sums elements of that tile only, so the block computes
// them from the thread's own running sums (levels 0-3) and a block scan of the thread totals
// (levels 4-11), ORs them into a shared-memory copy of the words its entries span, and writes
// those words out: plain stores for words that only its entries touch, atomicOr for the two
// words at each end that neighbouring tiles share (the words were zeroed before). Levels 12
// and above are the Fenwick tree of the tiles' sums (entry i of level 12 + t covers tiles
// (i 2^(t+1) + 2^t - 1) - 2^t + 1 .. i 2^(t+1) + 2^t - 1), so the same kernel builds them from
// the sums in a second pass over n / 4096 inputs, a third over n / 2^24, and so on: the values
// are read once. The width check rides on the first pass. (Tiles of 2048 took 0.63 ms for 2^28
// values; the work per tile, not memory, bounds the kernel, so larger tiles share it out.)
#include <algorithm>
#include <cub/block/block_scan.cuh>
#include <utility>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/launch.hpp"
#include "kernels/fenwick/fenwick_passes.cuh"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kItemsLog = 4;
constexpr unsigned kItems = 1u << kItemsLog;  ///< consecutive elements per thread
constexpr std::uint32_t kTileLog = 8 + kItemsLog;
constexpr std::uint64_t kTile = std::uint64_t{1} << kTileLog;
static_assert(kThreads * kItems == kTile);
/// Blocks loop over tiles; more than fill the device gain nothing.
constexpr std::uint64_t kMaxBlocks = 4096;

/// One pass: levels level0 .. level0 + kTileLog - 1 of the tree from n inputs, each the sum of
/// 2^level0 consecutive elements (so the pass's level t is the tree's level level0 + t, bits + t
/// wide).
struct Pass {
  std::uint64_t first_word[kFenwickMaxLevels + 1];  ///< the tree's block table
  std::uint32_t stage[kTileLog + 1];  ///< shared staging words of each level's tile range
  std::uint64_t n = 0;
  std::uint64_t limit = 0;  ///< inputs must lie below it (0: no check)
  std::uint32_t bits = 0;   ///< b + level0
  std::uint32_t level0 = 0;
  std::uint32_t levels = 0;  ///< levels of the tree
};

/// ORs `v` into the staging words from bit `pos` on (v up to 64 bits wide).
__device__ void stage_or(std::uint32_t* s, std::uint32_t pos, std::uint64_t v) {
  if (v == 0) return;
  const std::uint32_t w = pos >> 5, off = pos & 31u;
  atomicOr(&s[w], static_cast<std::uint32_t>(v << off));
  const std::uint64_t rest = v >> (32 - off);
  if (rest != 0) {
    atomicOr(&s[w + 1], static_cast<std::uint32_t>(rest));
    if ((rest >> 32) != 0) atomicOr(&s[w + 2], static_cast<std::uint32_t>(rest >> 32));
  }
}

/// ORs `count` consecutive entries of `width` bits (e[0], e[step], ...) from bit `pos` on: one
/// 64-bit piece when they fit.
template <unsigned kCount, unsigned kStep, class Sum>
__device__ void stage_entries(std::uint32_t* s, std::uint32_t pos, std::uint32_t width,
                              const Sum* e) {
  if (kCount * width <= 64) {
    std::uint64_t v = 0;
#pragma unroll
    for (unsigned c = 0; c < kCount; ++c) v |= std::uint64_t{e[c * kStep]} << (c * width);
    stage_or(s, pos, v);
    return;
  }
#pragma unroll
  for (unsigned c = 0; c < kCount; ++c) stage_or(s, pos + c * width, e[c * kStep]);
}

template <class In>
__device__ void load_items(const In* __restrict__ in, std::uint64_t first, std::uint64_t n,
                           bool vector, std::uint64_t (&v)[kItems]) {
  if constexpr (sizeof(In) == 4) {
    if (vector) {  // a full tile, 16-byte aligned
      uint4 q[kItems / 4];
#pragma unroll
      for (unsigned i = 0; i < kItems / 4; ++i) {
        q[i] = __ldg(reinterpret_cast<const uint4*>(in + first) + i);
      }
#pragma unroll
      for (unsigned i = 0; i < kItems / 4; ++i) {
        v[4 * i] = q[i].x;
        v[4 * i + 1] = q[i].y;
        v[4 * i + 2] = q[i].z;
        v[4 * i + 3] = q[i].w;
      }
      return;
    }
  }
#pragma unroll
  for (unsigned i = 0; i < kItems; ++i) v[i] = first + i < n ? in[first + i] : 0;
}

/// Sum: the type of a tile's sums (32 bits where they fit: cheaper scans and shifts).
template <class In, class Sum>
__global__ void __launch_bounds__(kThreads)
    tile_kernel(const In* __restrict__ in, Pass p, std::uint32_t* __restrict__ words,
                unsigned long long* first_bad, std::uint64_t* __restrict__ sums) {
  using Scan = cub::BlockScan<Sum, kThreads>;
  __shared__ typename Scan::TempStorage scan_temp;
  __shared__ Sum incl[kThreads];  // inclusive sums of the thread totals
  __shared__ std::uint32_t stage_at[kTileLog + 1];
  extern __shared__ std::uint32_t stage[];
  const unsigned g = threadIdx.x;
  if (g <= kTileLog) stage_at[g] = p.stage[g];
  const std::uint64_t tiles = (p.n + kTile - 1) / kTile;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(in) & 15u) == 0;
  const std::uint32_t tile_levels = p.levels - p.level0 < kTileLog ? p.levels - p.level0 : kTileLog;
  for (std::uint64_t j = blockIdx.x; j < tiles; j += gridDim.x) {
    const std::uint64_t base = j * kTile;
    const bool full = base + kTile <= p.n;
    for (unsigned i = g; i < p.stage[kTileLog]; i += kThreads) stage[i] = 0;
    const std::uint64_t first = base + std::uint64_t{g} * kItems;
    std::uint64_t raw[kItems];
    load_items(in, first, p.n, full && aligned, raw);
    Sum q[kItems];
#pragma unroll
    for (unsigned i = 0; i < kItems; ++i) {
      if (p.limit != 0 && raw[i] >= p.limit && first + i < p.n) {
        atomicMin(first_bad, static_cast<unsigned long long>(first + i));
      }
      q[i] = static_cast<Sum>(raw[i]) + (i > 0 ? q[i - 1] : Sum{0});
    }
    Sum total = 0;
    Scan(scan_temp).InclusiveSum(q[kItems - 1], total);
    incl[g] = total;
    __syncthreads();  // staging zeroed, incl visible
    // Entry i ends at element first + i: level trailing_ones(i) for i < kItems - 1, then
    // kItemsLog + the trailing ones of g.
    Sum e[kItems];
#pragma unroll
    for (unsigned i = 0; i + 1 < kItems; ++i) {
      const unsigned start = i + 1 - (1u << fenwick_trailing_ones(i));
      e[i] = q[i] - (start > 0 ? q[start - 1] : Sum{0});
    }
    const std::uint32_t top = kItemsLog + fenwick_trailing_ones(g);
    {
      const unsigned start = g + 1 - (1u << (top - kItemsLog));
      e[kItems - 1] = incl[g] - (start > 0 ? incl[start - 1] : Sum{0});
    }
    if (!full) {
#pragma unroll
      for (unsigned i = 0; i < kItems; ++i) e[i] = first + i < p.n ? e[i] : Sum{0};
    }
    auto pos = [&](std::uint32_t t) {  // bit of this thread's first entry of level t
      const std::uint32_t width = p.bits + t;
      const auto align = static_cast<std::uint32_t>((j * (kTile >> (t + 1)) * width) & 31u);
      return 32 * stage_at[t] + align + ((g * kItems) >> (t + 1)) * width;
    };
    // Level t < kItemsLog: entries i = 2^t - 1, 2^t - 1 + 2^(t+1), ...
    [&]<unsigned... t>(std::integer_sequence<unsigned, t...>) {
      (stage_entries<(kItems >> (t + 1)), (2u << t)>(stage, pos(t), p.bits + t, e + (1u << t) - 1),
       ...);
    }
    (std::make_integer_sequence<unsigned, kItemsLog>{});
    if (top < tile_levels) stage_or(stage, pos(top), e[kItems - 1]);
    __syncthreads();  // staging complete
    for (std::uint32_t i = g; i < p.stage[kTileLog]; i += kThreads) {
      std::uint32_t t = 0;
      while (t + 1 < kTileLog && i >= stage_at[t + 1]) ++t;
      if (t >= tile_levels) continue;
      const std::uint64_t entries = fenwick_level_entries(p.n, t);
      const std::uint64_t tile_first = j * (kTile >> (t + 1));
      if (tile_first >= entries) continue;
      const std::uint64_t count = std::min(kTile >> (t + 1), entries - tile_first);
      const std::uint32_t width = p.bits + t;
      const std::uint64_t start = p.first_word[p.level0 + t] * 32 + tile_first * width;
      const std::uint64_t end = start + count * width;
      const std::uint64_t w = (start >> 5) + (i - stage_at[t]);
      if (w * 32 >= end) continue;
      const std::uint32_t word = stage[i];
      if (w * 32 >= start && w * 32 + 32 <= end) {
        words[w] = word;
      } else if (word != 0) {
        atomicOr(&words[w], word);
      }
    }
    if (full && g == kThreads - 1) sums[j] = total;
    __syncthreads();  // before the next tile reuses staging, incl and the scan storage
  }
}

/// The pass's staging offsets: each level's tile range, from any bit of its first word.
void plan_stage(Pass& p) {
  std::uint32_t words = 0;
  for (std::uint32_t t = 0; t < kTileLog; ++t) {
    p.stage[t] = words;
    const std::uint64_t bits = 31 + (kTile >> (t + 1)) * (p.bits + t);
    words += static_cast<std::uint32_t>((bits + 31) / 32);
  }
  p.stage[kTileLog] = words;
}

template <class In>
void launch_pass(const In* in, const Pass& p, std::uint32_t* words, unsigned long long* first_bad,
                 std::uint64_t* sums) {
  const std::uint64_t tiles = (p.n + kTile - 1) / kTile;
  const unsigned blocks = blocks_for(tiles, 1, kMaxBlocks);
  const std::size_t shared = p.stage[kTileLog] * sizeof(std::uint32_t);
  if (p.bits + kTileLog <= 32) {  // a tile's sum fits 32 bits
    tile_kernel<In, std::uint32_t><<<blocks, kThreads, shared>>>(in, p, words, first_bad, sums);
  } else {
    tile_kernel<In, std::uint64_t><<<blocks, kThreads, shared>>>(in, p, words, first_bad, sums);
  }
  SIMLOD_CUDA_CHECK_LAUNCH("fenwick tile_kernel");
}

}  // namespace

std::uint64_t fenwick_tile_scratch(std::uint64_t n) { return n / kTile + n / (kTile * kTile) + 2; }

void fenwick_build_1d(const std::uint32_t* d_values, const FenwickLayout& l,
                      const std::uint64_t* table, std::uint32_t* d_words,
                      unsigned long long* d_first_bad, std::uint64_t* d_sums) {
  Pass p;
  std::copy(table, table + l.levels[0] + 1, p.first_word);
  p.n = l.total;
  p.limit = l.bits < 32 ? std::uint64_t{1} << l.bits : 0;
  p.bits = l.bits;
  p.levels = l.levels[0];
  plan_stage(p);
  // Ping-pong between the scratch's two parts: n / 4096 sums, then n / 2^24, ...
  std::uint64_t* out = d_sums;
  std::uint64_t* other = d_sums + l.total / kTile + 1;
  launch_pass(d_values, p, d_words, d_first_bad, out);
  for (std::uint64_t n = l.total / kTile; n > 0; n /= kTile) {
    const std::uint64_t* in = out;
    std::swap(out, other);
    p.n = n;
    p.limit = 0;
    p.level0 += kTileLog;
    p.bits += kTileLog;
    plan_stage(p);
    launch_pass(in, p, d_words, d_first_bad, out);
  }
}

}  // namespace simlod::detail::cuda
