// Pair (i, j), i < j < n, from its index in a triangle of unordered pairs (the inverse of
// detail::pair_index): the row from the quadratic formula in double, corrected by whole rows.
#pragma once

#include <cstdint>

namespace simlod::detail::cuda {

__device__ inline std::uint64_t row_start(std::uint64_t row, std::uint64_t n) {
  return row * (2 * n - row - 1) / 2;
}

__device__ inline void unrank_pair(std::uint64_t idx, std::uint64_t n, std::uint64_t& i,
                                   std::uint64_t& j) {
  const double m = 2.0 * static_cast<double>(n) - 1.0;
  const double disc = m * m - 8.0 * static_cast<double>(idx);
  double guess = (m - sqrt(disc > 0.0 ? disc : 0.0)) / 2.0;
  guess = guess < 0.0 ? 0.0 : guess;
  std::uint64_t r = static_cast<std::uint64_t>(guess);
  if (r > n - 2) r = n - 2;
  while (r > 0 && row_start(r, n) > idx) --r;
  while (r + 1 < n - 1 && row_start(r + 1, n) <= idx) ++r;
  i = r;
  j = idx - row_start(r, n) + r + 1;
}

}  // namespace simlod::detail::cuda
