// Attribute channels of the octree store (OctreeConfig::channels): the chosen attributes of
// every sample, packed into one record beside the sample. Written once for host code and
// kernels (SIMLOD_HD).
//
// Record layout: the attributes of the mask in order of decreasing width (GPS time 8 bytes;
// scan angle 4; intensity, point source id, NIR 2; the one-byte attributes), ties in enum
// order, each at its natural alignment; the record is padded to a multiple of 4 bytes (8 with
// GPS time), so that a chunk of records keeps every field aligned. Values are little-endian,
// as the attributes' own types (scan angle a float, GPS time a double).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "simlod/attributes.hpp"
#include "simlod/detail/hd.hpp"

namespace simlod::detail {

/// Bytes an attribute takes in a record.
SIMLOD_HD constexpr std::uint32_t attribute_width(Attribute a) {
  switch (a) {
    case Attribute::GpsTime: return 8;
    case Attribute::ScanAngle: return 4;
    case Attribute::Intensity:
    case Attribute::PointSourceId:
    case Attribute::Nir: return 2;
    default: return 1;
  }
}

/// "No such field" in ChannelLayout::offset.
inline constexpr std::uint8_t kNoChannel = 0xFF;

struct ChannelLayout {
  AttributeMask mask = 0;
  std::uint32_t record_bytes = 0;  ///< bytes per sample; 0 = no channels
  /// Byte offset of each attribute in the record (enum order), kNoChannel where absent.
  std::array<std::uint8_t, kAttributeCount> offset{kNoChannel, kNoChannel, kNoChannel, kNoChannel,
                                                   kNoChannel, kNoChannel, kNoChannel, kNoChannel,
                                                   kNoChannel, kNoChannel, kNoChannel, kNoChannel};

  [[nodiscard]] constexpr bool has(Attribute a) const {
    return offset[static_cast<std::size_t>(a)] != kNoChannel;
  }
  [[nodiscard]] constexpr std::uint32_t offset_of(Attribute a) const {
    return offset[static_cast<std::size_t>(a)];
  }
};

/// The layout of the attributes in `mask` (bits beyond kAllAttributes are ignored).
[[nodiscard]] constexpr ChannelLayout channel_layout(AttributeMask mask) {
  ChannelLayout l;
  l.mask = mask & kAllAttributes;
  std::uint32_t at = 0;
  for (std::uint32_t width = 8; width >= 1; width /= 2) {
    for (std::size_t i = 0; i < kAttributeCount; ++i) {
      const auto a = static_cast<Attribute>(i);
      if (!has_attribute(l.mask, a) || attribute_width(a) != width) continue;
      l.offset[i] = static_cast<std::uint8_t>(at);
      at += width;
    }
  }
  const std::uint32_t align = has_attribute(l.mask, Attribute::GpsTime) ? 8 : 4;
  l.record_bytes = (at + align - 1) / align * align;
  return l;
}

/// The value of an integer attribute of at most 4 bytes (intensity, classification, returns,
/// source id, ...) at byte `offset` of a record, widened to 32 bits.
SIMLOD_HD std::uint32_t channel_uint(const std::uint8_t* record, std::uint32_t offset,
                                     std::uint32_t width) {
  if (width == 1) return record[offset];
  std::uint16_t v = 0;
  std::memcpy(&v, record + offset, sizeof v);
  return v;
}

}  // namespace simlod::detail
