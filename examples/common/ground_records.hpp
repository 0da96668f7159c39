// simlod-ground's edits of LAS records: the classification, and the height above ground as
// an extra-bytes field appended to every record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "simlod/io.hpp"
#include "simlod/terrain.hpp"

namespace simlod::examples {

/// The classification of a LAS record of `format` (0-5: 5 bits beside three flags; 6-10: a
/// byte).
[[nodiscard]] std::uint8_t get_class(const std::byte* record, int format);
void set_class(std::byte* record, int format, std::uint8_t cls);
/// Its classification flags as PointAttributes holds them: bit 0 synthetic, 1 key-point,
/// 2 withheld, 3 overlap (formats 6-10 only).
[[nodiscard]] std::uint8_t get_class_flags(const std::byte* record, int format);

/// The new class of a point: skipped (noise, withheld) points keep theirs; ground 2; the rest
/// 1, or with `keep` their own class where it says more than "unclassified / ground" (> 2).
[[nodiscard]] std::uint8_t new_class(bool skipped, bool ground, std::uint8_t old, bool keep);

/// Bytes of the extra-bytes fields `vlr` describes (LAS 1.4 R15 table 24: types 1-10, or 0
/// with the size in its options byte); nullopt for the deprecated array types.
[[nodiscard]] std::optional<std::size_t> described_extra_bytes(const LasVlr& vlr);

/// Height above `dtm` of every point (kRasterNodata where the DTM has none).
[[nodiscard]] std::vector<float> heights_above(std::span<const Point> points,
                                               const terrain::Raster& dtm);

inline constexpr const char* kHagName = "height above ground";
inline constexpr const char* kHagDescription = "z - DTM (simlod-ground)";

/// `records` (`count` of `length` bytes, point format `format`, from `path`) with the heights
/// appended as a float; the field is described in the extra-bytes VLR of `metadata` (added
/// where it has none) and the new record length returned in `new_length`. Throws InvalidInput
/// where the records' extra bytes are not all described field by field, or where the records
/// would exceed 65,535 bytes.
[[nodiscard]] std::vector<std::byte> with_heights(std::span<const std::byte> records,
                                                  std::size_t count, std::size_t length, int format,
                                                  const std::vector<float>& heights,
                                                  LasMetadata& metadata, const std::string& path,
                                                  std::size_t& new_length);

}  // namespace simlod::examples
