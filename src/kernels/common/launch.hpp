// Grid sizes of kernel launches.
#pragma once

#include <cstdint>

namespace simlod::detail::cuda {

/// Blocks for a pass over `items` items, at least 1, at most `cap`.
inline unsigned blocks_for(std::uint64_t items, int block, std::uint64_t cap = 1u << 30) {
  const std::uint64_t b = (items + block - 1) / block;
  return static_cast<unsigned>(b == 0 ? 1 : (b < cap ? b : cap));
}

}  // namespace simlod::detail::cuda
