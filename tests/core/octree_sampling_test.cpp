// Filtered voxel colours of the bulk builder on the CPU (Sampling::Random, Average, Weighted):
// every voxel against a brute-force evaluation of include/simlod/detail/sampling.hpp over the
// original points below its cell, the uniformity of Random over seeds, independence of the input
// order, and voxels in cell order. The incremental builder's filters:
// incremental_sampling_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "core/bulk_scenes.hpp"
#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/detail/sampling.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

OctreeConfig sampling_config(Sampling s, std::uint32_t leaf = 500, std::uint32_t grid = 16,
                             std::uint32_t seed = 1) {
  OctreeConfig c = small_config(leaf, grid, 200);
  c.sampling = s;
  c.sampling_seed = seed;
  return c;
}

/// What the filters keep for one cell, accumulated point by point.
struct CellTruth {
  std::uint64_t max_key = 0;           // Random: the largest random_key of the cell's points
  detail::ColourSum sum;               // Average
  std::vector<std::uint32_t> colours;  // every point's colour (Random must pick one of them)
};

/// Cells (ascending) of one inner node: the truth of its voxels.
using NodeTruth = std::map<std::uint32_t, CellTruth>;

/// For every inner node of `snap`, the cells touched by the original points below it (empty
/// when a point misses the tree). Works point by point from the root down along the children
/// (no use of the builder's bottom-up merging): an independent evaluation of the filters'
/// definition. `colours` keeps every point's colour per cell.
std::vector<NodeTruth> brute_force(const NodeSnapshot& snap, std::span<const Point> points,
                                   const CheckGeometry& g, std::uint32_t seed,
                                   bool colours = false) {
  std::vector<NodeTruth> truth(snap.nodes.size());
  for (const Point& p : points) {
    const detail::QuantPoint q = detail::quantize(p, g.scale);
    for (std::size_t id = 0; !snap.nodes[id].leaf;) {
      const NodeSnapshot::Node& n = snap.nodes[id];
      CellTruth& c = truth[id][detail::cell_index(q, n.level, g.grid_bits)];
      c.max_key = std::max(c.max_key, detail::random_key(q, p.rgba, seed));
      c.sum.add(p.rgba);
      if (colours) c.colours.push_back(p.rgba);
      const std::int32_t child = n.children[detail::child_octant(q, n.level)];
      if (child <= 0 || static_cast<std::size_t>(child) >= snap.nodes.size()) {
        ADD_FAILURE() << "node " << id << " has no child for (" << p.x << ", " << p.y << ", " << p.z
                      << ")";
        return {};  // callers check the size
      }
      id = static_cast<std::size_t>(child);
    }
  }
  return truth;
}

/// The voxels node `n` must hold, in cell order, coloured by `mode` (FirstCome: colour 0).
std::vector<Point> expected_voxels(const NodeSnapshot::Node& n, const NodeTruth& truth,
                                   const CheckGeometry& g, Sampling mode) {
  std::vector<Point> out;
  for (const auto& [cell, t] : truth) {
    const std::array<float, 3> c = cell_centre(n, cell, g);
    std::uint32_t rgba = 0;
    if (mode == Sampling::Random) rgba = static_cast<std::uint32_t>(t.max_key);
    if (mode == Sampling::Average) rgba = t.sum.rgba();
    out.push_back({c[0], c[1], c[2], mode == Sampling::FirstCome ? 0 : detail::voxel_rgba(rgba)});
  }
  return out;
}

/// Builds `s` with `config` and compares every inner node's voxels (cells and colours, as
/// multisets) with the brute force. The tree itself (nodes, leaf points, voxel cells) must be
/// the first-come one: the filter changes colours only.
void expect_filtered_colours(const Scene& s, const OctreeConfig& config) {
  const Octree tree = Octree::build(s.points, s.bounds, config);
  const NodeSnapshot snap = tree.snapshot();
  OctreeConfig first_come = config;
  first_come.sampling = Sampling::FirstCome;
  expect_same_tree(Octree::build(s.points, s.bounds, first_come).snapshot(), snap, false);
  ASSERT_GT(tree.stats().inner_nodes, 1u) << "the scene should have several levels of inner nodes";
  const CheckGeometry g = check_geometry(snap, config);
  const std::vector<NodeTruth> truth = brute_force(snap, s.points, g, config.sampling_seed);
  ASSERT_EQ(truth.size(), snap.nodes.size());
  for (std::size_t id = 0; id < snap.nodes.size(); ++id) {
    const NodeSnapshot::Node& n = snap.nodes[id];
    if (n.leaf) continue;
    ASSERT_EQ(n.voxels.size(), truth[id].size()) << "node " << id << ": voxels vs touched cells";
    const std::vector<Point> want =
        sorted_points(expected_voxels(n, truth[id], g, config.sampling));
    ASSERT_TRUE(same_points(sorted_points(n.voxels), want))
        << "node " << id << " (level " << n.level << "): voxel positions or colours differ";
  }
}

TEST(BulkSampling, RandomEqualsBruteForce) {
  expect_filtered_colours(synth_scene(50'000, synth::Order::Scan),
                          sampling_config(Sampling::Random));
  // Deep nodes (leaves below level 16) and a seed other than the default.
  expect_filtered_colours(deep_cluster_scene(20'000),
                          sampling_config(Sampling::Random, 50, 32, 0xDEADBEEFu));
  // 300 points at one spot share a hash: the largest colour wins there.
  expect_filtered_colours(one_spot_scene(), sampling_config(Sampling::Random, 100, 8, 7));
}

TEST(BulkSampling, AverageEqualsBruteForce) {
  expect_filtered_colours(synth_scene(50'000, synth::Order::Scan),
                          sampling_config(Sampling::Average));
  expect_filtered_colours(deep_cluster_scene(20'000), sampling_config(Sampling::Average, 50, 32));
  expect_filtered_colours(one_spot_scene(), sampling_config(Sampling::Average, 100, 8));
}

TEST(BulkSampling, RandomPicksTheColourOfAPointOfTheCell) {
  const Scene& s = random_scene(50'000);
  const OctreeConfig config = sampling_config(Sampling::Random, 300, 32, 12345);
  const Octree tree = Octree::build(s.points, s.bounds, config);
  const NodeSnapshot snap = tree.snapshot();
  const CheckGeometry g = check_geometry(snap, config);
  const std::vector<NodeTruth> truth = brute_force(snap, s.points, g, config.sampling_seed, true);
  ASSERT_EQ(truth.size(), snap.nodes.size());
  std::uint64_t checked = 0;
  for (std::size_t id = 0; id < snap.nodes.size(); ++id) {
    const NodeSnapshot::Node& n = snap.nodes[id];
    if (n.leaf) continue;
    // The colours of the points of each cell, keyed by the cell's centre (no voxel order assumed).
    std::map<std::array<float, 3>, std::vector<std::uint32_t>> by_centre;
    for (const auto& [cell, t] : truth[id]) {
      auto& colours = by_centre[cell_centre(n, cell, g)];
      colours.insert(colours.end(), t.colours.begin(), t.colours.end());
    }
    for (const Point& v : n.voxels) {
      const auto it = by_centre.find({v.x, v.y, v.z});
      ASSERT_NE(it, by_centre.end()) << "node " << id << ": a voxel off every touched cell";
      ASSERT_NE(std::find(it->second.begin(), it->second.end(), v.rgba), it->second.end())
          << "node " << id << ": voxel colour " << v.rgba << " is no point's colour in its cell";
      ++checked;
    }
  }
  EXPECT_EQ(checked, tree.stats().voxels);
}

/// 8 points in each of the 4^3 cells of 2 m in an 8 m cube, colour = cell * 8 + index: the
/// root's cells (grid 4) each hold the 8 points of one level-2 leaf (the limit). Cells with an
/// even x hold them spread (the corners of a 1 m box), the others at consecutive floats along x
/// (quantised positions that differ only in low bits).
std::vector<Point> cells_of_eight() {
  std::vector<Point> points;
  for (std::uint32_t cell = 0; cell < 64; ++cell) {
    const std::array<float, 3> o{2.0f * (cell & 3), 2.0f * (cell >> 2 & 3), 2.0f * (cell >> 4)};
    float x = o[0] + 0.75f;
    for (std::uint32_t i = 0; i < 8; ++i, x = std::nextafter(x, 8.0f)) {
      const auto corner = [&](std::uint32_t a) { return o[a] + 0.5f + 1.0f * (i >> a & 1); };
      points.push_back(cell % 2 == 0 ? Point{corner(0), corner(1), corner(2), cell * 8 + i}
                                     : Point{x, o[1] + 1.0f, o[2] + 1.0f, cell * 8 + i});
    }
  }
  return points;
}

TEST(BulkSampling, RandomIsUniformOverSeeds) {
  // chi^2 quantile 0.999 for 7 degrees of freedom (8 points a cell): a uniform choice fails
  // this one time in a thousand; the hash is deterministic, so a pass stays a pass.
  constexpr double kChi2Quantile999Dof7 = 24.322;
  // 250 seeds x 32 cells = 8000 draws per kind of cell (1000 expected wins per index); many
  // cells per build keep the test fast under sanitizers.
  constexpr std::uint32_t kSeeds = 250;
  const std::vector<Point> points = cells_of_eight();
  std::array<std::array<std::uint32_t, 8>, 2> wins{};  // [spread, adjacent][index in the cell]
  for (std::uint32_t seed = 0; seed < kSeeds; ++seed) {
    OctreeConfig c = sampling_config(Sampling::Random, 8, 4, seed);
    c.cpu_threads = 1;
    const NodeSnapshot snap = Octree::build(points, cube_at_origin(8.0), c).snapshot();
    ASSERT_EQ(snap.nodes.size(), 73u);  // the root, 8 inner nodes and 64 leaves
    ASSERT_EQ(snap.nodes[0].voxels.size(), 64u);
    for (const Point& v : snap.nodes[0].voxels) {
      // The winner's cell, from its RGB (a voxel reads back alpha 255): must be the voxel's own.
      const std::uint32_t cell = (v.rgba & 0xffffffu) >> 3;
      ASSERT_EQ(static_cast<std::uint32_t>(v.x / 2.0f) |
                    static_cast<std::uint32_t>(v.y / 2.0f) << 2 |
                    static_cast<std::uint32_t>(v.z / 2.0f) << 4,
                cell);
      ++wins[cell % 2][v.rgba & 7];
    }
  }
  const double expected = kSeeds * 32 / 8.0;
  for (std::size_t kind = 0; kind < 2; ++kind) {
    double chi2 = 0.0;
    for (const std::uint32_t w : wins[kind]) chi2 += (w - expected) * (w - expected) / expected;
    EXPECT_LT(chi2, kChi2Quantile999Dof7) << (kind == 0 ? "spread" : "adjacent") << " points";
  }
}

TEST(BulkSampling, ColoursDoNotDependOnTheInputOrder) {
  // The bulk builder sorts points by position, input index breaking ties, so only points at
  // the same position tell the input orders apart: every 8th point gets a twin of another
  // colour (a first-come colour then depends on the order).
  Scene scan = synth_scene(50'000, synth::Order::Scan);
  for (std::size_t i = 0; i < 50'000; i += 8) {
    scan.points.push_back(scan.points[i]);
    scan.points.back().rgba ^= 0x00FFFFFFu;
  }
  Scene reversed = scan, shuffled = scan;
  std::reverse(reversed.points.begin(), reversed.points.end());
  synth::shuffle(shuffled.points, 99);
  for (const Sampling mode : {Sampling::Random, Sampling::Average, Sampling::Weighted}) {
    SCOPED_TRACE(static_cast<int>(mode));
    const OctreeConfig c = sampling_config(mode, 400, 16, 3);
    const NodeSnapshot a = Octree::build(scan.points, scan.bounds, c).snapshot();
    // Voxels as sorted (position, rgba) lists: colours included.
    expect_same_tree(a, Octree::build(reversed.points, reversed.bounds, c).snapshot(), true);
    expect_same_tree(a, Octree::build(shuffled.points, shuffled.bounds, c).snapshot(), true);
  }
  // Another seed picks other points somewhere (the same cells: compare voxel by voxel).
  auto random_tree = [&](std::uint32_t seed) {
    return Octree::build(scan.points, scan.bounds, sampling_config(Sampling::Random, 400, 16, seed))
        .snapshot();
  };
  const NodeSnapshot one = random_tree(3), two = random_tree(4);
  expect_same_tree(one, two, /*colours=*/false);
  if (HasFatalFailure()) return;
  std::map<NodeKey, std::size_t> index;
  for (std::size_t i = 0; i < two.nodes.size(); ++i) index[key_of(two.nodes[i])] = i;
  std::uint64_t voxels = 0, changed = 0;
  for (const NodeSnapshot::Node& n : one.nodes) {
    const std::vector<Point> a = sorted_points(n.voxels);
    const std::vector<Point> b = sorted_points(two.nodes[index.at(key_of(n))].voxels);
    for (std::size_t i = 0; i < a.size(); ++i) changed += a[i].rgba != b[i].rgba;
    voxels += a.size();
  }
  EXPECT_GT(changed, 0u) << "seeds 3 and 4 give the same colour in all " << voxels << " voxels";
}

TEST(BulkSampling, VoxelsComeInCellOrder) {
  const Scene& synth = synth_scene(50'000, synth::Order::Scan);
  const Scene deep = deep_cluster_scene(20'000);
  for (const Sampling mode :
       {Sampling::FirstCome, Sampling::Random, Sampling::Average, Sampling::Weighted}) {
    SCOPED_TRACE(static_cast<int>(mode));
    for (const Scene* s : {&synth, &deep}) {
      const OctreeConfig c = sampling_config(mode, s == &deep ? 50 : 500, 16, 5);
      const NodeSnapshot snap = Octree::build(s->points, s->bounds, c).snapshot();
      const CheckGeometry g = check_geometry(snap, c);
      const std::vector<NodeTruth> truth = brute_force(snap, s->points, g, c.sampling_seed);
      ASSERT_EQ(truth.size(), snap.nodes.size());
      for (std::size_t id = 0; id < snap.nodes.size(); ++id) {
        const NodeSnapshot::Node& n = snap.nodes[id];
        if (n.leaf) continue;
        const std::vector<Point> want = expected_voxels(n, truth[id], g, mode);
        ASSERT_EQ(n.voxels.size(), want.size()) << "node " << id;
        for (std::size_t i = 0; i < want.size(); ++i) {
          const Point& v = n.voxels[i];
          ASSERT_TRUE(v.x == want[i].x && v.y == want[i].y && v.z == want[i].z)
              << "node " << id << " (level " << n.level << "): voxel " << i
              << " is not its cell-order cell";
        }
      }
    }
  }
}

}  // namespace
}  // namespace simlod::test

namespace simlod::test {
namespace {

// stats().build.filter_bytes: the accumulators' peak, part of the scratch, larger for the
// 40-byte colour sums than for the 8-byte random keys.
TEST(BulkSampling, AccumulatorMemoryIsReported) {
  const Scene& s = synth_scene(50'000, synth::Order::Scan);
  std::uint64_t bytes[3] = {};
  const Sampling modes[3] = {Sampling::Random, Sampling::Average, Sampling::Weighted};
  for (int i = 0; i < 3; ++i) {
    const BuildStats b = Octree::build(s.points, s.bounds, sampling_config(modes[i])).stats().build;
    EXPECT_GT(b.filter_bytes, 0u);
    EXPECT_LE(b.filter_bytes, b.scratch_bytes);
    bytes[i] = b.filter_bytes;
  }
  EXPECT_GT(bytes[1], bytes[0]);
  EXPECT_EQ(bytes[1], bytes[2]);  // the same sums, the same voxels
}

}  // namespace
}  // namespace simlod::test
