// The CUDA executors of RankBitmap (core/rank_bitmap.cpp calls them in builds with CUDA):
// plain C++ declarations, host spans and opaque device pointers. `ms` receives the device time
// of the kernels (CUDA events, copies to and from the host not counted).
#pragma once

#include <cstddef>
#include <cstdint>

namespace simlod::detail::cuda {

/// Builds the bitmap of n host values (0 or 1) into one new device allocation: the words
/// (bitmap_words(n)), then the counts (bitmap_words(n) / 4). Returns nullptr, having kept
/// nothing, when a value is above 1: `first_bad` names the first (else ~0). Free with
/// fenwick_free.
[[nodiscard]] void* bitmap_build(const std::uint32_t* values, std::uint64_t n,
                                 std::uint64_t& first_bad, double& ms);
/// out[i] = rank(keys[i]) for `count` host keys (checked by the caller).
void bitmap_rank(const void* bitmap, std::uint64_t n, const std::uint64_t* keys, std::uint64_t* out,
                 std::size_t count, double& ms);
/// Every bit in order into host memory (n of them).
void bitmap_values(const void* bitmap, std::uint64_t n, std::uint32_t* out, double& ms);

}  // namespace simlod::detail::cuda
