// simlod::Point: the 16-byte sample record used everywhere (also the SIM file record).
//
// Layout (little-endian, 16 bytes, 4-byte aligned):
//   offset  0  float    x   metres (file units) relative to the owner's double origin
//   offset  4  float    y
//   offset  8  float    z
//   offset 12  uint32   rgba  byte 12 = red, 13 = green, 14 = blue, 15 = alpha
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"

namespace simlod {

struct Point {
  float x = 0.0f;
  float y = 0.0f;
  float z = 0.0f;
  std::uint32_t rgba = 0;

  friend constexpr bool operator==(const Point&, const Point&) = default;
};

static_assert(sizeof(Point) == 16, "Point must stay 16 bytes (SIM record, device layout)");

/// Packs 8-bit channels into Point::rgba (red in the lowest byte).
SIMLOD_HD constexpr std::uint32_t pack_rgba(std::uint32_t r, std::uint32_t g, std::uint32_t b,
                                            std::uint32_t a = 255) {
  return (r & 0xFFu) | ((g & 0xFFu) << 8) | ((b & 0xFFu) << 16) | ((a & 0xFFu) << 24);
}
SIMLOD_HD constexpr std::uint32_t red_of(std::uint32_t rgba) { return rgba & 0xFFu; }
SIMLOD_HD constexpr std::uint32_t green_of(std::uint32_t rgba) { return (rgba >> 8) & 0xFFu; }
SIMLOD_HD constexpr std::uint32_t blue_of(std::uint32_t rgba) { return (rgba >> 16) & 0xFFu; }
SIMLOD_HD constexpr std::uint32_t alpha_of(std::uint32_t rgba) { return rgba >> 24; }

}  // namespace simlod
