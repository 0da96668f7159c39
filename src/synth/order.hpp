// The two point orders, as a sequence of "units" that are each generated and sorted on their
// own (bounded memory) and then concatenated.
//
// Morton: units are single tiles, visited in 2D Z-order of (tx, ty); the points of a tile are
// sorted by their 3D Morton code in the scene cube (21 bits per axis). The sequence is thus
// ordered by (tile Z-code, point Z-code): consecutive points are spatially close.
//
// Scan: an airborne multi-channel scanner. The plane flies one strip per tile row,
// alternating east and west, so a strip is a tile wide and a 1M batch covers a long thin piece
// of it (a tile row is a tile wide at any point count: the stress case for incremental
// builders). The scanner sweeps lines across the strip, line after line along the flight path,
// zig-zagging; its kScanChannels channels each cover one segment of the strip's width and fire
// together, so a sweep records the channels' points interleaved and consecutive points jump
// across the strip, as in files in acquisition (GPS time) order. Units are single tiles: the
// line width divides the tile size, so sorting each tile by (line, firing, channel) orders the
// whole strip while one tile is in memory.
#pragma once

#include <cstdint>

#include "simlod/synth.hpp"
#include "synth/plan.hpp"
#include "synth/vec3.hpp"

namespace simlod::synth::detail {

class UnitOrder {
 public:
  UnitOrder(const TilePlan& plan, const Box3& scene_bounds, Order order);

  /// Sweep-line width in reference metres.
  [[nodiscard]] double scan_line_width() const { return line_width_; }

  [[nodiscard]] std::uint64_t unit_count() const;
  /// The tile of `unit`.
  [[nodiscard]] std::uint32_t unit_tile(std::uint64_t unit) const;
  /// Sort key of a point (reference coordinates) within its unit.
  [[nodiscard]] std::uint64_t sort_key(std::uint64_t unit, const Vec3& p) const;

 private:
  Order order_;
  std::uint32_t side_;
  Vec3 cube_min_;
  double cube_scale_;  // Morton cells per reference metre
  double line_width_;
  double tile_size_;
  std::uint64_t line_count_;
  std::uint32_t slots_;  // firings per channel segment and sweep line
};

/// 3D Morton code of three 21-bit coordinates (x in the lowest bit).
std::uint64_t morton3(std::uint32_t x, std::uint32_t y, std::uint32_t z);
/// 2D Morton decode: the even bits of `code` give x, the odd bits y.
void morton2_decode(std::uint64_t code, std::uint32_t& x, std::uint32_t& y);

}  // namespace simlod::synth::detail
