// Per-point octree arithmetic shared by the CPU backend and the CUDA kernels (SIMLOD_HD).
//
// A point is quantised once to integer coordinates q in [0, 2^kQuantBits) per axis by a single
// float multiply (no fused multiply-add can change it, so host and device agree bit for bit).
// Everything after that is integer bit arithmetic:
//   node position at level L      = q >> (kQuantBits - L)
//   child octant below level L    = bit (kQuantBits - L - 1) of q, per axis
//   voxel cell in a level-L node  = (q >> (kQuantBits - L - g)) & (2^g - 1), grid = 2^g
// which needs L + g <= kQuantBits, hence the depth limit max_depth(g).
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"
#include "simlod/detail/morton.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

inline constexpr std::uint32_t kQuantBits = 31;
inline constexpr std::uint32_t kQuantMax = (1u << kQuantBits) - 1;

struct QuantPoint {
  std::uint32_t x, y, z;
};

/// Factor that maps [0, cube_edge] to [0, 2^kQuantBits]: quant_scale(edge) * coordinate.
SIMLOD_HD float quant_scale(float cube_edge) {
  return static_cast<float>(1u << kQuantBits) / cube_edge;
}

SIMLOD_HD std::uint32_t quantize_axis(float v, float scale) {
  const float s = v * scale;
  if (!(s > 0.0f)) return 0;  // also maps NaN to 0 (rejected earlier by validation)
  if (s >= static_cast<float>(kQuantMax)) return kQuantMax;
  return static_cast<std::uint32_t>(s);
}

SIMLOD_HD QuantPoint quantize(const Point& p, float scale) {
  return {quantize_axis(p.x, scale), quantize_axis(p.y, scale), quantize_axis(p.z, scale)};
}

/// Octant (0-7, bit 0 = x, bit 1 = y, bit 2 = z) of the child of a level-`level` node that
/// contains q.
SIMLOD_HD std::uint32_t child_octant(const QuantPoint& q, std::uint32_t level) {
  const std::uint32_t shift = kQuantBits - level - 1;
  return ((q.x >> shift) & 1u) | (((q.y >> shift) & 1u) << 1) | (((q.z >> shift) & 1u) << 2);
}

/// Linear cell index (x fastest) of q in the 2^grid_bits grid of a level-`level` node.
SIMLOD_HD std::uint32_t cell_index(const QuantPoint& q, std::uint32_t level,
                                   std::uint32_t grid_bits) {
  const std::uint32_t shift = kQuantBits - level - grid_bits;
  const std::uint32_t mask = (1u << grid_bits) - 1u;
  return ((q.x >> shift) & mask) | (((q.y >> shift) & mask) << grid_bits) |
         (((q.z >> shift) & mask) << (2 * grid_bits));
}

/// The cell in a node's 2^grid_bits grid that holds cell `cell` of its child in `octant`
/// (both linear, x fastest): per axis, the child's coordinate with the octant bit on top,
/// halved. Equals cell_index(q, level, g) for every q in that child cell, with no float.
SIMLOD_HD std::uint32_t parent_cell(std::uint32_t cell, std::uint32_t octant,
                                    std::uint32_t grid_bits) {
  const std::uint32_t mask = (1u << grid_bits) - 1u;
  std::uint32_t out = 0;
  for (std::uint32_t a = 0; a < 3; ++a) {
    const std::uint32_t c = (cell >> (a * grid_bits)) & mask;
    const std::uint32_t bit = (octant >> a) & 1u;
    out |= ((bit << (grid_bits - 1)) | (c >> 1)) << (a * grid_bits);
  }
  return out;
}

/// Deepest level whose voxel grid (2^grid_bits cells per axis) still resolves q.
SIMLOD_HD constexpr std::uint32_t max_depth_for_grid(std::uint32_t grid_bits) {
  return kQuantBits - grid_bits;
}

/// Coordinate of one axis of a voxel cell's centre, in octree coordinates (relative to the cube's
/// minimum corner) of a cube with edge `cube_edge`. `node_pos` is the node's integer position and
/// `cell_coord` the cell's coordinate on that axis ((cell >> (axis * grid_bits)) & (2^g - 1)).
/// Exact integers and one double multiply, so host and device give the same float.
SIMLOD_HD float cell_centre_axis(std::uint32_t node_pos, std::uint32_t cell_coord,
                                 std::uint32_t level, std::uint32_t grid_bits, float cube_edge) {
  const std::uint32_t shift = kQuantBits - level - grid_bits;
  // In units of 2^-(kQuantBits + 1) edges: 2 * lower corner + one cell width.
  const std::uint64_t twice =
      (static_cast<std::uint64_t>((node_pos << grid_bits) | cell_coord) << (shift + 1)) +
      (std::uint64_t{1} << shift);
  constexpr double kUnit = 1.0 / static_cast<double>(std::uint64_t{1} << (kQuantBits + 1));
  return static_cast<float>(static_cast<double>(twice) * kUnit * static_cast<double>(cube_edge));
}

/// 63-bit Morton code of q's top 21 bits per axis (x in bit 0).
SIMLOD_HD std::uint64_t morton_code(const QuantPoint& q) {
  return morton_3d(q.x >> (kQuantBits - 21), q.y >> (kQuantBits - 21), q.z >> (kQuantBits - 21));
}

}  // namespace simlod::detail
