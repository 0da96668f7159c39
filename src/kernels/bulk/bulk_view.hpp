// The CUDA bulk builder's counters and scratch as its kernels see them (kernels/bulk/).
//
// Split: points are counted into blocks of counters. The root block refines the root cell into
// kBulkRootLevels levels; a cell of a block's finest level that holds more points than the
// leaf limit (above the depth limit) gets a block of its own, kBulkBlockLevels levels deeper
// (CudaLOD's sub-grids), and the points inside it are counted again, until no cell is over the
// limit. Every block holds the pyramid of its levels j = 1..k (level j: 8^j uint32 counters,
// Morton-ordered, so a cell's children are the 8 entries at 8 * index), at
//   block.offset + (8^j - 8) / 7.
// Beside each counter, `d_node` holds the id of the node at that cell (kNil where none) and, for
// finest cells, `d_link` what a point there goes on to: kNil while counting, kExtBit | block
// id for a refined cell, else the id of the leaf that holds it.
//
// Nodes are laid out breadth-first, level by level: the inner nodes of a level (in id order,
// rank r) give children ids level_begin[l + 1] + 8 r + octant, and the grid of the inner node
// with global rank g (levels before first) is grid g of the store.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/tree/device_layout.hpp"
#include "kernels/tree/tree_view.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/detail/sampling.hpp"
#include "simlod/octree.hpp"

namespace simlod::detail::cuda::bulk {

inline constexpr std::uint32_t kExtBit = 0x80000000u;

/// A block of counters: 32 bytes, alignment 16.
struct alignas(16) CountBlock {
  std::uint32_t level;    ///< offset 0: level of the cell it refines (its levels: level+1..level+k)
  std::uint32_t k;        ///< offset 4: levels; its finest grid has 2^k cells per axis
  std::uint32_t x, y, z;  ///< offset 8: position of the refined cell at `level`
  std::uint32_t pad;
  std::uint64_t offset;  ///< offset 24: first counter of its pyramid
};
static_assert(sizeof(CountBlock) == 32);

/// First counter of level j (1..k) of a pyramid. In 32 bits: j <= 10 (the pyramids have at
/// most kBulkRootLevels + 1 levels, tuning.hpp).
SIMLOD_HD std::uint64_t pyramid_level(std::uint32_t j) { return ((1u << (3 * j)) - 8u) / 7u; }
/// Counters of a pyramid of k levels.
SIMLOD_HD std::uint64_t pyramid_size(std::uint32_t k) { return pyramid_level(k + 1); }

/// Morton index of q's cell in the finest level of `b`.
SIMLOD_HD std::uint32_t finest_cell(const QuantPoint& q, const CountBlock& b) {
  const std::uint32_t shift = kQuantBits - (b.level + b.k);
  const std::uint32_t mask = (1u << b.k) - 1u;
  return morton_3d_10((q.x >> shift) & mask, (q.y >> shift) & mask, (q.z >> shift) & mask);
}

/// Sampling::Average's sums of a voxel whose node holds fewer than kNarrowPoints points, so
/// that no 8-bit channel's sum reaches 2^32: 24 bytes, alignment 8. Red and green (blue and
/// alpha) share a 64-bit word, so a sample takes three atomics instead of five.
struct alignas(8) NarrowSum {
  std::uint32_t r, g, b, a;
  std::uint32_t count, pad;
};
static_assert(sizeof(NarrowSum) == 24);
inline constexpr std::uint32_t kNarrowPoints = 1u << 24;

/// Marks the place of a voxel (record_at()).
inline constexpr std::uint64_t kVoxelPlace = 1ull << 31;

struct BulkView {
  TreeView tree;
  const Point* d_points;
  /// d_points hold quantised positions in their x, y, z words (entry.hpp, build_bulk()).
  bool quantized_input;
  std::uint32_t points;
  CountBlock* d_blocks;
  std::uint32_t* d_count;     ///< pyramid counters
  std::uint32_t* d_node;      ///< node id per counter
  std::uint32_t* d_link;      ///< per finest counter: kNil, kExtBit | block, or leaf id
  std::uint32_t* d_block_of;  ///< per node: its block
  std::uint32_t* d_index_of;  ///< per node: its index in its block's level (root: 0)
  std::uint32_t* d_flags;     ///< per node of a level: 1 when inner; then its rank
  std::uint32_t* d_ranks;
  std::uint32_t* d_inner;       ///< inner node ids by global rank
  std::uint32_t* d_cursor;      ///< per node: points inserted / per inner rank: voxels emitted
  std::uint32_t* d_chunks;      ///< per node: chunks it needs, then (scanned) its first
  std::uint32_t* d_owner;       ///< per point chunk: the leaf that owns it
  std::uint32_t* d_counter;     ///< [0] blocks to add / voxels of the level, [1] chunk total
  VoxelRecord* d_emit;          ///< voxels the level emits (node = the inner node they go to)
  std::uint32_t emit_capacity;  ///< records d_emit holds; d_counter[0] may count beyond
  const VoxelRecord* d_below;   ///< voxels of the level below (node = the inner node holding it)
  std::uint32_t limit;          ///< max_points_per_leaf
  std::uint32_t max_depth;
  // Filtered voxels (Sampling::Random, Average, Weighted; kernels/bulk/filter_passes.cu).
  Sampling sampling;
  std::uint32_t seed;  ///< sampling_seed
  /// Every level's grids from the lowest address (the last rank; grid_bytes_for() keeps each
  /// grid whole groups of 8 words).
  const std::uint32_t* d_level_words;
  const std::uint32_t* d_groups;  ///< set cells before each 8 words of them (scanned)
  /// The set cells before the level's grids: a voxel's index within its level is its index
  /// among all levels' minus this (filter_accumulate.cuh voxel_index()).
  std::uint32_t voxel_base;
  std::uint64_t* d_keys;              ///< Random: per voxel of the level, the largest key
  void* d_sums;                       ///< Average: per voxel of the level, the sums
  const std::uint64_t* d_keys_below;  ///< the same for d_below's voxels
  const void* d_sums_below;
  /// Average, Weighted: the sums of the level's (of d_below's) voxels are NarrowSums, not
  /// ColourSums.
  bool narrow, narrow_below;
  // Attribute channels (tree.record_bytes > 0; else nullptr). A voxel takes the record of the
  // sample whose colour it took; a sample's record is named by its place, chunk << 32 | index
  // in the chunk (record_at()).
  const std::byte* d_records;    ///< input point i's record at i * tree.record_bytes
  std::uint64_t* d_emit_source;  ///< first-come: the record each d_emit voxel takes
  /// Random: per voxel of the level, the largest record digest among the samples of its
  /// largest key, then the largest place among the samples of both; the same of d_below's.
  std::uint32_t* d_digests;
  std::uint64_t* d_sources;
  const std::uint32_t* d_digests_below;
  const std::uint64_t* d_sources_below;

  /// The record of the sample at `place` (chunk << 32 | index in the chunk, with kVoxelPlace
  /// for a voxel: its chunk lays out its records after the compact voxels).
  SIMLOD_HD std::byte* record_at(std::uint64_t place) const {
    const auto chunk = static_cast<std::uint32_t>(place >> 32);
    const std::uint64_t index = place & (kVoxelPlace - 1);
    return ((place & kVoxelPlace) != 0 ? tree.voxel_records(chunk) : tree.chunk_records(chunk)) +
           index * tree.record_bytes;
  }
  /// The place of a voxel the bulk builder wrote (its node's chunks are consecutive).
  SIMLOD_HD std::uint64_t voxel_place(const VoxelRecord& r) const {
    const std::uint32_t cap = tree.voxels.capacity;
    return std::uint64_t{tree.d_nodes[r.node].head + r.slot / cap} << 32 | kVoxelPlace |
           r.slot % cap;
  }

  /// The leaf (or kExtBit | block) a point's walk through the blocks ends at, and its block.
  SIMLOD_HD std::uint32_t walk(const QuantPoint& q, std::uint32_t& block,
                               std::uint32_t& cell) const {
    block = 0;
    for (;;) {
      const CountBlock b = d_blocks[block];
      cell = finest_cell(q, b);
      const std::uint32_t e = d_link[b.offset + pyramid_level(b.k) + cell];
      if (e == kNil || (e & kExtBit) == 0) return e;
      block = e & ~kExtBit;
    }
  }
};

}  // namespace simlod::detail::cuda::bulk
