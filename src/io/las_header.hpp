// The LAS public header block (LAS 1.0-1.4), parsed and validated. LAZ files share it.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "io/file.hpp"
#include "simlod/bounds.hpp"

namespace simlod::detail {

struct LasHeader {
  std::uint8_t version_major = 1;
  std::uint8_t version_minor = 2;
  std::uint16_t header_size = 0;
  std::uint32_t offset_to_point_data = 0;
  std::uint32_t vlr_count = 0;
  int point_format = 0;     ///< 0-10, compression bits removed
  bool compressed = false;  ///< bit 7 or 6 of the format byte is set (LAZ)
  std::uint16_t record_length = 0;
  std::uint64_t point_count = 0;
  std::uint64_t point_count_offset = 107;  ///< byte offset of the count used (for messages)
  std::array<double, 3> scale{1.0, 1.0, 1.0};
  std::array<double, 3> offset{0.0, 0.0, 0.0};
  Bounds bounds;
  std::string generator;  ///< generating software, trailing NULs and spaces removed
  /// Where point records must end: the start of the extended VLRs (LAS 1.4) or the file end.
  std::uint64_t point_data_end = 0;
};

/// Reads and validates the header of `file`: signature, version, header size, point format,
/// record length, offset to point data, scale and bounds (a count of 0 is valid). Throws
/// InvalidInput naming the file and byte offset of the offending field.
[[nodiscard]] LasHeader read_las_header(const InputFile& file);

/// Uncompressed files only: checks that the file holds all declared point records. Throws
/// InvalidInput saying how many points the file can hold.
void check_las_point_data_size(const InputFile& file, const LasHeader& header);

}  // namespace simlod::detail
