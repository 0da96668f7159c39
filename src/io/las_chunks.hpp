// Chunk layout of LAZ files, independent of LASzip: the LASzip VLR (compressor, points per
// chunk) and the split of a batch of points into ranges that decoder threads handle
// independently. Always compiled, so that it is testable in builds without LASzip.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "io/file.hpp"
#include "io/las_header.hpp"

namespace simlod::detail {

/// One entry of the LASzip VLR's item list: what a point record is made of.
struct LaszipItem {
  std::uint16_t type = 0;     ///< 0 BYTE, 6 POINT10, 7 GPSTIME11, 8 RGB12, 9 WAVEPACKET13,
                              ///< 10 POINT14, 11 RGB14, 12 RGBNIR14, 13 WAVEPACKET14, 14 BYTE14
  std::uint16_t size = 0;     ///< bytes of the record it covers
  std::uint16_t version = 0;  ///< of its compression scheme
};

struct LaszipVlr {
  std::uint16_t compressor = 0;  ///< 1 pointwise, 2 pointwise chunked, 3 layered chunked (1.4)
  std::uint32_t chunk_size = 0;  ///< points per chunk; 0xFFFFFFFF: variable-size chunks
  std::uint16_t coder = 0;       ///< 0 arithmetic (the only one)
  std::vector<LaszipItem> items;
  std::uint64_t offset = 0;  ///< byte offset of the VLR's payload in the file
};

/// Finds the VLR with user id "laszip encoded" (record id 22204) among the header's VLRs;
/// nullopt when absent or when the VLR list is malformed (LASzip then reports the error).
[[nodiscard]] std::optional<LaszipVlr> find_laszip_vlr(const InputFile& file,
                                                       const LasHeader& header);

/// Checks the VLR list (count and lengths between the header and the point data) and, for LAS
/// 1.4, the extended VLRs (count and lengths between their start and the end of the file), which
/// LASzip reads and allocates for before anything else. Throws InvalidInput naming the file,
/// the record and its byte offset.
void check_las_vlr_lists(const InputFile& file, const LasHeader& header);

/// Checks everything of the LASzip VLR that LASzip trusts: the compressor against the point
/// format (layered for formats 6-10, pointwise or chunked for 0-5), the coder, and the items
/// (types, sizes and versions) against the point format and the record length, because LASzip
/// reads out of bounds (and crashes) on a VLR that does not fit the points. Throws
/// InvalidInput naming the file, the field and its byte offset.
void check_laszip_vlr(const InputFile& file, const LasHeader& header, const LaszipVlr& vlr);

/// Points per chunk when chunks can be decoded independently at fixed positions; 0 when the
/// file must be decoded sequentially (pointwise or variable-size chunks, or more points than
/// LASzip's 32-bit seek can address).
[[nodiscard]] std::uint64_t laz_parallel_chunk_size(const std::optional<LaszipVlr>& vlr,
                                                    std::uint64_t point_count);

/// What the chunk table of a LAZ file tells its readers.
struct LazChunks {
  /// Points per chunk to decode in parallel (laz_parallel_chunk_size); 0: sequentially.
  std::uint64_t parallel_chunk_size = 0;
  /// Byte offset where the compressed points end (the chunk table's start); 0 when unknown
  /// (no table: pointwise compression, or a writer that stopped before writing it).
  std::uint64_t data_end = 0;
};

/// Checks that the chunk table of a chunked LAZ file is where the file says, that its version
/// is known and that its chunks can hold the declared point count, because LASzip decodes
/// garbage (and can crash) when asked to seek in a truncated file. Throws InvalidInput naming
/// the file and byte offsets.
[[nodiscard]] LazChunks check_laz_chunk_table(const InputFile& file, const LasHeader& header,
                                              const std::optional<LaszipVlr>& vlr);

struct PointRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;  ///< exclusive

  friend bool operator==(const PointRange&, const PointRange&) = default;
};

/// Splits [begin, end) into at most `threads` contiguous ranges of similar size whose inner
/// boundaries are chunk starts (multiples of chunk_size), because LASzip can only start
/// decoding at a chunk start. chunk_size 0 (sequential file) or one thread: one range.
[[nodiscard]] std::vector<PointRange> plan_decode_ranges(std::uint64_t begin, std::uint64_t end,
                                                         std::uint64_t chunk_size,
                                                         unsigned threads);

}  // namespace simlod::detail
