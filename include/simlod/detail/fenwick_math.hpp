// The packed Fenwick tree (simlod/fenwick.hpp) as SIMLOD_HD functions, so that host code and
// CUDA kernels read and query it alike.
//
// Layout, in d = 1 to 3 dimensions of extents n[0..d-1] (element (x, y, z) at index
// x + n0 (y + n1 z)): entry (k0, k1, k2) holds the sum of the box whose side along axis a runs
// over (ka & (ka + 1)) .. ka. Along axis a its level ta is the number of trailing one bits of
// ka; the entry covers 2^(t0 + t1 + t2) elements and is b + t0 + t1 + t2 bits wide. Along an
// axis of extent n, level t holds floor((n + 2^t) / 2^(t + 1)) entries, pa = ka >> (ta + 1).
// The entries of one level combination (t0, t1, t2) form a block, packed tightly in the order
// p0 + e0 (p1 + e1 p2) (ea: entries of level ta along axis a), at bit pos x width of the block;
// every block starts on a 32-bit word, blocks in the order ((t0 L1) + t1) L2 + t2 (La: levels
// of axis a). Bit i of a block is bit i % 32 of its word i / 32. Two zero words follow the last
// block, so that an entry is always read from three whole words.
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"

#if !defined(__CUDA_ARCH__)
#include <bit>
#endif

namespace simlod::detail {

/// Levels an axis of up to 2^32 elements can have (t = 0 .. 32).
inline constexpr std::uint32_t kFenwickMaxLevels = 33;
/// Zero words after the last block.
inline constexpr std::uint64_t kFenwickPadWords = 2;

/// Where each block lies: trivially copyable, for kernels too. `first_word` points at the
/// table of block offsets (host memory for a CPU index, device memory for a CUDA one): one
/// per level combination, then the words of all blocks (padding not counted).
struct FenwickLayout {
  std::uint32_t dims = 1;
  std::uint32_t bits = 0;               ///< b, 1 .. 32
  std::uint64_t n[3] = {1, 1, 1};       ///< extents (1 past the dimensions used)
  std::uint32_t levels[3] = {1, 1, 1};  ///< levels of each axis that hold entries
  const std::uint64_t* first_word = nullptr;
  std::uint64_t total = 1;  ///< elements: n0 n1 n2
};

/// Entries of level t along an axis of extent n: floor((n + 2^t) / 2^(t + 1)).
SIMLOD_HD constexpr std::uint64_t fenwick_level_entries(std::uint64_t n, std::uint32_t t) {
  return (n + (std::uint64_t{1} << t)) >> (t + 1);
}

/// Levels of an axis of extent n >= 1.
SIMLOD_HD constexpr std::uint32_t fenwick_levels(std::uint64_t n) {
  std::uint32_t t = 0;
  while (t < kFenwickMaxLevels && fenwick_level_entries(n, t) > 0) ++t;
  return t;
}

/// Level combinations of a layout (entries of its first_word table, less one).
SIMLOD_HD constexpr std::uint64_t fenwick_combos(const FenwickLayout& l) {
  return std::uint64_t{l.levels[0]} * l.levels[1] * l.levels[2];
}

/// Fills `table` (fenwick_combos(l) + 1 entries) with the block offsets of `l` (whose dims,
/// bits, n and levels are set).
SIMLOD_HD void fenwick_fill_table(const FenwickLayout& l, std::uint64_t* table) {
  std::uint64_t word = 0, c = 0;
  for (std::uint32_t t0 = 0; t0 < l.levels[0]; ++t0) {
    for (std::uint32_t t1 = 0; t1 < l.levels[1]; ++t1) {
      for (std::uint32_t t2 = 0; t2 < l.levels[2]; ++t2, ++c) {
        table[c] = word;
        const std::uint64_t entries = fenwick_level_entries(l.n[0], t0) *
                                      fenwick_level_entries(l.n[1], t1) *
                                      fenwick_level_entries(l.n[2], t2);
        word += (entries * (l.bits + t0 + t1 + t2) + 31) / 32;
      }
    }
  }
  table[c] = word;
}

SIMLOD_HD std::uint32_t fenwick_trailing_ones(std::uint64_t k) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffsll(static_cast<long long>(~k)) - 1);
#else
  return static_cast<std::uint32_t>(std::countr_one(k));
#endif
}

/// Width and bit position (within all words) of entry k (k[a] < n[a] for the axes used; the
/// others 0).
SIMLOD_HD void fenwick_locate(const FenwickLayout& l, const std::uint64_t* k, std::uint32_t& width,
                              std::uint64_t& bit) {
  if (l.dims == 1) {  // the common case: no strides
    const std::uint32_t t = fenwick_trailing_ones(k[0]);
    width = l.bits + t;
    bit = l.first_word[t] * 32 + (k[0] >> (t + 1)) * width;
    return;
  }
  std::uint64_t combo = 0, pos = 0, stride = 1;
  width = l.bits;
  for (std::uint32_t a = 0; a < 3; ++a) {
    const std::uint32_t t = a < l.dims ? fenwick_trailing_ones(k[a]) : 0;
    combo = combo * l.levels[a] + t;
    width += t;
    pos += (a < l.dims ? k[a] >> (t + 1) : 0) * stride;
    stride *= fenwick_level_entries(l.n[a], t);
  }
  bit = l.first_word[combo] * 32 + pos * width;
}

SIMLOD_HD std::uint32_t fenwick_trailing_zeros(std::uint64_t k) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffsll(static_cast<long long>(k)) - 1);
#else
  return static_cast<std::uint32_t>(std::countr_zero(k));
#endif
}

/// Entry p of level t of a one-dimensional tree of b-bit elements whose block table is
/// `first_word` (the entry is b + t bits wide; it ends at element p 2^(t+1) + 2^t - 1). Reads
/// two words, a third only when the entry reaches into it.
SIMLOD_HD std::uint64_t fenwick_entry_1d(const std::uint32_t* words,
                                         const std::uint64_t* first_word, std::uint32_t bits,
                                         std::uint32_t t, std::uint64_t p) {
  const std::uint32_t width = bits + t;
  const std::uint64_t bit = first_word[t] * 32 + p * width;
  const std::uint64_t w = bit >> 5;
  const std::uint32_t off = static_cast<std::uint32_t>(bit & 31u);
  std::uint64_t v = (std::uint64_t{words[w]} | (std::uint64_t{words[w + 1]} << 32)) >> off;
  if (off + width > 64) v |= std::uint64_t{words[w + 2]} << (64 - off);
  return width >= 64 ? v : v & ((std::uint64_t{1} << width) - 1);
}

/// Elements 0 .. k - 1 of a one-dimensional tree: for every set bit t of k, entry k >> (t + 1)
/// of level t (the classic loop's entries i - 1, i = k, k & (k - 1), ...: no entry depends on
/// another, so their loads can all be in flight at once).
SIMLOD_HD std::uint64_t fenwick_prefix_1d(const std::uint32_t* words,
                                          const std::uint64_t* first_word, std::uint32_t bits,
                                          std::uint64_t k) {
  std::uint64_t sum = 0;
  for (std::uint64_t m = k; m != 0; m &= m - 1) {
    const std::uint32_t t = fenwick_trailing_zeros(m);
    sum += fenwick_entry_1d(words, first_word, bits, t, k >> (t + 1));
  }
  return sum;
}

/// Element k of a one-dimensional tree: its entry (level t, the trailing ones of k) less the
/// entries it sums besides element k, k - 2^j for j < t, which lie on level j at k >> (j + 1).
SIMLOD_HD std::uint64_t fenwick_value_1d(const std::uint32_t* words,
                                         const std::uint64_t* first_word, std::uint32_t bits,
                                         std::uint64_t k) {
  const std::uint32_t t = fenwick_trailing_ones(k);
  std::uint64_t a = fenwick_entry_1d(words, first_word, bits, t, k >> (t + 1));
  for (std::uint32_t j = 0; j < t; ++j) {
    a -= fenwick_entry_1d(words, first_word, bits, j, k >> (j + 1));
  }
  return a;
}

/// Entry k: the sum of the box it covers.
SIMLOD_HD std::uint64_t fenwick_entry(const std::uint32_t* words, const FenwickLayout& l,
                                      const std::uint64_t* k) {
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

/// Entry k of a one-dimensional tree.
SIMLOD_HD std::uint64_t fenwick_entry(const std::uint32_t* words, const FenwickLayout& l,
                                      std::uint64_t k) {
  const std::uint64_t key[3] = {k, 0, 0};
  return fenwick_entry(words, l, key);
}

/// The sum of the box [0, k0) x [0, k1) x [0, k2) (ka <= n[a]): log2 n entries per axis.
SIMLOD_HD std::uint64_t fenwick_prefix(const std::uint32_t* words, const FenwickLayout& l,
                                       const std::uint64_t* k) {
  std::uint64_t sum = 0;
  if (l.dims == 1) {  // measured: the general loops cost rank queries a third of their rate
    return fenwick_prefix_1d(words, l.first_word, l.bits, k[0]);
  }
  const std::uint64_t k1_end = l.dims > 1 ? k[1] : 1, k2_end = l.dims > 2 ? k[2] : 1;
  // An entry k - 1 covers (k - 1) & k .. k - 1: the rest of the prefix is (k - 1) & k long.
  for (std::uint64_t i0 = k[0]; i0 > 0; i0 &= i0 - 1) {
    for (std::uint64_t i1 = k1_end; i1 > 0; i1 &= i1 - 1) {
      for (std::uint64_t i2 = k2_end; i2 > 0; i2 &= i2 - 1) {
        const std::uint64_t key[3] = {i0 - 1, l.dims > 1 ? i1 - 1 : 0, l.dims > 2 ? i2 - 1 : 0};
        sum += fenwick_entry(words, l, key);
      }
    }
  }
  return sum;
}

/// The sum of elements 0 .. k - 1 of a one-dimensional tree (k <= n).
SIMLOD_HD std::uint64_t fenwick_prefix(const std::uint32_t* words, const FenwickLayout& l,
                                       std::uint64_t k) {
  const std::uint64_t key[3] = {k, 0, 0};
  return fenwick_prefix(words, l, key);
}

/// Element k: along every axis, entry ka less the entries that cover (ka & (ka + 1)) .. ka - 1,
/// multiplied out over the axes (about 2^d entries on average).
SIMLOD_HD std::uint64_t fenwick_value(const std::uint32_t* words, const FenwickLayout& l,
                                      const std::uint64_t* k) {
  if (l.dims == 1) return fenwick_value_1d(words, l.first_word, l.bits, k[0]);
  // Terms along each axis: ka itself (+), then j - 1 for j = ka, ka & (ka - 1), ... > low (-).
  std::uint64_t key[3][kFenwickMaxLevels + 1] = {};
  std::uint32_t count[3] = {1, 1, 1};
  for (std::uint32_t a = 0; a < l.dims; ++a) {
    key[a][0] = k[a];
    const std::uint64_t low = k[a] & (k[a] + 1);
    for (std::uint64_t j = k[a]; j > low; j &= j - 1) key[a][count[a]++] = j - 1;
  }
  std::uint64_t sum = 0;  // modulo 2^64: the exact value once all terms are in
  for (std::uint32_t i0 = 0; i0 < count[0]; ++i0) {
    for (std::uint32_t i1 = 0; i1 < count[1]; ++i1) {
      for (std::uint32_t i2 = 0; i2 < count[2]; ++i2) {
        const std::uint64_t at[3] = {key[0][i0], key[1][i1], key[2][i2]};
        const std::uint64_t e = fenwick_entry(words, l, at);
        sum += ((i0 != 0) != (i1 != 0)) != (i2 != 0) ? 0 - e : e;
      }
    }
  }
  return sum;
}

/// The sum over the box whose sides run over [lo[a], hi[a]) on the axes used, from a function
/// giving the sum over [0, c) (c: 3 coordinates): 2^dims terms of inclusion and exclusion.
template <class Prefix>
SIMLOD_HD std::uint64_t fenwick_box(std::uint32_t dims, const std::uint64_t* lo,
                                    const std::uint64_t* hi, Prefix&& prefix) {
  std::uint64_t sum = 0;
  for (std::uint32_t mask = 0; mask < (1u << dims); ++mask) {
    std::uint64_t c[3] = {0, 0, 0};
    std::uint32_t lows = 0;
    for (std::uint32_t a = 0; a < dims; ++a) {
      const bool low = (mask >> a & 1u) != 0;
      c[a] = low ? lo[a] : hi[a];
      lows += low ? 1u : 0u;
    }
    const std::uint64_t v = prefix(c);
    sum += lows % 2 != 0 ? 0 - v : v;
  }
  return sum;
}

/// Element k of a one-dimensional tree.
SIMLOD_HD std::uint64_t fenwick_value(const std::uint32_t* words, const FenwickLayout& l,
                                      std::uint64_t k) {
  const std::uint64_t key[3] = {k, 0, 0};
  return fenwick_value(words, l, key);
}

/// Writes `value` (below 2^width) as entry k; the other bits stay.
SIMLOD_HD void fenwick_store(std::uint32_t* words, const FenwickLayout& l, const std::uint64_t* k,
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

/// Adds `delta` to element k: every entry whose box holds it (log2 n per axis).
SIMLOD_HD void fenwick_add(std::uint32_t* words, const FenwickLayout& l, const std::uint64_t* k,
                           std::int64_t delta) {
  const std::uint64_t end1 = l.dims > 1 ? l.n[1] : 1, end2 = l.dims > 2 ? l.n[2] : 1;
  for (std::uint64_t i0 = k[0]; i0 < l.n[0]; i0 |= i0 + 1) {
    for (std::uint64_t i1 = l.dims > 1 ? k[1] : 0; i1 < end1; i1 |= i1 + 1) {
      for (std::uint64_t i2 = l.dims > 2 ? k[2] : 0; i2 < end2; i2 |= i2 + 1) {
        const std::uint64_t key[3] = {i0, i1, i2};
        fenwick_store(words, l, key,
                      fenwick_entry(words, l, key) + static_cast<std::uint64_t>(delta));
      }
    }
  }
}

}  // namespace simlod::detail
