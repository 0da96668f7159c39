// The rank bitmap (simlod/rank_bitmap.hpp) as SIMLOD_HD functions, for host code and kernels.
//
// Layout of n bits: `words` holds bit i as bit i % 32 of word i / 32, padded with zero words to
// whole 128-bit blocks plus one more block (4 (n / 128 + 1) words, 16-byte aligned); `counts`
// holds n / 128 + 1 32-bit counts, counts[j] = the set bits in blocks 0 .. j - 1. So the
// bitmap takes about 1.25 bits per element, and rank(k) = counts[k / 128] plus the set bits
// of block k / 128 below bit k % 128: one count and one 16-byte block.
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

namespace simlod {

/// What kernels need to query a bitmap (device memory for a CUDA bitmap, host memory for a
/// CPU one). Trivially copyable; valid while the bitmap lives.
struct RankBitmapView {
  const std::uint32_t* words = nullptr;
  const std::uint32_t* counts = nullptr;
  std::uint64_t n = 0;
};

namespace detail {

SIMLOD_HD std::uint32_t bitmap_popcount(std::uint32_t w) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__popc(w));
#else
  return static_cast<std::uint32_t>(std::popcount(w));
#endif
}

/// Words of the layout for n bits; counts are words / 4 of them.
SIMLOD_HD constexpr std::uint64_t bitmap_words(std::uint64_t n) { return 4 * (n / 128 + 1); }

/// Set bits before k (k <= n).
SIMLOD_HD std::uint64_t bitmap_rank(const RankBitmapView& v, std::uint64_t k) {
  const std::uint64_t block = k >> 7;
  const std::uint32_t within = static_cast<std::uint32_t>(k & 127u);
#if defined(__CUDA_ARCH__)
  const uint4 q = __ldg(reinterpret_cast<const uint4*>(v.words) + block);
  const std::uint32_t w[4] = {q.x, q.y, q.z, q.w};
#else
  const std::uint32_t* w = v.words + 4 * block;
#endif
  std::uint64_t r = v.counts[block];
  for (std::uint32_t i = 0; i < 4; ++i) {
    const std::uint32_t below = within > 32 * i ? within - 32 * i : 0;
    if (below >= 32) {
      r += bitmap_popcount(w[i]);
    } else if (below > 0) {
      r += bitmap_popcount(w[i] & ((1u << below) - 1u));
    }
  }
  return r;
}

/// Bit k (k < n).
SIMLOD_HD std::uint32_t bitmap_get(const RankBitmapView& v, std::uint64_t k) {
  return (v.words[k >> 5] >> (k & 31u)) & 1u;
}

}  // namespace detail
}  // namespace simlod
