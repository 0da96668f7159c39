// The colours of attribute values (simlod/coloring.hpp), as SIMLOD_HD functions so that host
// code and CUDA kernels draw an attribute alike.
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

/// Potree's default classification scheme (ClassificationScheme.DEFAULT), its 0..1 values
/// times 255 rounded: grey for never classified (0) and unclassified (1), brown ground,
/// three greens for low, medium and high vegetation, orange buildings, magenta low points
/// (noise), blue water, yellow for 10, 11 and 13-22 (rail, road, wires, tower, bridge deck,
/// high noise, overhead structure, ignored ground, snow, temporal exclusion), and a grey teal
/// for every other class (8, 12, 23-255).
SIMLOD_HD constexpr std::uint32_t classification_rgba(std::uint32_t c) {
  switch (c) {
    case 0:
    case 1: return pack_rgba(128, 128, 128);
    case 2: return pack_rgba(161, 82, 46);
    case 3: return pack_rgba(0, 255, 0);
    case 4: return pack_rgba(0, 204, 0);
    case 5: return pack_rgba(0, 153, 0);
    case 6: return pack_rgba(255, 168, 0);
    case 7: return pack_rgba(255, 0, 255);
    case 9: return pack_rgba(0, 0, 255);
    case 8:
    case 12: return pack_rgba(77, 153, 153);
    default: return c <= 22 ? pack_rgba(255, 255, 0) : pack_rgba(77, 153, 153);
  }
}

/// Return number `ret` of `returns`: single returns (1 of 1, or no count) gold, the first of
/// several red, the last of several blue, those in between green; return number 0 (not
/// recorded) grey. A return number above the count is taken as a last return.
SIMLOD_HD constexpr std::uint32_t returns_rgba(std::uint32_t ret, std::uint32_t returns) {
  if (ret == 0) return pack_rgba(128, 128, 128);
  if (returns <= 1) return pack_rgba(255, 200, 0);
  if (ret == 1) return pack_rgba(228, 26, 28);
  if (ret >= returns) return pack_rgba(40, 100, 230);
  return pack_rgba(60, 180, 60);
}

/// Point source id (flight line, scan position): 12 distinct colours in turn, so that
/// neighbouring ids differ.
SIMLOD_HD constexpr std::uint32_t source_rgba(std::uint32_t id) {
  constexpr std::uint32_t kPalette[12] = {
      pack_rgba(228, 26, 28),  pack_rgba(55, 126, 184),  pack_rgba(77, 175, 74),
      pack_rgba(152, 78, 163), pack_rgba(255, 127, 0),   pack_rgba(230, 230, 50),
      pack_rgba(166, 86, 40),  pack_rgba(247, 129, 191), pack_rgba(153, 153, 153),
      pack_rgba(27, 158, 119), pack_rgba(128, 128, 0),   pack_rgba(0, 200, 220)};
  return kPalette[id % 12];
}

}  // namespace simlod::detail
