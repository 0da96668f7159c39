// Encodes the public header of the LAS files simlod writes (point format 2 as LAS 1.2, point
// format 7 as LAS 1.4; no VLRs). The LAZ writer reuses it to patch counts and bounds into the
// header that LASzip wrote.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "simlod/bounds.hpp"

namespace simlod::detail {

struct LasHeaderFields {
  int point_format = 2;  ///< 2 or 7
  std::uint64_t point_count = 0;
  std::array<double, 3> scale{0.001, 0.001, 0.001};
  std::array<double, 3> offset{0.0, 0.0, 0.0};
  Bounds bounds;  ///< of the written coordinates; empty: zeros
};

/// Header size of the files simlod writes: 227 bytes (LAS 1.2) or 375 bytes (LAS 1.4).
[[nodiscard]] constexpr std::uint16_t las_header_size(int point_format) {
  return point_format > 5 ? 375 : 227;
}

/// Record length of the written point formats (the format minimum: no extra bytes).
[[nodiscard]] constexpr std::uint16_t las_record_length(int point_format) {
  return point_format == 7 ? 36 : 26;
}

/// The complete header (las_header_size bytes) with offset to point data = header size.
[[nodiscard]] std::vector<std::byte> encode_las_header(const LasHeaderFields& fields);

/// Byte ranges [begin, end) of the header fields that the LAZ writer patches into the header
/// LASzip wrote: creation date, legacy counts, bounds and (LAS 1.4) 64-bit counts.
struct ByteRange {
  std::size_t begin;
  std::size_t end;
};
[[nodiscard]] std::vector<ByteRange> las_patched_ranges(int point_format);

}  // namespace simlod::detail
