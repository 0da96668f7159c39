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
#include "simlod/detail/sampling.hpp"

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

/// Sampling::Average with attribute channels: intensity and NIR take the mean of the points
/// below the cell (exact integer sums, rounded half up as colours are), classification the
/// mode (the class of the most points, ties to the smaller class), and every other attribute
/// that of the point Sampling::Random would pick (detail/sampling.hpp), so that the voxel's
/// return number, GPS time, ... belong to one measured point.
///
/// The mode is kept as one monotone word per voxel: a class's count below the cell only grows,
/// and the word max(count << 8 | (255 - class)) over the classes names the mode.
SIMLOD_HD constexpr std::uint64_t mode_word(std::uint64_t count, std::uint32_t cls) {
  return count << 8 | (255u - cls);
}
SIMLOD_HD constexpr std::uint32_t mode_class(std::uint64_t word) {
  return 255u - static_cast<std::uint32_t>(word & 0xFFu);
}

/// What a point's channel record brings to a voxel index's fold (both backends): its
/// record_digest() (Random's tie-break) and, when the voxels keep means and a mode
/// (`averages`: Average's or Weighted's channels), its intensity, NIR and class (0 where the
/// layout lacks one).
struct RecordExtras {
  std::uint32_t digest = 0, intensity = 0, nir = 0, cls = 0;
};
SIMLOD_HD RecordExtras record_extras(const std::uint8_t* record, const ChannelLayout& l,
                                     bool averages) {
  RecordExtras e;
  e.digest = record_digest(record, l.record_bytes);
  if (!averages) return e;
  if (l.has(Attribute::Intensity))
    e.intensity = channel_uint(record, l.offset_of(Attribute::Intensity), 2);
  if (l.has(Attribute::Nir)) e.nir = channel_uint(record, l.offset_of(Attribute::Nir), 2);
  if (l.has(Attribute::Classification)) e.cls = record[l.offset_of(Attribute::Classification)];
  return e;
}

/// sum / count rounded half up (count > 0).
SIMLOD_HD constexpr std::uint64_t mean_half_up(std::uint64_t sum, std::uint64_t count) {
  return (sum + count / 2) / count;
}

/// Writes the averaged fields of a voxel's record (Sampling::Average): the means of intensity
/// and NIR from their sums over `count` points, the class of `mode` (mode_word(); 0 = no
/// point). Fields the layout lacks are skipped.
SIMLOD_HD void write_average_fields(std::uint8_t* record, const ChannelLayout& l,
                                    std::uint64_t intensity, std::uint64_t nir, std::uint64_t count,
                                    std::uint64_t mode) {
  if (count == 0) return;
  const auto put16 = [&](Attribute a, std::uint64_t sum) {
    if (!l.has(a)) return;
    const auto v = static_cast<std::uint16_t>(mean_half_up(sum, count));
    std::memcpy(record + l.offset_of(a), &v, sizeof v);
  };
  put16(Attribute::Intensity, intensity);
  put16(Attribute::Nir, nir);
  if (l.has(Attribute::Classification) && mode != 0) {
    record[l.offset_of(Attribute::Classification)] = static_cast<std::uint8_t>(mode_class(mode));
  }
}

}  // namespace simlod::detail
