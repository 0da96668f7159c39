// Random element values of a given width, for the FenwickIndex tests (CPU and GPU).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace simlod::test {

/// `n` values below 2^bits from a fixed seed.
inline std::vector<std::uint32_t> random_values(std::uint64_t n, std::uint32_t bits,
                                                std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> v(n);
  const std::uint64_t mask = bits == 32 ? 0xFFFFFFFFu : (std::uint64_t{1} << bits) - 1;
  for (auto& x : v) x = static_cast<std::uint32_t>(rng() & mask);
  return v;
}

}  // namespace simlod::test
