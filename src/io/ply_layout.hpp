// Where the vertex element keeps x/y/z and colour, and how PLY values become simlod values.
//
// Colour: red/green/blue (or diffuse_red/...) and optional alpha. 8-bit types are taken as is,
// 16-bit types are shifted down by 8, 32-bit integers are clamped to 0..255, and float/double
// are read as 0..1 and scaled. Files without colour get kPlyDefaultColor, a light grey that
// stays visible on dark and light backgrounds and reads as "no colour".
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "io/ply_header.hpp"
#include "simlod/attributes.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

inline constexpr std::uint32_t kPlyDefaultColor = pack_rgba(200, 200, 200, 255);

struct PlyField {
  std::size_t index = 0;  ///< position among the vertex properties (ASCII token index)
  PlyType type = PlyType::Float32;
  std::uint32_t offset = 0;  ///< byte offset inside a binary record
};

/// A vertex property other than x, y, z and colour: an attribute (by its name, see
/// make_vertex_layout) or an extra attribute.
struct PlyScalar {
  PlyField field;
  std::string name;    ///< as the header spells it
  int attribute = -1;  ///< simlod::Attribute, or -1 for an extra attribute
  /// Multiplies the value: 65535 for an intensity stored as float whose values all lie in
  /// [0, 1] (as the Stanford scans store it), else 1. Set by the reader's bounds pass.
  double scale = 1.0;
};

struct PlyVertexLayout {
  std::size_t element = 0;  ///< index of "vertex" in PlyHeader::elements
  std::size_t property_count = 0;
  std::uint32_t record_bytes = 0;  ///< binary record size
  std::array<PlyField, 3> xyz;
  bool has_color = false;
  bool color_16bit = false;
  std::array<PlyField, 3> rgb;
  bool has_alpha = false;
  PlyField alpha;
  std::vector<PlyScalar> scalars;  ///< in property order
};

/// Finds the vertex element and its fields; every other property is a scalar, taken as the
/// attribute its name stands for (any case, an optional "scalar_" prefix as CloudCompare writes:
/// intensity, classification, return_number, number_of_returns, point_source_id, gps_time,
/// user_data, scan_angle or scan_angle_rank, scanner_channel, nir; the first property of each
/// attribute wins) or kept as an extra attribute. Throws InvalidInput naming the file when there is
/// no vertex element, x/y/z are missing, or the vertex element has list properties.
[[nodiscard]] PlyVertexLayout make_vertex_layout(const PlyHeader& header,
                                                 const std::filesystem::path& path);

/// Reads one little-endian binary value as double.
inline double load_ply_value(const std::byte* p, PlyType type) {
  auto load = [p]<class T>(T) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<double>(v);
  };
  switch (type) {
    case PlyType::Int8: return load(std::int8_t{});
    case PlyType::UInt8: return load(std::uint8_t{});
    case PlyType::Int16: return load(std::int16_t{});
    case PlyType::UInt16: return load(std::uint16_t{});
    case PlyType::Int32: return load(std::int32_t{});
    case PlyType::UInt32: return load(std::uint32_t{});
    case PlyType::Float32: return load(float{});
    case PlyType::Float64: return load(double{});
  }
  return 0.0;
}

/// Converts one colour value of the given type to 0..255 (see the rules at the top).
inline std::uint32_t ply_color_channel(PlyType type, double value) {
  double v = value;
  switch (type) {
    case PlyType::Int16:
    case PlyType::UInt16: v = std::floor(value / 256.0); break;
    case PlyType::Float32:
    case PlyType::Float64: v = std::round(std::clamp(value, 0.0, 1.0) * 255.0); break;
    default: break;
  }
  // NaN fails both comparisons and ends up 0.
  return v > 0.0 ? static_cast<std::uint32_t>(std::min(v, 255.0)) : 0u;
}

}  // namespace simlod::detail
