// Edge cases of the CPU backend: identical points, points closer than float resolution, points
// on cell and child borders, thousands of tiny batches, and the shared cell-centre helper.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"

namespace simlod::test {
namespace {

Bounds unit_cube(double edge = 1.0) {
  Bounds b;
  b.expand(-3.0, 4.0, 1e5);
  b.expand(-3.0 + edge, 4.0 + edge, 1e5 + edge);
  return b;
}

// Leaves at max depth cannot split: identical points end up in one leaf that keeps growing.
TEST(OctreeEdge, IdenticalPointsGrowOneLeafAtMaxDepth) {
  const OctreeConfig c = small_config(1000, 32, 256);
  Octree tree = Octree::create(unit_cube(), c);
  std::vector<Point> v(12'000, Point{0.3f, 0.7f, 0.1f, 0});
  for (std::size_t i = 0; i < v.size(); ++i) v[i].rgba = static_cast<std::uint32_t>(i % 7);
  insert_all(tree, v, 5000);
  const OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.depth, 24u);  // min(24, 31 - log2(32))
  EXPECT_EQ(stats.inner_nodes, 24u);
  const NodeSnapshot snap = tree.snapshot();
  std::size_t biggest = 0;
  for (const auto& n : snap.nodes) biggest = std::max(biggest, n.points.size());
  EXPECT_EQ(biggest, v.size());
  expect_octree_invariants(snap, v, c, &stats);
}

TEST(OctreeEdge, PointsCloserThanFloatResolution) {
  const OctreeConfig c = small_config(50, 2, 16);  // grid 2: 24 levels below the root
  Octree tree = Octree::create(unit_cube(), c);
  std::vector<Point> v;
  float x = 0.5f;
  for (std::uint32_t i = 0; i < 3000; ++i) {
    v.push_back({x, 0.25f, std::nextafter(0.75f, 1.0f), i});
    if (i % 3 == 0) x = std::nextafter(x, 1.0f);  // neighbours one ulp apart
  }
  insert_all(tree, v, 700);
  const OctreeStats stats = tree.stats();
  // 50-point leaves span ~16 ulps = 2^-20 of the edge.
  EXPECT_GE(stats.depth, 19u);
  expect_octree_invariants(tree.snapshot(), v, c, &stats);
}

// Coordinates k / 2^m lie exactly on child and cell borders at every level.
TEST(OctreeEdge, PointsOnChildAndCellBorders) {
  const OctreeConfig c = small_config(20, 4, 8);
  std::vector<Point> v;
  for (std::uint32_t i = 0; i <= 16; ++i) {
    for (std::uint32_t j = 0; j <= 16; ++j) {
      for (std::uint32_t k = 0; k <= 16; k += 4) {
        v.push_back({static_cast<float>(i) / 16.0f, static_cast<float>(j) / 16.0f,
                     static_cast<float>(k) / 16.0f, i * 1000 + j * 10 + k});
      }
    }
  }
  for (std::uint32_t i = 0; i < 200; ++i) {  // fine borders deep down, and the max face
    const float f = std::ldexp(static_cast<float>(i), -12);
    v.push_back({f, 1.0f, f, i});
    v.push_back({1.0f, f, 1.0f - f, i});
  }
  Octree tree = Octree::create(unit_cube(), c);
  insert_all(tree, v, 333);
  const OctreeStats stats = tree.stats();
  EXPECT_GE(stats.depth, 4u);
  expect_octree_invariants(tree.snapshot(), v, c, &stats);
}

TEST(OctreeEdge, ThousandsOfTinyBatches) {
  const Scene& scene = synth_scene(20'000, synth::Order::Scan);
  const OctreeConfig c = small_config(300, 16, 64);
  Octree tree = Octree::create(scene.bounds, c);
  const std::vector<Point> first(scene.points.begin(), scene.points.begin() + 2000);
  insert_all(tree, first, 1);  // one point per batch
  EXPECT_EQ(tree.stats().points, 2000u);
  expect_octree_invariants(tree.snapshot(), first, c);
  insert_all(tree, std::span(scene.points).subspan(2000), 7, 3);  // 3 batches per update
  const OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.last_update.batches_left, 0u);
  expect_octree_invariants(tree.snapshot(), scene.points, c, &stats);
}

// The voxel position helper shared with the CUDA kernels: the centre of the cell, which
// quantises back into that cell wherever float can resolve it.
TEST(OctreeEdge, CellCentresAreCellCentres) {
  const float edge = 1000.0f;
  const float scale = detail::quant_scale(edge);
  for (std::uint32_t g : {1u, 5u, 7u, 10u}) {
    for (std::uint32_t level : {0u, 1u, 3u, 8u}) {
      const std::uint32_t node = (1u << level) - 1u;
      for (std::uint32_t cell : {0u, 1u, (1u << g) - 1u}) {
        const float c = detail::cell_centre_axis(node, cell, level, g, edge);
        const double size = std::ldexp(static_cast<double>(edge), -static_cast<int>(level + g));
        const double want = (static_cast<double>(node) * (1u << g) + cell + 0.5) * size;
        EXPECT_NEAR(c, want, want * 1e-7 + 1e-9) << "g " << g << " level " << level;
        const detail::QuantPoint q = detail::quantize({c, c, c, 0}, scale);
        const std::uint32_t expect = cell | cell << g | cell << (2 * g);
        if (level + g <= 18) {
          EXPECT_EQ(detail::cell_index(q, level, g), expect);
        }
      }
    }
  }
}

}  // namespace
}  // namespace simlod::test
