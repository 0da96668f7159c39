// How many samples a chunk holds when they are stored as structure of arrays with their
// channel records after them (compact voxels, detail/voxel_codec.hpp; quantised points,
// detail/point_codec.hpp).
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"

namespace simlod::detail {

/// `bytes` rounded up to a multiple of 16.
SIMLOD_HD constexpr std::uint64_t pad16(std::uint64_t bytes) { return (bytes + 15) / 16 * 16; }

/// The largest number of samples of `each` bytes, followed by their records of `record_bytes`
/// each at a multiple of 16, that fit in `bytes`; at least 1 (when one fits).
SIMLOD_HD constexpr std::uint64_t samples_that_fit(std::uint64_t bytes, std::uint32_t each,
                                                   std::uint32_t record_bytes) {
  std::uint64_t c = bytes / (each + record_bytes);
  while (c > 1 && pad16(c * each) + c * record_bytes > bytes) --c;
  return c;
}

}  // namespace simlod::detail
