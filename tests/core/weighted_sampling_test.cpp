// Sampling::Weighted on the CPU: the fixed-point arithmetic of include/simlod/detail/sampling.hpp
// (exact square roots, the cells around a sample), and every voxel of a bulk build against a
// floating-point evaluation of the definition from the level below: each child point or child
// voxel adds its colour to the occupied cells whose centres lie within one cell of it, weighted
// by 1 - distance.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <vector>

#include "core/bulk_scenes.hpp"
#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/detail/sampling.hpp"

namespace simlod::test {
namespace {

TEST(SpreadWeights, IntegerSquareRootIsExact) {
  // Every value of its domain (below 2^24; spread distances stay below 3 x 2^20).
  for (std::uint32_t v = 0; v < (1u << 24); ++v) {
    const auto want = static_cast<std::uint32_t>(std::floor(std::sqrt(double(v))));
    if (detail::isqrt(v) != want) FAIL() << v << ": " << detail::isqrt(v) << " for " << want;
  }
}

/// The cells for_each_spread_cell reports around p in an 8^3 grid, with their weights.
std::map<std::uint32_t, std::uint32_t> spread(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  std::map<std::uint32_t, std::uint32_t> out;
  const std::uint32_t p[3] = {x, y, z};
  detail::for_each_spread_cell(p, 3, [&](std::uint32_t cell, std::uint32_t w) {
    EXPECT_TRUE(out.emplace(cell, w).second) << "cell " << cell << " twice";
  });
  return out;
}

TEST(SpreadWeights, CellsAroundASample) {
  constexpr std::uint32_t one = detail::kWeightOne, half = one / 2;
  auto cell = [](std::uint32_t x, std::uint32_t y, std::uint32_t z) { return x | y << 3 | z << 6; };
  // At a cell's centre: that cell alone, with full weight.
  EXPECT_EQ(spread(3 * one + half, 3 * one + half, 3 * one + half),
            (std::map<std::uint32_t, std::uint32_t>{{cell(3, 3, 3), one}}));
  // On the face between two cells: half each.
  EXPECT_EQ(spread(4 * one, 3 * one + half, 3 * one + half),
            (std::map<std::uint32_t, std::uint32_t>{{cell(3, 3, 3), half}, {cell(4, 3, 3), half}}));
  // Near the grid's edge: no cell outside it.
  EXPECT_EQ(spread(10, 3 * one + half, 3 * one + half),
            (std::map<std::uint32_t, std::uint32_t>{{cell(0, 3, 3), one - (half - 10)}}));
  // At a corner of 8 cells: each sqrt(3)/2 cells away.
  const auto corner = spread(2 * one, 5 * one, 7 * one);
  EXPECT_EQ(corner.size(), 8u);
  const auto d = static_cast<std::uint32_t>(std::floor(std::sqrt(3.0) * half));
  for (const auto& [c, w] : corner) EXPECT_EQ(w, one - d) << c;
  // A child voxel's centre lies a quarter cell from its parent cell's centre on every axis.
  EXPECT_EQ(detail::child_cell_position(0, 0, 3), one / 4);
  EXPECT_EQ(detail::child_cell_position(7, 1, 3), 7 * one + 3 * one / 4);
}

/// The weighted colour of every occupied cell of `n` from its children's samples, in floating
/// point: w = max(0, 1 - d), d the distance in cells from the sample to the cell's centre.
std::map<std::uint32_t, std::array<double, 5>> float_reference(const NodeSnapshot& snap,
                                                               const NodeSnapshot::Node& n,
                                                               const CheckGeometry& g) {
  const std::int32_t cells = 1 << g.grid_bits;
  const double size = (n.bounds.max[0] - n.bounds.min[0]) / cells;
  std::map<std::uint32_t, std::array<double, 5>> sums;
  std::map<std::uint32_t, bool> occupied;
  for (const Point& v : n.voxels) {
    occupied[detail::cell_index(detail::quantize(v, g.scale), n.level, g.grid_bits)] = true;
  }
  auto add = [&](const Point& s) {
    const double u[3] = {(s.x - n.bounds.min[0]) / size, (s.y - n.bounds.min[1]) / size,
                         (s.z - n.bounds.min[2]) / size};
    const std::int32_t c[3] = {std::min(cells - 1, static_cast<std::int32_t>(u[0])),
                               std::min(cells - 1, static_cast<std::int32_t>(u[1])),
                               std::min(cells - 1, static_cast<std::int32_t>(u[2]))};
    for (std::int32_t k = 0; k < 27; ++k) {
      const std::int32_t x = c[0] + k % 3 - 1, y = c[1] + k / 3 % 3 - 1, z = c[2] + k / 9 - 1;
      if (x < 0 || y < 0 || z < 0 || x >= cells || y >= cells || z >= cells) continue;
      const auto cell = static_cast<std::uint32_t>(x | y << g.grid_bits | z << 2 * g.grid_bits);
      if (!occupied.contains(cell)) continue;
      const double d = std::hypot(u[0] - (x + 0.5), u[1] - (y + 0.5), u[2] - (z + 0.5));
      const double w = std::max(0.0, 1.0 - d);
      auto& acc = sums[cell];
      acc[0] += w * red_of(s.rgba);
      acc[1] += w * green_of(s.rgba);
      acc[2] += w * blue_of(s.rgba);
      acc[3] += w * alpha_of(s.rgba);
      acc[4] += w;
    }
  };
  for (const std::int32_t child : n.children) {
    const NodeSnapshot::Node& c = snap.nodes[static_cast<std::size_t>(child)];
    for (const Point& s : c.leaf ? c.points : c.voxels) add(s);
  }
  return sums;
}

/// Builds `s` with Weighted: the tree and the voxel cells are the first-come ones (nothing
/// dilates), and each voxel's channels lie within `tolerance` of the float reference.
void expect_weighted(const Scene& s, OctreeConfig config, int tolerance) {
  config.sampling = Sampling::Weighted;
  const Octree tree = Octree::build(s.points, s.bounds, config);
  const NodeSnapshot snap = tree.snapshot();
  config.sampling = Sampling::FirstCome;
  expect_same_tree(Octree::build(s.points, s.bounds, config).snapshot(), snap, false);
  ASSERT_GT(tree.stats().inner_nodes, 1u);
  const CheckGeometry g = check_geometry(snap, config);
  int worst = 0;
  for (const NodeSnapshot::Node& n : snap.nodes) {
    if (n.leaf) continue;
    const auto want = float_reference(snap, n, g);
    ASSERT_EQ(want.size(), n.voxels.size()) << "level " << n.level << ": a cell without weight";
    for (const Point& v : n.voxels) {
      const auto& w =
          want.at(detail::cell_index(detail::quantize(v, g.scale), n.level, g.grid_bits));
      const std::uint32_t got[4] = {red_of(v.rgba), green_of(v.rgba), blue_of(v.rgba),
                                    alpha_of(v.rgba)};
      for (int c = 0; c < 4; ++c) {
        const int diff =
            std::abs(static_cast<int>(got[c]) -
                     static_cast<int>(std::lround(w[static_cast<std::size_t>(c)] / w[4])));
        worst = std::max(worst, diff);
      }
    }
  }
  EXPECT_LE(worst, tolerance) << "largest channel difference from the float reference";
}

TEST(WeightedSampling, MatchesTheDefinitionInFloatingPoint) {
  expect_weighted(synth_scene(50'000, synth::Order::Scan), small_config(500, 16, 200), 1);
  expect_weighted(deep_cluster_scene(20'000), small_config(50, 32, 200), 1);
}

}  // namespace
}  // namespace simlod::test
