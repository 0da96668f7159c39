// Invariant checks and canonical comparison of octree snapshots, shared by the CPU tests and the
// GPU tests (which compare the CUDA backend against the CPU one).
//
// Canonical comparison: node indices and the order of samples inside a node are unspecified, so
// nodes are keyed by (level, position), points compared as multisets (bitwise) and voxels by
// position (the cell centre) as multisets; first-come voxel colours may differ between runs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "simlod/detail/occupancy_codec.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/detail/voxel_codec.hpp"
#include "simlod/octree.hpp"

namespace simlod::test {

using NodeKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;

inline NodeKey key_of(const NodeSnapshot::Node& n) {
  return {n.level, n.position[0], n.position[1], n.position[2]};
}

/// Bitwise order (tells -0.0f from 0.0f, as a multiset comparison of stored copies must).
inline bool point_less(const Point& a, const Point& b) {
  return std::memcmp(&a, &b, sizeof(Point)) < 0;
}

inline std::vector<Point> sorted_points(std::vector<Point> v) {
  std::sort(v.begin(), v.end(), point_less);
  return v;
}

inline bool same_points(const std::vector<Point>& a, const std::vector<Point>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Point)) == 0);
}

/// Voxel positions without colours, sorted.
inline std::vector<std::array<float, 3>> voxel_positions(const std::vector<Point>& voxels) {
  std::vector<std::array<float, 3>> out;
  out.reserve(voxels.size());
  for (const Point& v : voxels) out.push_back({v.x, v.y, v.z});
  std::sort(out.begin(), out.end());
  return out;
}

/// Geometry a snapshot was built with, recomputed as the library does.
struct CheckGeometry {
  float edge = 1.0f;
  float scale = 1.0f;
  std::uint32_t grid_bits = 7;
  std::uint32_t max_depth = 24;
  std::uint32_t max_points_per_leaf = 50'000;
  std::uint32_t chunk_capacity = 1000;
};

inline CheckGeometry check_geometry(const NodeSnapshot& snap, const OctreeConfig& config) {
  CheckGeometry g;
  g.edge = static_cast<float>(snap.cube.max[0] - snap.cube.min[0]);
  g.scale = detail::quant_scale(g.edge);
  g.grid_bits = static_cast<std::uint32_t>(__builtin_ctz(config.voxel_grid));
  g.max_depth = std::min<std::uint32_t>(24, detail::max_depth_for_grid(g.grid_bits));
  g.max_points_per_leaf = config.max_points_per_leaf;
  g.chunk_capacity = config.chunk_capacity;
  return g;
}

/// Centre of `cell` of node n, via the shared helper.
inline std::array<float, 3> cell_centre(const NodeSnapshot::Node& n, std::uint32_t cell,
                                        const CheckGeometry& g) {
  const std::uint32_t mask = (1u << g.grid_bits) - 1u;
  std::array<float, 3> c{};
  for (std::uint32_t a = 0; a < 3; ++a) {
    c[a] = detail::cell_centre_axis(n.position[a], (cell >> (a * g.grid_bits)) & mask, n.level,
                                    g.grid_bits, g.edge);
  }
  return c;
}

/// Tree shape: root first, every node reached once from it, children at the next level, at
/// their octant's position and inside the parent's bounds; leaves hold only points, inner
/// nodes only voxels. Returns each node's parent (-1 for the root).
inline std::vector<std::int32_t> expect_tree_shape(const NodeSnapshot& snap,
                                                   const CheckGeometry& g) {
  const auto count = static_cast<std::int32_t>(snap.nodes.size());
  std::vector<std::int32_t> parent(snap.nodes.size(), -1);
  if (count == 0) {
    ADD_FAILURE() << "snapshot without a root";
    return parent;
  }
  EXPECT_EQ(key_of(snap.nodes[0]), NodeKey(0, 0, 0, 0)) << "nodes[0] is not the root";
  std::vector<int> seen(snap.nodes.size(), 0);
  seen[0] = 1;
  int failures = 0;
  for (std::int32_t id = 0; id < count && failures < 20; ++id) {
    const auto& n = snap.nodes[static_cast<std::size_t>(id)];
    EXPECT_LE(n.level, g.max_depth);
    if (n.leaf) {
      failures += !n.voxels.empty();
      EXPECT_TRUE(n.voxels.empty()) << "leaf " << id << " holds voxels";
      for (auto c : n.children) EXPECT_EQ(c, -1) << "leaf " << id << " has a child";
      continue;
    }
    EXPECT_TRUE(n.points.empty()) << "inner node " << id << " holds points";
    for (std::uint32_t k = 0; k < 8; ++k) {
      const std::int32_t c = n.children[k];
      if (c <= 0 || c >= count) {
        ADD_FAILURE() << "node " << id << " child " << k << " = " << c;
        ++failures;
        continue;
      }
      const auto& ch = snap.nodes[static_cast<std::size_t>(c)];
      ++seen[static_cast<std::size_t>(c)];
      parent[static_cast<std::size_t>(c)] = id;
      const NodeKey want(n.level + 1, n.position[0] * 2 + (k & 1), n.position[1] * 2 + (k >> 1 & 1),
                         n.position[2] * 2 + (k >> 2 & 1));
      if (key_of(ch) != want) {
        ADD_FAILURE() << "node " << c << " is not octant " << k << " of node " << id;
        ++failures;
      }
      for (int a = 0; a < 3; ++a) {
        EXPECT_GE(ch.bounds.min[a], n.bounds.min[a]);
        EXPECT_LE(ch.bounds.max[a], n.bounds.max[a]);
        EXPECT_LT(ch.bounds.min[a], ch.bounds.max[a]);
      }
    }
  }
  for (std::size_t id = 0; id < seen.size(); ++id) {
    if (seen[id] != 1) {
      ADD_FAILURE() << "node " << id << " is reached " << seen[id] << " times from the root";
      break;
    }
  }
  return parent;
}

/// Voxels of inner node `n` against the (cell << 32 | rgba) pairs of all points below it:
/// one voxel per touched cell, at its centre, coloured like some point of that cell.
inline void expect_node_voxels(const NodeSnapshot::Node& n, std::size_t id,
                               std::vector<std::uint64_t>& pairs, const CheckGeometry& g) {
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  // (centre, cell) of every touched cell; deep cells may share a float centre.
  std::vector<std::pair<std::array<float, 3>, std::uint32_t>> centres;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto cell = static_cast<std::uint32_t>(pairs[i] >> 32);
    if (i == 0 || cell != static_cast<std::uint32_t>(pairs[i - 1] >> 32)) {
      centres.push_back({cell_centre(n, cell, g), cell});
    }
  }
  ASSERT_EQ(n.voxels.size(), centres.size()) << "node " << id << ": voxels vs touched cells";
  std::sort(centres.begin(), centres.end());
  std::vector<std::array<float, 3>> want;
  for (const auto& c : centres) want.push_back(c.first);
  ASSERT_EQ(voxel_positions(n.voxels), want) << "node " << id << ": voxel positions";
  for (const Point& v : n.voxels) {
    const std::array<float, 3> p{v.x, v.y, v.z};
    auto it = std::lower_bound(centres.begin(), centres.end(), std::make_pair(p, 0u));
    bool found = false;
    for (; it != centres.end() && it->first == p && !found; ++it) {
      const std::uint64_t pair = std::uint64_t{it->second} << 32 | v.rgba;
      found = std::binary_search(pairs.begin(), pairs.end(), pair);
    }
    ASSERT_TRUE(found) << "node " << id << ": voxel colour " << v.rgba
                       << " is no point's colour in its cell";
  }
}

/// Every invariant of an octree built from exactly `input`. `stats` are checked against the
/// snapshot when given.
inline void expect_octree_invariants(const NodeSnapshot& snap, std::span<const Point> input,
                                     const OctreeConfig& config,
                                     const OctreeStats* stats = nullptr) {
  const CheckGeometry g = check_geometry(snap, config);
  const std::vector<std::int32_t> parent = expect_tree_shape(snap, g);
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<Point> stored;
  std::vector<std::vector<std::uint64_t>> pairs(snap.nodes.size());
  std::uint64_t voxels = 0, chunks = 0, leaf_chunks = 0, leaves = 0;
  std::uint32_t depth = 0;
  for (std::size_t id = 0; id < snap.nodes.size(); ++id) {
    const auto& n = snap.nodes[id];
    depth = std::max(depth, n.level);
    const std::uint64_t samples = n.points.size() + n.voxels.size();
    // Without statistics, a voxel chunk is taken to hold chunk_capacity voxels (only the sum
    // below uses it).
    const std::uint64_t cap =
        n.leaf || stats == nullptr ? g.chunk_capacity : stats->voxels_per_chunk;
    chunks += (samples + cap - 1) / cap;
    voxels += n.voxels.size();
    if (!n.leaf) continue;
    ++leaves;
    leaf_chunks += (samples + cap - 1) / cap;
    if (n.level < g.max_depth) {
      EXPECT_LE(n.points.size(), g.max_points_per_leaf)
          << "leaf " << id << " is over the limit above max depth";
    }
    stored.insert(stored.end(), n.points.begin(), n.points.end());
    for (const Point& p : n.points) {
      const detail::QuantPoint q = detail::quantize(p, g.scale);
      const std::uint32_t shift = detail::kQuantBits - n.level;
      const bool inside = q.x >> shift == n.position[0] && q.y >> shift == n.position[1] &&
                          q.z >> shift == n.position[2];
      ASSERT_TRUE(inside) << "a point of leaf " << id << " belongs to another node";
      for (std::int32_t a = parent[id]; a >= 0; a = parent[static_cast<std::size_t>(a)]) {
        const auto& an = snap.nodes[static_cast<std::size_t>(a)];
        const std::uint32_t cell = detail::cell_index(q, an.level, g.grid_bits);
        // A voxel keeps the RGB of its point, alpha 255 (detail/voxel_codec.hpp).
        pairs[static_cast<std::size_t>(a)].push_back(std::uint64_t{cell} << 32 |
                                                     detail::voxel_rgba(p.rgba));
      }
    }
  }
  ASSERT_EQ(stored.size(), input.size()) << "points stored vs inserted";
  const std::vector<Point> want = sorted_points({input.begin(), input.end()});
  ASSERT_TRUE(same_points(sorted_points(std::move(stored)), want))
      << "the leaves do not hold exactly the inserted points";
  // Occupancy: the bricks that hold an occupied cell of an inner node (its points' cells).
  const detail::OccupancyLayout occupancy =
      detail::occupancy_layout(g.grid_bits, std::uint64_t{g.chunk_capacity} * sizeof(Point));
  std::uint64_t bricks = 0, inner = 0;
  for (std::size_t id = 0; id < snap.nodes.size(); ++id) {
    if (snap.nodes[id].leaf) continue;
    ++inner;
    expect_node_voxels(snap.nodes[id], id, pairs[id], g);
    if (::testing::Test::HasFatalFailure()) return;
    std::vector<std::uint32_t> node_bricks;
    for (const std::uint64_t pair : pairs[id]) {
      node_bricks.push_back(detail::brick_of(static_cast<std::uint32_t>(pair >> 32), occupancy));
    }
    std::sort(node_bricks.begin(), node_bricks.end());
    bricks += static_cast<std::uint64_t>(std::unique(node_bricks.begin(), node_bricks.end()) -
                                         node_bricks.begin());
    std::vector<std::uint64_t>().swap(pairs[id]);
  }
  if (stats == nullptr) return;
  EXPECT_EQ(stats->nodes, snap.nodes.size());
  EXPECT_EQ(stats->leaves, leaves);
  EXPECT_EQ(stats->inner_nodes, snap.nodes.size() - leaves);
  EXPECT_EQ(stats->depth, depth);
  EXPECT_EQ(stats->points, input.size());
  EXPECT_EQ(stats->voxels, voxels);
  EXPECT_EQ(stats->chunks_used + stats->chunks_pooled + stats->chunks_bricks,
            stats->chunks_allocated);
  EXPECT_EQ(stats->points_per_chunk, g.chunk_capacity);
  EXPECT_EQ(stats->bricks, bricks) << "occupancy bricks vs those the voxels' cells fall in";
  EXPECT_EQ(stats->chunks_bricks, detail::brick_pages(bricks, occupancy));
  EXPECT_EQ(stats->chunks_used, chunks) << "chunks in use vs chunks the node lists need";
  const std::uint64_t chunk_bytes = std::uint64_t{g.chunk_capacity} * sizeof(Point);
  EXPECT_EQ(stats->bytes_points, leaf_chunks * chunk_bytes);
  EXPECT_EQ(stats->bytes_voxels, (chunks - leaf_chunks) * chunk_bytes);
  EXPECT_EQ(stats->bytes_grids, inner * occupancy.table_bytes + stats->chunks_bricks * chunk_bytes);
}

/// Same nodes by (level, position), leaf flags, point multisets and voxel positions; voxel
/// colours too when `colours` is set (deterministic runs).
inline void expect_same_tree(const NodeSnapshot& a, const NodeSnapshot& b, bool colours) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size()) << "node counts differ";
  std::map<NodeKey, std::size_t> index;
  for (std::size_t i = 0; i < b.nodes.size(); ++i) index[key_of(b.nodes[i])] = i;
  for (const auto& na : a.nodes) {
    const auto it = index.find(key_of(na));
    ASSERT_NE(it, index.end()) << "node at level " << na.level << " missing";
    const auto& nb = b.nodes[it->second];
    ASSERT_EQ(na.leaf, nb.leaf);
    ASSERT_TRUE(same_points(sorted_points(na.points), sorted_points(nb.points)))
        << "leaf points differ at level " << na.level;
    if (colours) {
      ASSERT_TRUE(same_points(sorted_points(na.voxels), sorted_points(nb.voxels)));
    } else {
      ASSERT_EQ(voxel_positions(na.voxels), voxel_positions(nb.voxels));
    }
  }
}

/// Node by node, sample by sample: nothing changed, not even the order of samples.
inline void expect_identical(const NodeSnapshot& a, const NodeSnapshot& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    ASSERT_EQ(key_of(a.nodes[i]), key_of(b.nodes[i])) << "node " << i;
    ASSERT_EQ(a.nodes[i].children, b.nodes[i].children) << "node " << i;
    ASSERT_TRUE(same_points(a.nodes[i].points, b.nodes[i].points)) << "node " << i;
    ASSERT_TRUE(same_points(a.nodes[i].voxels, b.nodes[i].voxels)) << "node " << i;
  }
}

/// expect_identical(), and the samples' attribute channels (intensity, classification) alike.
inline void expect_same_samples(const NodeSnapshot& a, const NodeSnapshot& b) {
  expect_identical(a, b);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    ASSERT_EQ(a.nodes[i].leaf, b.nodes[i].leaf) << "node " << i;
    ASSERT_EQ(a.nodes[i].attributes.intensity, b.nodes[i].attributes.intensity) << "node " << i;
    ASSERT_EQ(a.nodes[i].attributes.classification, b.nodes[i].attributes.classification)
        << "node " << i;
  }
}

}  // namespace simlod::test
