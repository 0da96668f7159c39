// Compact voxels: how an inner node's storage chunk holds its voxels.
//
// A voxel is its cell in the node's grid (detail::cell_index, < 2^(3 * grid_bits)) and an RGB
// colour. Its position is the cell's centre (cell_centre_axis), computed when it is read, so
// the stored voxel needs no float: 6 bytes at grids of up to 256 cells a side (8 above),
// against the 16 bytes of a Point. A voxel reads back with alpha 255.
//
// A chunk of `capacity` voxels, structure of arrays, byte offsets from the chunk's start:
//   0                 uint32 word[capacity]   rgb (red in bits 0-7, green 8-15, blue 16-23)
//                                             | (cell & 255) << 24
//   4 * capacity      high[capacity]          cell >> 8: uint16 when the cell has at most 24
//                                             bits (grid_bits <= 8), else uint32
//   records_offset    channel records (record_bytes each, record k beside voxel k), at a
//                     multiple of 16
// A chunk keeps the byte size of a chunk of points (one pool serves both), so it holds about
// 16 / 6 as many voxels as points: voxel_layout() gives the largest capacity that fits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simlod/detail/chunk_fit.hpp"
#include "simlod/detail/hd.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

struct VoxelLayout {
  std::uint32_t capacity = 0;        ///< voxels per chunk
  std::uint32_t high_bytes = 2;      ///< 2 (grid_bits <= 8) or 4
  std::uint64_t records_offset = 0;  ///< of the channel records from the chunk's start
};

/// Bytes of the colour word and high part of one voxel.
SIMLOD_HD constexpr std::uint32_t voxel_bytes(std::uint32_t grid_bits) {
  return grid_bits <= 8 ? 6u : 8u;
}

/// The largest number of voxels (with `record_bytes` of channels each) whose words, high
/// parts and 16-aligned records fit in `bytes`; at least 1 when a point and its record fit.
SIMLOD_HD constexpr VoxelLayout voxel_layout(std::uint64_t bytes, std::uint32_t record_bytes,
                                             std::uint32_t grid_bits) {
  const std::uint32_t each = voxel_bytes(grid_bits);
  VoxelLayout l{};
  l.high_bytes = each - 4;
  const std::uint64_t c = samples_that_fit(bytes, each, record_bytes);
  l.capacity = static_cast<std::uint32_t>(c);
  l.records_offset = pad16(c * each);
  return l;
}

/// Writes voxel `slot` of a chunk: `cell` and the RGB of `rgba`.
SIMLOD_HD void put_voxel(std::byte* chunk, const VoxelLayout& l, std::uint32_t slot,
                         std::uint32_t cell, std::uint32_t rgba) {
  reinterpret_cast<std::uint32_t*>(chunk)[slot] = (rgba & 0xffffffu) | (cell << 24);
  std::byte* high = chunk + std::uint64_t{4} * l.capacity;
  if (l.high_bytes == 2) {
    reinterpret_cast<std::uint16_t*>(high)[slot] = static_cast<std::uint16_t>(cell >> 8);
  } else {
    reinterpret_cast<std::uint32_t*>(high)[slot] = cell >> 8;
  }
}

/// The colour word of voxel `slot` (its RGB and the cell's low byte).
SIMLOD_HD std::uint32_t* voxel_word(std::byte* chunk, std::uint32_t slot) {
  return reinterpret_cast<std::uint32_t*>(chunk) + slot;
}
SIMLOD_HD const std::uint32_t* voxel_word(const std::byte* chunk, std::uint32_t slot) {
  return reinterpret_cast<const std::uint32_t*>(chunk) + slot;
}

/// Sets the colour of a voxel through its word, keeping its cell.
SIMLOD_HD void set_voxel_colour(std::uint32_t* word, std::uint32_t rgba) {
  *word = (*word & 0xff000000u) | (rgba & 0xffffffu);
}

/// The colour of a voxel word, alpha 255.
SIMLOD_HD constexpr std::uint32_t voxel_rgba(std::uint32_t word) {
  return (word & 0xffffffu) | 0xff000000u;
}

/// The cell of voxel `slot`.
SIMLOD_HD std::uint32_t voxel_cell(const std::byte* chunk, const VoxelLayout& l,
                                   std::uint32_t slot) {
  const std::uint32_t low = reinterpret_cast<const std::uint32_t*>(chunk)[slot] >> 24;
  const std::byte* high = chunk + std::uint64_t{4} * l.capacity;
  const std::uint32_t h = l.high_bytes == 2
                              ? std::uint32_t{reinterpret_cast<const std::uint16_t*>(high)[slot]}
                              : reinterpret_cast<const std::uint32_t*>(high)[slot];
  return low | (h << 8);
}

/// The sample of voxel `cell` of the node at `level` and integer position (x, y, z): the cell's
/// centre in octree coordinates, colour `rgba`.
SIMLOD_HD Point voxel_point(std::uint32_t level, std::uint32_t x, std::uint32_t y, std::uint32_t z,
                            std::uint32_t cell, std::uint32_t rgba, std::uint32_t grid_bits,
                            float edge) {
  const std::uint32_t mask = (1u << grid_bits) - 1u;
  return Point{cell_centre_axis(x, cell & mask, level, grid_bits, edge),
               cell_centre_axis(y, (cell >> grid_bits) & mask, level, grid_bits, edge),
               cell_centre_axis(z, cell >> (2 * grid_bits), level, grid_bits, edge), rgba};
}

/// Voxel `slot` of a chunk of the node at `level` and integer position (x, y, z), as a Point:
/// its cell's centre and its colour, alpha 255.
SIMLOD_HD Point decode_voxel(const std::byte* chunk, const VoxelLayout& l, std::uint32_t slot,
                             std::uint32_t level, std::uint32_t x, std::uint32_t y, std::uint32_t z,
                             std::uint32_t grid_bits, float edge) {
  return voxel_point(level, x, y, z, voxel_cell(chunk, l, slot),
                     voxel_rgba(*voxel_word(chunk, slot)), grid_bits, edge);
}

/// Copies voxel `from_slot` of a chunk laid out as `from_layout` to `to_slot` of one laid out
/// as `to_layout` (another capacity): its cell and colour; the channel record is the caller's.
SIMLOD_HD void copy_voxel(const std::byte* from, const VoxelLayout& from_layout,
                          std::uint32_t from_slot, std::byte* to, const VoxelLayout& to_layout,
                          std::uint32_t to_slot) {
  put_voxel(to, to_layout, to_slot, voxel_cell(from, from_layout, from_slot),
            *voxel_word(from, from_slot));
}

}  // namespace simlod::detail
