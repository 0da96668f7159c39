// What both tree stores share: the geometry of the octree and the algorithm their builders run.
// Each backend has a store (core/cpu/tree/store.hpp, kernels/tree/store.cuh) and free functions
// over it; core/dispatch.hpp picks them by backend. The contract lives in simlod::detail; each
// backend keeps its internals in its own namespace, simlod::detail::cpu and
// simlod::detail::cuda, so that their records and constants never share a name.
//
// The algorithm (SimLOD), identical on both backends so that, for the same batches, both give
// the same node set, the same multiset of points per leaf and the same occupied voxel cells:
//   Points arrive validated (finite, inside the cube) in coordinates relative to cube.min and
//   are quantised with detail::quantize(p, geometry.quant_scale) (octree_math.hpp).
//   1. expand: repeat { every point of the batch and of the spill buffer walks from the root
//      to its leaf and is counted there; every leaf with stored + counted > max_points_per_leaf
//      and level < geometry.max_depth becomes an inner node: 8 children (all created, empty),
//      its stored points move to the spill buffer, its chunks return to the chunk pool, an
//      occupancy grid (2^(3*grid_bits) bits, zeroed) is attached } until no leaf splits.
//   2. sample: every point (batch + spill) walks from the root to its leaf; in each inner node
//      it passes it sets its cell bit (detail::cell_index); the point that sets a bit emits a
//      voxel for that node: position = cell centre, colour = that point's colour.
//   3. allocate: each node gets the chunks its new points/voxels need (pool first, then the
//      arena); 4. insert: points are appended to their leaf, voxels to their inner node.
//   A leaf at max_depth never splits and grows without bound.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "simlod/octree.hpp"

namespace simlod::detail {

struct OctreeGeometry {
  Bounds cube;                  ///< file coordinates of the root cube (a cube)
  float edge = 1.0f;            ///< cube edge in the points' (relative) coordinates
  float quant_scale = 1.0f;     ///< detail::quant_scale(edge)
  std::uint32_t grid_bits = 7;  ///< voxel_grid = 2^grid_bits
  std::uint32_t max_depth = 24;
};

/// Called once per node by the node reader (Octree::for_each_node).
using NodeVisitor = std::function<void(const NodeInfo&)>;

/// Bounds of the node at `level` and integer `position`, in octree coordinates (relative to
/// cube.min): position * edge / 2^level, with the float edge the points are quantised against.
/// Shared by both backends' snapshots so that snapshots compare exactly.
[[nodiscard]] Bounds node_bounds(const OctreeGeometry& geometry, std::uint32_t level,
                                 const std::array<std::uint32_t, 3>& position);

}  // namespace simlod::detail
