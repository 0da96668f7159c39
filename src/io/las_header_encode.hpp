// Encodes the public header of the LAS files simlod writes: any point format, with the header
// fields of a LasMetadata (or simlod's own: LAS 1.2 for formats 0-5, 1.4 for 6-10), counts by
// return and the positions of the VLRs and extended VLRs. The LAZ writer reuses it to patch
// counts and bounds into the header that LASzip wrote.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/io.hpp"

namespace simlod::detail {

struct LasHeaderFields {
  int point_format = 2;
  std::uint16_t record_length = 0;  ///< 0: the format's minimum
  std::uint64_t point_count = 0;
  /// Points of return number 1..15 (index 0..14).
  std::array<std::uint64_t, 15> by_return{};
  std::array<double, 3> scale{0.001, 0.001, 0.001};
  std::array<double, 3> offset{0.0, 0.0, 0.0};
  Bounds bounds;                          ///< of the written coordinates; empty: zeros
  const LasMetadata* metadata = nullptr;  ///< header fields to keep; null: simlod's
  std::uint32_t vlr_count = 0;
  std::uint64_t vlr_bytes = 0;   ///< VLRs between the header and the points
  std::uint64_t evlr_start = 0;  ///< byte offset of the first extended VLR (0: none)
  std::uint32_t evlr_count = 0;
  std::uint64_t waveform_start = 0;  ///< byte offset of the waveform data packet record (0: none)
};

/// LAS 1.x minor version of a header: the metadata's, raised to 4 where the point format
/// (6-10) or extended VLRs need it; without metadata 2 (formats 0-5) or 4.
[[nodiscard]] std::uint8_t las_version_minor(const LasHeaderFields& fields);

/// Header size of a LAS 1.x version: 227 bytes (1.0-1.2), 235 (1.3), 375 (1.4).
[[nodiscard]] constexpr std::uint16_t las_header_size_of_version(std::uint8_t minor) {
  return minor >= 4 ? 375 : minor == 3 ? 235 : 227;
}

/// The smallest record length of a point format (no extra bytes).
[[nodiscard]] std::uint16_t las_record_length(int point_format);

/// The complete header (its version's size) with offset to point data = header size +
/// vlr_bytes.
[[nodiscard]] std::vector<std::byte> encode_las_header(const LasHeaderFields& fields);

/// Byte ranges [begin, end) of the header fields that the LAZ writer patches into the header
/// LASzip wrote: creation date, legacy counts, bounds and (LAS 1.3/1.4) the waveform and
/// extended VLR positions and 64-bit counts.
struct ByteRange {
  std::size_t begin;
  std::size_t end;
};
[[nodiscard]] std::vector<ByteRange> las_patched_ranges(std::uint8_t version_minor);

}  // namespace simlod::detail
