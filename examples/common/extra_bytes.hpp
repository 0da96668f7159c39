// Extra-bytes descriptions (LAS 1.4 R15, table 24: the VLR "LASF_Spec" 4, 192 bytes a field)
// for the tools that add fields to LAS records: simlod-convert (PLY scalars) and simlod-ground
// (height above ground).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "simlod/io.hpp"

namespace simlod::examples {

inline constexpr std::uint8_t kExtraFloat = 9;
inline constexpr std::uint8_t kExtraDouble = 10;

/// Appends one field's description to `vlr` (made an empty extra-bytes VLR first if it is not
/// one): its data
/// type, its name and description (cut to 32 bytes each) and, when given, its no-data value.
/// Returns true when the name had to be cut.
bool add_extra_bytes_field(LasVlr& vlr, std::string_view name, std::uint8_t type,
                           std::string_view description = {},
                           std::optional<double> no_data = std::nullopt);

/// The extra-bytes VLR of `metadata` (added at the end when it has none).
LasVlr& extra_bytes_vlr(LasMetadata& metadata);

}  // namespace simlod::examples
