// The packed Fenwick tree (simlod/fenwick.hpp) as SIMLOD_HD functions, so that host code and
// CUDA kernels read and query it alike.
//
// Layout (0-based Fenwick tree): entry k holds the sum of elements (k & (k + 1)) .. k. Its level
// t is the number of trailing one bits of k; it covers 2^t elements and is b + t bits wide.
// Level t holds the entries k = (p << (t + 1)) | (2^t - 1), p = 0, 1, ..., floor((N + 2^t) /
// 2^(t + 1)) of them, packed tightly, entry p at bit p * (b + t) of the level; each level starts
// on a 32-bit word. Words are little-endian bit order: bit i of a level is bit i % 32 of its
// word i / 32. Two zero words follow the last level, so that an entry is always read from three
// whole words.
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

namespace simlod::detail {

/// Levels a tree of up to 2^32 elements can have (t = 0 .. 32).
inline constexpr std::uint32_t kFenwickMaxLevels = 33;
/// Zero words after the last level.
inline constexpr std::uint64_t kFenwickPadWords = 2;

/// Where each level lies: trivially copyable, for kernels too.
struct FenwickLayout {
  std::uint64_t n = 0;
  std::uint32_t bits = 0;    ///< b, 1 .. 32
  std::uint32_t levels = 0;  ///< levels that hold entries
  /// Word offset of each level; first_word[levels] = the words of all levels (padding not
  /// counted).
  std::uint64_t first_word[kFenwickMaxLevels + 1] = {};
};

/// Entries of level t: floor((N + 2^t) / 2^(t + 1)).
SIMLOD_HD constexpr std::uint64_t fenwick_level_entries(std::uint64_t n, std::uint32_t t) {
  return (n + (std::uint64_t{1} << t)) >> (t + 1);
}

/// The layout of N elements of b bits (n <= 2^32, 1 <= b <= 32; checked by the caller).
SIMLOD_HD constexpr FenwickLayout fenwick_layout(std::uint64_t n, std::uint32_t bits) {
  FenwickLayout l;
  l.n = n;
  l.bits = bits;
  std::uint64_t word = 0;
  std::uint32_t t = 0;
  for (; t < kFenwickMaxLevels; ++t) {
    const std::uint64_t entries = fenwick_level_entries(n, t);
    if (entries == 0) break;
    l.first_word[t] = word;
    word += (entries * (bits + t) + 31) / 32;
  }
  l.levels = t;
  l.first_word[t] = word;
  return l;
}

SIMLOD_HD std::uint32_t fenwick_trailing_ones(std::uint64_t k) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffsll(static_cast<long long>(~k)) - 1);
#else
  return static_cast<std::uint32_t>(std::countr_one(k));
#endif
}

/// Level and bit position (within all words) of entry k.
SIMLOD_HD void fenwick_locate(const FenwickLayout& l, std::uint64_t k, std::uint32_t& width,
                              std::uint64_t& bit) {
  const std::uint32_t t = fenwick_trailing_ones(k);
  width = l.bits + t;
  bit = l.first_word[t] * 32 + (k >> (t + 1)) * width;
}

/// Entry k (k < n): the sum of elements (k & (k + 1)) .. k.
SIMLOD_HD std::uint64_t fenwick_entry(const std::uint32_t* words, const FenwickLayout& l,
                                      std::uint64_t k) {
  std::uint32_t width = 0;
  std::uint64_t bit = 0;
  fenwick_locate(l, k, width, bit);
  const std::uint64_t w = bit >> 5;
  const std::uint32_t off = static_cast<std::uint32_t>(bit & 31u);
  const std::uint64_t lo = std::uint64_t{words[w]} | (std::uint64_t{words[w + 1]} << 32);
  std::uint64_t v = lo >> off;
  if (off != 0) v |= std::uint64_t{words[w + 2]} << (64 - off);
  return width >= 64 ? v : v & ((std::uint64_t{1} << width) - 1);
}

/// The sum of elements 0 .. k - 1 (k <= n): at most log2 N + 1 entries.
SIMLOD_HD std::uint64_t fenwick_prefix(const std::uint32_t* words, const FenwickLayout& l,
                                       std::uint64_t k) {
  std::uint64_t sum = 0;
  while (k > 0) {
    sum += fenwick_entry(words, l, k - 1);
    k &= k - 1;  // entry k - 1 covered (k - 1) & k .. k - 1: the rest is that long
  }
  return sum;
}

/// Element k (k < n): entry k less the entries that cover (k & (k + 1)) .. k - 1; about two
/// entries on average.
SIMLOD_HD std::uint64_t fenwick_value(const std::uint32_t* words, const FenwickLayout& l,
                                      std::uint64_t k) {
  std::uint64_t a = fenwick_entry(words, l, k);
  const std::uint64_t low = k & (k + 1);
  for (std::uint64_t j = k; j > low; j &= j - 1) a -= fenwick_entry(words, l, j - 1);
  return a;
}

/// Writes `value` (below 2^width) as entry k; the other bits stay.
SIMLOD_HD void fenwick_store(std::uint32_t* words, const FenwickLayout& l, std::uint64_t k,
                             std::uint64_t value) {
  std::uint32_t width = 0;
  std::uint64_t bit = 0;
  fenwick_locate(l, k, width, bit);
  for (std::uint32_t done = 0; done < width;) {
    const std::uint64_t w = (bit + done) >> 5;
    const std::uint32_t off = static_cast<std::uint32_t>((bit + done) & 31u);
    const std::uint32_t take = (32 - off) < (width - done) ? 32 - off : width - done;
    const std::uint32_t mask = (take == 32 ? 0xFFFFFFFFu : ((1u << take) - 1u)) << off;
    const auto part = static_cast<std::uint32_t>(value >> done) << off;
    words[w] = (words[w] & ~mask) | (part & mask);
    done += take;
  }
}

}  // namespace simlod::detail
