// Morton (Z-order) bit interleaving shared by the synthetic scenes, the octree and kernels.
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"

namespace simlod::detail {

/// Spreads the low 21 bits of v so that bit i moves to bit 3i.
SIMLOD_HD constexpr std::uint64_t spread_bits_3d(std::uint64_t v) {
  v &= 0x1FFFFFu;
  v = (v | v << 32) & 0x1F00000000FFFFull;
  v = (v | v << 16) & 0x1F0000FF0000FFull;
  v = (v | v << 8) & 0x100F00F00F00F00Full;
  v = (v | v << 4) & 0x10C30C30C30C30C3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

/// 63-bit 3D Morton code of three 21-bit coordinates (x in bit 0).
SIMLOD_HD constexpr std::uint64_t morton_3d(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return spread_bits_3d(x) | spread_bits_3d(y) << 1 | spread_bits_3d(z) << 2;
}

/// spread_bits_3d for the low 10 bits, in 32-bit arithmetic (a GPU does 64-bit integer
/// operations as pairs of 32-bit ones).
SIMLOD_HD constexpr std::uint32_t spread_bits_3d_10(std::uint32_t v) {
  v &= 0x3FFu;
  v = (v | v << 16) & 0x030000FFu;
  v = (v | v << 8) & 0x0300F00Fu;
  v = (v | v << 4) & 0x030C30C3u;
  v = (v | v << 2) & 0x09249249u;
  return v;
}

/// 30-bit 3D Morton code of three 10-bit coordinates (x in bit 0): morton_3d's low bits.
SIMLOD_HD constexpr std::uint32_t morton_3d_10(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return spread_bits_3d_10(x) | spread_bits_3d_10(y) << 1 | spread_bits_3d_10(z) << 2;
}

/// Gathers every third bit of v (bit 3i moves to bit i): inverse of spread_bits_3d.
SIMLOD_HD constexpr std::uint32_t compact_bits_3d(std::uint64_t v) {
  v &= 0x1249249249249249ull;
  v = (v | v >> 2) & 0x10C30C30C30C30C3ull;
  v = (v | v >> 4) & 0x100F00F00F00F00Full;
  v = (v | v >> 8) & 0x1F0000FF0000FFull;
  v = (v | v >> 16) & 0x1F00000000FFFFull;
  v = (v | v >> 32) & 0x1FFFFFull;
  return static_cast<std::uint32_t>(v);
}

/// Gathers every second bit of v (bit 2i moves to bit i): inverse of 2D interleaving.
SIMLOD_HD constexpr std::uint32_t compact_bits_2d(std::uint64_t v) {
  v &= 0x5555555555555555ull;
  v = (v | v >> 1) & 0x3333333333333333ull;
  v = (v | v >> 2) & 0x0F0F0F0F0F0F0F0Full;
  v = (v | v >> 4) & 0x00FF00FF00FF00FFull;
  v = (v | v >> 8) & 0x0000FFFF0000FFFFull;
  v = (v | v >> 16) & 0x00000000FFFFFFFFull;
  return static_cast<std::uint32_t>(v);
}

static_assert(morton_3d(1, 0, 0) == 1 && morton_3d(0, 1, 0) == 2 && morton_3d(0, 0, 1) == 4);
static_assert(morton_3d(3, 0, 0) == 9);
static_assert(compact_bits_2d(0b0101) == 0b11);
static_assert(morton_3d_10(0x3FF, 0x155, 0x2AA) == morton_3d(0x3FF, 0x155, 0x2AA));
static_assert(morton_3d_10(0x201, 0x3FE, 0x001) == morton_3d(0x201, 0x3FE, 0x001));
static_assert(compact_bits_3d(morton_3d(0x1ABCDE, 7, 0x100001)) == 0x1ABCDE);
static_assert(compact_bits_3d(morton_3d(3, 0x1FFFFF, 5) >> 1) == 0x1FFFFF);

}  // namespace simlod::detail
