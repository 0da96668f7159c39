// The passes of the CUDA FenwickIndex that kernels/fenwick/fenwick.cu dispatches to: the
// builds (one dimension: build_1d.cu; two and three: build_nd.cu) and the one-dimensional
// queries (query_1d.cu). Device pointers throughout; the calls queue their kernels on the
// default stream (fenwick_keys_1d and fenwick_build_nd wait for their own).
#pragma once

#include <cstddef>
#include <cstdint>

#include "simlod/detail/fenwick_math.hpp"

namespace simlod::detail::cuda {

/// Packs the tree of the n = l.total values at `d_values` into `d_words` (zeroed by the caller,
/// padding included), its levels from `table` (the block table in host memory,
/// l.levels[0] + 1 entries). Each value at or above 2^l.bits lowers `*d_first_bad` (set to ~0
/// by the caller) to its index. `d_sums` is scratch for the sums of 4096-element tiles:
/// fenwick_tile_scratch(n) elements.
void fenwick_build_1d(const std::uint32_t* d_values, const FenwickLayout& l,
                      const std::uint64_t* table, std::uint32_t* d_words,
                      unsigned long long* d_first_bad, std::uint64_t* d_sums);
/// Elements of fenwick_build_1d's scratch for n values.
[[nodiscard]] std::uint64_t fenwick_tile_scratch(std::uint64_t n);

/// The 2D/3D build into `d_words` (words_total of them, padding included): check, prefix
/// sums, pack. False when a value is wider than l.bits: `first_bad` names the first, nothing
/// else is written. `ms` gets the kernels' device time.
[[nodiscard]] bool fenwick_build_nd(const std::uint32_t* d_values, const FenwickLayout& l,
                                    std::uint32_t* d_words, std::uint64_t words_total,
                                    std::uint64_t& first_bad, double& ms);

/// out[i] = prefix(keys[i]) (`prefix`) or value(keys[i]) for n keys of a one-dimensional tree
/// whose layout points at its device block table; `ms` receives the kernel's time.
void fenwick_keys_1d(const std::uint32_t* d_words, const FenwickLayout& l,
                     const std::uint64_t* d_keys, std::uint64_t* d_out, std::size_t n, bool prefix,
                     double& ms);
/// Every element in order (the reconstruction) into d_out (l.total of them).
void fenwick_values_1d(const std::uint32_t* d_words, const FenwickLayout& l, std::uint32_t* d_out);

}  // namespace simlod::detail::cuda
