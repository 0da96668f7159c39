// The chunk table of a LAZ file, decoded here rather than trusted to LASzip: its entries are
// arithmetic-coded (LASzip's ArithmeticDecoder and IntegerCompressor, 32 bits, 2 contexts), and
// LASzip decodes them with table look-ups that leave their arrays on a damaged table (a fuzzed
// file crashed it there). This decoder follows the same arithmetic bit for bit, with every
// read bounds-checked, so that a table it accepts is one LASzip decodes safely to the same
// entries; those then let the reader check every chunk before LASzip opens it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace simlod::detail {

struct LazChunkEntries {
  std::vector<std::uint32_t> bytes;   ///< compressed bytes per chunk
  std::vector<std::uint32_t> points;  ///< points per chunk (variable-size chunks only)
};

/// Decodes `chunks` entries from the coded bytes that follow the table's 8-byte head;
/// `variable` = variable-size chunks (a point count precedes each byte count). nullopt when the
/// bytes cannot be a table: an arithmetic decoder state no encoder makes (the first four bytes
/// all ones), or entries that need more bytes than `coded` holds.
[[nodiscard]] std::optional<LazChunkEntries> decode_laz_chunk_table(
    std::span<const std::byte> coded, std::uint32_t chunks, bool variable);

/// Whether an arithmetic decoder started on `four` bytes (big-endian) is in a state that only
/// a damaged stream gives: LASzip's decoders index their tables out of bounds from there.
[[nodiscard]] bool arithmetic_start_is_damaged(std::span<const std::byte, 4> four);

}  // namespace simlod::detail
