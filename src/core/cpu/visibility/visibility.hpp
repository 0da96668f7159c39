// The CPU executor of VisibilityMap (core/visibility.cpp is the facade): the octree with its
// spheres and leaf geometry, the leaf-pair matrix, and the links level by level.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "simlod/detail/visibility_walk.hpp"
#include "simlod/visibility.hpp"

namespace simlod::detail::cpu {

struct VisTree {
  std::vector<VisibilityNode> nodes;      ///< breadth first: children consecutive
  std::vector<VisibilityLeaf> leaves;     ///< in node order
  std::vector<LeafGeometry> geometry;     ///< the same leaves, for the rules
  std::vector<std::uint32_t> order;       ///< input point indices in octree order
  std::vector<std::uint32_t> point_leaf;  ///< leaf of every input point
  double origin[3] = {0.0, 0.0, 0.0};     ///< the cube's low corner
  double edge = 1.0;                      ///< the cube's edge
  std::uint32_t depth = 0;                ///< of the deepest leaf
  std::vector<WalkNode> walk;             ///< the nodes as the occluder walk prunes by them
  std::vector<WalkSphere> spheres;        ///< the nodes' exact spheres

  [[nodiscard]] WalkFrame frame() const { return {{origin[0], origin[1], origin[2]}, edge}; }
  /// The arrays the occluder walk reads (host memory).
  [[nodiscard]] WalkTree walk_tree() const {
    return {walk.data(), spheres.data(), geometry.data(), frame()};
  }
};

/// The bounds of `points` (at least one), in double precision.
void point_bounds(std::span<const Point> points, double lo[3], double hi[3]);

/// The tree's cube from the points' bounds: origin lo, edge the largest side (1 when every point
/// lies on one spot).
void set_cube(VisTree& tree, const double lo[3], const double hi[3]);

/// Fills tree.walk and tree.spheres from its nodes.
void make_walk(VisTree& tree);

/// The octree of checked points and normals (config checked).
[[nodiscard]] VisTree build_vis_tree(std::span<const Point> points, std::span<const Normal> normals,
                                     const VisibilityConfig& config);

/// Leaves (other than `skip_a` and `skip_b`) that occlude the segment from p to p + d, counted
/// up to `limit`, by a walk from the root (detail::count_occluders; `hint` as there).
[[nodiscard]] std::uint32_t count_occluders(const VisTree& tree, const Vec3d& p, const Vec3d& d,
                                            std::uint32_t skip_a, std::uint32_t skip_b,
                                            std::uint32_t limit, std::uint32_t& hint);

/// The leaf-pair matrix: bit pair_index(i, j, leaves) set when leaves i < j see each other.
struct LeafPairs {
  std::vector<std::uint64_t> bits;
  std::uint64_t facing = 0;
  std::uint64_t visible = 0;
};
[[nodiscard]] LeafPairs leaf_pairs(const VisTree& tree, std::uint32_t occluders);

/// The test of leaves i < j: 0 when they do not face each other, 1 when at least `occluders`
/// leaves occlude them, 2 when they see each other (`hint` as in count_occluders).
inline int test_pair(const VisTree& tree, std::uint64_t i, std::uint64_t j, std::uint32_t occluders,
                     std::uint32_t& hint) {
  const LeafGeometry& p = tree.geometry[i];
  const LeafGeometry& q = tree.geometry[j];
  if (!leaves_face(p, q)) return 0;
  return count_occluders(tree, p.centroid, sub(q.centroid, p.centroid),
                         static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), occluders,
                         hint) >= occluders
             ? 1
             : 2;
}

/// The links as lists per node (CSR), and their count per level.
struct VisLinks {
  std::vector<std::uint64_t> offsets;  ///< nodes + 1
  std::vector<std::uint32_t> targets;
  std::vector<std::uint64_t> per_level;
};
[[nodiscard]] VisLinks build_links(const VisTree& tree, const LeafPairs& pairs);

/// Level l of the links: the inner nodes of depth l and the leaves of depth <= l, each entry's
/// children on level l + 1 a range (its children, or itself).
struct VisLevel {
  std::vector<std::uint32_t> nodes;   ///< node ids
  std::vector<std::uint32_t> begin;   ///< children range on the next level (nodes + 1)
  std::vector<std::uint32_t> parent;  ///< entry on the level above
};
/// Levels 0 .. tree.depth (the last has no `begin`).
[[nodiscard]] std::vector<VisLevel> vis_levels(const VisTree& tree);
/// The lists per node of the links `found` (node pairs), each list sorted.
[[nodiscard]] VisLinks links_csr(std::size_t nodes,
                                 const std::vector<std::pair<std::uint32_t, std::uint32_t>>& found,
                                 std::vector<std::uint64_t> per_level);

/// FV, "every leaf below A sees every leaf below B", from the last of `levels` (its pair bits
/// `below`, pair_index over its entries) up to the first: the links of every level but the
/// first go to `found`, their counts to per_level[level's index in `levels`]; returns the first
/// level's bits.
[[nodiscard]] std::vector<std::uint64_t> climb(
    std::span<const VisLevel> levels, std::vector<std::uint64_t> below,
    std::vector<std::pair<std::uint32_t, std::uint32_t>>& found,
    std::span<std::uint64_t> per_level);

/// Zeroed pair bits of n entries.
inline std::vector<std::uint64_t> make_bits(std::uint64_t n) {
  return std::vector<std::uint64_t>((pair_count(n) + 63) / 64, 0);
}
/// Sets bit `index` (atomically: workers may share a word).
inline void set_bit(std::vector<std::uint64_t>& bits, std::uint64_t index) {
  std::atomic_ref<std::uint64_t>(bits[index >> 6])
      .fetch_or(std::uint64_t{1} << (index & 63u), std::memory_order_relaxed);
}

/// Bit `index` of a bit array.
inline bool bit_at(const std::vector<std::uint64_t>& bits, std::uint64_t index) {
  return ((bits[index >> 6] >> (index & 63u)) & 1u) != 0;
}

}  // namespace simlod::detail::cpu
