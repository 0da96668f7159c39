// The CPU bulk builder (Octree::build): all points at once into an empty tree store, as a free
// function over the store like the incremental builder (core/cpu/update/).
//
//   split:    points are sorted by their full Morton code (31 bits per axis), so that every
//             node's points are one contiguous range; nodes are laid out breadth-first from
//             the root: a node is inner exactly when its range holds more than
//             max_points_per_leaf points and its level is below max_depth, and its 8 children
//             (empty ones included) take the next free ids. That is the tree the incremental
//             builder reaches for the same points whatever the batching, since it splits a
//             leaf exactly when its points exceed the limit. Leaves then take their chunks and
//             receive their points.
//   voxelize: inner nodes, deepest level first, sample their children into their occupancy
//             grid: a leaf child's points by detail::cell_index, an inner child's voxels by
//             their integer cell (a child cell's parent cell is its coordinate, with the
//             child's octant bit on top, shifted right by one: no float centre is quantised
//             again). The cells set equal the cells of all points below the node, as the
//             incremental builder's. The cells' colours follow config.sampling: the first
//             sample's (FirstCome), the largest random key's (Random) or the mean of the
//             points below (Average), detail/sampling.hpp; a node's voxels are in cell order.
// The grids stay in the store, so that update() can insert more batches afterwards.
#pragma once

#include <span>

#include "core/cpu/tree/store.hpp"
#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {

/// Builds the tree of validated, non-empty `points` into `store`, which must be empty (just
/// created); with attribute channels `records` holds the points' channel records
/// (store.chunks.record_bytes() each): leaves keep their points', voxels those of the point
/// whose colour they took. Throws CapacityError (memory reserve or host memory) before the
/// store holds any sample; the store must then be discarded. Fills stats.split_ms,
/// voxelize_ms, scratch_bytes.
void build_bulk(TreeStore& store, PoolView& pool, std::span<const Point> points,
                std::span<const std::byte> records, BuildStats& stats);

}  // namespace simlod::detail::cpu
