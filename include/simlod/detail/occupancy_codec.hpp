// Block-sparse occupancy: which cells of an inner node's grid hold a voxel, in the memory of
// the cells that do.
//
// The grid of 2^(3 * grid_bits) cells (detail::cell_index) is cut into bricks of 8^3 cells
// (the whole grid when it has fewer than 8 cells a side). A brick is a 64-byte mask, one bit
// per cell: bit (brick_bit(cell) % 32) of its uint32 word brick_bit(cell) / 32 (the same bits
// as 64-bit words on a little-endian host). Only bricks with a set bit exist.
//
// Each inner node owns a slot table: one uint32 per brick of its grid (brick_of(cell)),
// kEmptySlot until the brick's first cell is set, then the brick's place (CUDA: its 64-byte
// unit from the first chunk; CPU: its number). table_bytes = 4 * bricks, rounded up to 16
// (16 KiB at 128^3 against a dense grid's 256 KiB).
//
// Bricks live in pages, and a page is a storage chunk taken like any other (pool first, then
// fresh), so chunks stay the store's one unit of allocation: brick k of a page lies at the
// first 64-byte boundary of its chunk plus 64 * k, and a page holds bricks_per_page bricks.
// Bricks are numbered in the order they are claimed and never move or go away: brick n is
// brick n % bricks_per_page of page n / bricks_per_page, and a page is taken when its first
// brick is claimed. So an update adds bricks without moving any, and a tree's occupancy costs
// inner_nodes * table_bytes + ceil(bricks / bricks_per_page) * chunk_bytes.
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"

namespace simlod::detail {

/// A slot whose brick does not exist yet, and one whose brick a thread is creating.
inline constexpr std::uint32_t kEmptySlot = 0xffffffffu;
inline constexpr std::uint32_t kClaimingSlot = 0xfffffffeu;
inline constexpr std::uint32_t kBrickBytes = 64;

struct OccupancyLayout {
  std::uint32_t grid_bits = 0;
  std::uint32_t brick_bits = 0;       ///< log2 of a brick's cells a side: min(grid_bits, 3)
  std::uint32_t bricks = 0;           ///< slots of a table: bricks of a grid
  std::uint32_t bricks_per_page = 0;  ///< bricks of a chunk
  std::uint64_t table_bytes = 0;      ///< a node's slot table
};

/// The layout for grids of 2^grid_bits cells a side and chunks of `chunk_bytes` (at least 124
/// bytes, so that a page holds a brick whatever its alignment to 4 bytes).
SIMLOD_HD constexpr OccupancyLayout occupancy_layout(std::uint32_t grid_bits,
                                                     std::uint64_t chunk_bytes) {
  OccupancyLayout l{};
  l.grid_bits = grid_bits;
  l.brick_bits = grid_bits < 3 ? grid_bits : 3;
  l.bricks = 1u << (3 * (grid_bits - l.brick_bits));
  l.bricks_per_page = static_cast<std::uint32_t>((chunk_bytes - 60) / kBrickBytes);
  l.table_bytes = (std::uint64_t{4} * l.bricks + 15) / 16 * 16;
  return l;
}

/// The brick of the grid that holds `cell`.
SIMLOD_HD constexpr std::uint32_t brick_of(std::uint32_t cell, const OccupancyLayout& l) {
  const std::uint32_t g = l.grid_bits, b = l.brick_bits, per = g - b;
  const std::uint32_t mask = (1u << g) - 1u;
  const std::uint32_t x = cell & mask, y = (cell >> g) & mask, z = cell >> (2 * g);
  return (x >> b) | ((y >> b) << per) | ((z >> b) << (2 * per));
}

/// The bit of `cell` in its brick.
SIMLOD_HD constexpr std::uint32_t brick_bit(std::uint32_t cell, const OccupancyLayout& l) {
  const std::uint32_t g = l.grid_bits, b = l.brick_bits;
  const std::uint32_t mask = (1u << g) - 1u, low = (1u << b) - 1u;
  const std::uint32_t x = cell & mask, y = (cell >> g) & mask, z = cell >> (2 * g);
  return (x & low) | ((y & low) << b) | ((z & low) << (2 * b));
}

/// The cell of bit `bit` of brick `brick` (inverse of brick_of and brick_bit).
SIMLOD_HD constexpr std::uint32_t brick_cell(std::uint32_t brick, std::uint32_t bit,
                                             const OccupancyLayout& l) {
  const std::uint32_t g = l.grid_bits, b = l.brick_bits, per = g - b;
  const std::uint32_t pmask = (1u << per) - 1u, low = (1u << b) - 1u;
  const std::uint32_t x = ((brick & pmask) << b) | (bit & low);
  const std::uint32_t y = (((brick >> per) & pmask) << b) | ((bit >> b) & low);
  const std::uint32_t z = ((brick >> (2 * per)) << b) | (bit >> (2 * b));
  return x | (y << g) | (z << (2 * g));
}

/// Pages that `bricks` bricks fill.
SIMLOD_HD constexpr std::uint64_t brick_pages(std::uint64_t bricks, const OccupancyLayout& l) {
  return (bricks + l.bricks_per_page - 1) / l.bricks_per_page;
}

/// Offset of a page's first brick from its chunk's first byte at address (or offset from a
/// 64-byte boundary) `chunk_at`: at most 60, as chunks lie at multiples of 4.
SIMLOD_HD constexpr std::uint64_t page_brick_offset(std::uint64_t chunk_at) {
  return (kBrickBytes - chunk_at % kBrickBytes) % kBrickBytes;
}

}  // namespace simlod::detail
