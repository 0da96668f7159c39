// LAS point data formats 0-10: the record layout facts that the LAS and LAZ readers and writers
// share, and the decoding of one record's fields into a simlod::Point.
//
// Every format starts with X, Y, Z (int32 at byte 0, 4, 8) and intensity (uint16 at byte 12).
// Formats 2, 3, 5, 7, 8 and 10 also store red, green, blue as uint16 at kLasRgbOffset.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simlod/point.hpp"

namespace simlod::detail {

static_assert(std::endian::native == std::endian::little,
              "LAS fields are little-endian and are read by memcpy");

/// Reads a little-endian field of type T at `offset` (no alignment needed).
template <class T>
[[nodiscard]] T load_le(const std::byte* bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes + offset, sizeof(T));
  return value;
}

/// Writes a little-endian field of type T at `offset`.
template <class T>
void store_le(std::byte* bytes, std::size_t offset, T value) {
  std::memcpy(bytes + offset, &value, sizeof(T));
}

inline constexpr int kLasMaxPointFormat = 10;

/// Smallest record length of each point format (LAS 1.4 R15, tables 7-17); longer records carry
/// "extra bytes" that simlod skips.
inline constexpr std::array<std::uint16_t, 11> kLasMinRecordLength{20, 28, 26, 34, 57, 63,
                                                                   30, 36, 38, 59, 67};

/// Byte offset of the red field in a record of each format; 0 where the format has no RGB.
inline constexpr std::array<std::uint16_t, 11> kLasRgbOffset{0, 0, 20, 28, 0, 28, 0, 30, 30, 0, 30};

[[nodiscard]] constexpr bool las_format_has_rgb(int point_format) {
  return kLasRgbOffset[static_cast<std::size_t>(point_format)] != 0;
}

/// Colour of points in files without RGB whose sampled intensities are all 0 (no intensity
/// recorded): a mid grey that reads well on both dark and light backgrounds.
inline constexpr std::uint32_t kLasNoColorRgba = pack_rgba(128, 128, 128, 255);

/// Where a point's colour comes from. Many writers store 8-bit values in the 16-bit RGB (and
/// intensity) fields; shifting those right by 8 would turn every point black, so readers sample
/// the file first and pick the 8-bit variant when no sampled value exceeds 255.
enum class ColorSource : std::uint8_t { Rgb16, Rgb8, Intensity16, Intensity8, Fixed };

/// Largest values seen while sampling records, to choose a ColorSource.
struct ColorStats {
  std::uint16_t max_rgb = 0;
  std::uint16_t max_intensity = 0;

  void add(std::uint16_t intensity, std::uint16_t r, std::uint16_t g, std::uint16_t b) {
    max_intensity = std::max(max_intensity, intensity);
    max_rgb = std::max({max_rgb, r, g, b});
  }
  [[nodiscard]] ColorSource source(bool has_rgb) const {
    if (has_rgb) return max_rgb > 255 ? ColorSource::Rgb16 : ColorSource::Rgb8;
    if (max_intensity == 0) return ColorSource::Fixed;
    return max_intensity > 255 ? ColorSource::Intensity16 : ColorSource::Intensity8;
  }
};

/// Turns the raw fields of one record into a Point: coordinates are
/// float(X * scale + offset - origin) evaluated in double, colours follow `color`.
struct PointDecoder {
  std::array<double, 3> scale{1.0, 1.0, 1.0};
  std::array<double, 3> offset{0.0, 0.0, 0.0};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  ColorSource color = ColorSource::Fixed;

  [[nodiscard]] Point operator()(std::int32_t x, std::int32_t y, std::int32_t z,
                                 std::uint16_t intensity, std::uint16_t r, std::uint16_t g,
                                 std::uint16_t b) const {
    Point p;
    p.x = static_cast<float>(static_cast<double>(x) * scale[0] + offset[0] - origin[0]);
    p.y = static_cast<float>(static_cast<double>(y) * scale[1] + offset[1] - origin[1]);
    p.z = static_cast<float>(static_cast<double>(z) * scale[2] + offset[2] - origin[2]);
    switch (color) {
      case ColorSource::Rgb16: p.rgba = pack_rgba(r >> 8, g >> 8, b >> 8); break;
      case ColorSource::Rgb8: p.rgba = pack_rgba(clamp8(r), clamp8(g), clamp8(b)); break;
      case ColorSource::Intensity16: p.rgba = grey(intensity >> 8); break;
      case ColorSource::Intensity8: p.rgba = grey(clamp8(intensity)); break;
      case ColorSource::Fixed: p.rgba = kLasNoColorRgba; break;
    }
    return p;
  }

 private:
  // A value above 255 in a file sampled as 8-bit saturates instead of wrapping around.
  static std::uint32_t clamp8(std::uint32_t v) { return v > 255u ? 255u : v; }
  static std::uint32_t grey(std::uint32_t v) { return pack_rgba(v, v, v); }
};

}  // namespace simlod::detail
