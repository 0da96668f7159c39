// PLY header model and parser (http://paulbourke.net/dataformats/ply/): the element and
// property declarations that the vertex decoders need, plus where the data starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/file.hpp"

namespace simlod::detail {

/// PLY scalar types; both spellings map here (char = int8, uchar = uint8, ..., double = float64).
enum class PlyType : std::uint8_t { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

[[nodiscard]] std::size_t ply_type_size(PlyType type);
[[nodiscard]] const char* ply_type_name(PlyType type);

struct PlyProperty {
  std::string name;
  PlyType type = PlyType::Float32;    ///< value type (item type for a list)
  std::optional<PlyType> list_count;  ///< set for "property list <count type> <item type> name"
};

struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;

  [[nodiscard]] const PlyProperty* first_list() const;
  /// Bytes per binary record; only meaningful when first_list() is null.
  [[nodiscard]] std::uint64_t record_bytes() const;
};

enum class PlyEncoding { Ascii, BinaryLittleEndian };

struct PlyHeader {
  PlyEncoding encoding = PlyEncoding::Ascii;
  std::string format;  ///< "ascii 1.0" or "binary_little_endian 1.0"
  std::vector<PlyElement> elements;
  std::string comment;            ///< the first comment line (often names the writing program)
  std::uint64_t data_offset = 0;  ///< first byte after the end_header line
  std::uint64_t line_count = 0;   ///< header lines including end_header (ASCII data follows)
};

/// Parses the header; throws InvalidInput naming the file and header line for anything that
/// is not PLY 1.0, or that is big-endian binary (unsupported).
[[nodiscard]] PlyHeader read_ply_header(const InputFile& file);

}  // namespace simlod::detail
