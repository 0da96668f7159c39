// The occupancy-index study of bench/occupancy_bench.cpp: the occupancy work of the sample
// pass, replayed batch by batch over a fixed tree with each of three ways to find a node's
// bricks (docs/perf-notes.md, "Occupancy index while updating").
//
// Every point walks the tree's inner nodes from the root and, in each, sets its cell's bit in
// the 64-byte brick that holds the cell (detail/occupancy_codec.hpp), creating the brick when
// it is the first; the same walk the incremental builder's sample pass makes. The index says
// where a node's brick lies:
// - SlotTable: the builder's own, a uint32 slot per brick of every node (16 KiB a node); a
//   brick is claimed by a compare-and-swap on its slot and appended to the pool, never moved.
// - RankDirectory: a bit per brick (512 bytes a node) with a 16-bit count of the set bits
//   before each 64-bit word (128 bytes) and the node's first brick; bricks lie in rank order
//   (by node, then brick), so a brick's place is base + count + popcount.
// - Fenwick: the node's bricks as a 1-bit FenwickIndex layout of 4,096 elements (1,036 bytes):
//   a point query says whether the brick exists, a prefix its rank.
// The rank-ordered indexes cannot place a new brick during the pass (it would shift every
// later one): new bricks go to a staging hash table, and after the pass they are merged into
// the pool in rank order (a sort of the new keys, one pass that moves every brick) and the
// index is updated (RankDirectory: the node's bits and counts; Fenwick: O(log n) entry adds per
// new brick). Walk runs the walk alone (no occupancy), the floor of the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "simlod/detail/hd.hpp"
#include "simlod/detail/octree_math.hpp"

namespace simlod::bench::occupancy {

using detail::QuantPoint;

inline constexpr std::uint32_t kNone = 0xffffffffu;

/// A tree's shape: 8 children per node (kNone: none), the grid (number of the inner node) of
/// each node or kNone for a leaf. Node 0 is the root.
struct ReplayTree {
  std::vector<std::uint32_t> children;
  std::vector<std::uint32_t> grid;
  std::uint32_t grids = 0;
  std::uint32_t grid_bits = 7;
};

enum class IndexKind { Walk, SlotTable, RankDirectory, Fenwick };

struct ReplayResult {
  double visit_ms = 0;       ///< the walks (lookups, claims, bit sets), summed over the batches
  double merge_ms = 0;       ///< the rank-ordered indexes' merges after each batch, summed
  double max_batch_ms = 0;   ///< the slowest batch (visit + merge)
  std::uint64_t visits = 0;  ///< node visits (points x inner nodes on their walks)
  std::uint64_t bricks = 0;  ///< bricks at the end
  std::uint64_t cells = 0;   ///< set cells at the end
  std::uint64_t digest = 0;  ///< occupancy_digest of the final bricks
  std::uint64_t index_bytes = 0;  ///< the index at the end (tables / bits and counts / trees, keys)
  std::uint64_t merge_bytes = 0;  ///< the largest extra memory of a merge (staging, new pool)
};

/// Calls visit(grid, level) for every inner node on q's walk from the root.
template <class Visit>
SIMLOD_HD void walk(const std::uint32_t* children, const std::uint32_t* grid, const QuantPoint& q,
                    Visit&& visit) {
  std::uint32_t node = 0;
  for (std::uint32_t level = 0; node != kNone && grid[node] != kNone; ++level) {
    visit(grid[node], level);
    node = children[std::size_t{node} * 8 + detail::child_octant(q, level)];
  }
}

/// The word of a brick's digest: whatever order the bricks lie in, the same cells give the
/// same sum over (grid, brick, word index, word).
SIMLOD_HD std::uint64_t occupancy_digest_term(std::uint64_t grid, std::uint32_t brick,
                                              std::uint32_t w, std::uint32_t word) {
  std::uint64_t x = ((grid * 4096 + brick) * 16 + w) * 0x9E3779B97F4A7C15ull ^ word;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return word == 0 ? 0 : x;
}

/// Replays the batches (`batch` points each) of the quantised points over `tree` with `kind`
/// on the CUDA device. Throws CudaError or CapacityError from the device, std::runtime_error
/// for grids the study does not cover.
ReplayResult replay(const ReplayTree& tree, const std::vector<QuantPoint>& points,
                    std::size_t batch, IndexKind kind);

}  // namespace simlod::bench::occupancy
