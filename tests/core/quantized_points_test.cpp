// PointEncoding::Quantized16 on the CPU backend: the tree against a brute-force model of the
// leaves (which points each leaf holds, rounded to the step of the leaf they first went into),
// Random voxel colours from the rounded positions, build() against one batch, channels,
// the node reader, and the memory it saves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "octree_check.hpp"
#include "octree_test_util.hpp"
#include "simlod/detail/point_codec.hpp"
#include "simlod/detail/sampling.hpp"
#include "simlod/error.hpp"
#include "simlod/octree.hpp"

namespace simlod {
namespace {

using test::NodeKey;

/// The leaves of a batch-by-batch build, brute force: every batch's points walk to their
/// leaves, overfull leaves split (their points move by their rounded positions) until none is,
/// then the batch's points are rounded to the step of the leaf they reached.
class LeafModel {
 public:
  LeafModel(float edge, std::uint32_t limit, std::uint32_t max_depth)
      : edge_(edge), scale_(detail::quant_scale(edge)), limit_(limit), max_depth_(max_depth) {
    leaves_[NodeKey(0, 0, 0, 0)];
  }

  void insert(std::span<const Point> batch) {
    const std::size_t first = q_.size();
    for (const Point& p : batch) {
      q_.push_back(detail::quantize(p, scale_));
      rgba_.push_back(p.rgba);
      leaves_[leaf_of(q_.back())].push_back(q_.size() - 1);
    }
    for (bool split = true; split;) {
      split = false;
      for (auto it = leaves_.begin(); it != leaves_.end(); ++it) {
        const auto [level, x, y, z] = it->first;
        if (it->second.size() <= limit_ || level >= max_depth_) continue;
        const std::vector<std::size_t> moved = std::move(it->second);
        const NodeKey key = it->first;
        leaves_.erase(it);
        inner_.push_back(key);
        for (std::uint32_t k = 0; k < 8; ++k) {
          leaves_[NodeKey(level + 1, 2 * x + (k & 1), 2 * y + (k >> 1 & 1), 2 * z + (k >> 2))];
        }
        for (const std::size_t i : moved) leaves_[leaf_of(q_[i])].push_back(i);
        split = true;
        break;
      }
    }
    for (auto& [key, ids] : leaves_) {
      for (const std::size_t i : ids) {
        if (i >= first) q_[i] = detail::round_to_leaf(q_[i], std::get<0>(key));
      }
    }
  }

  /// The leaf holding q.
  [[nodiscard]] NodeKey leaf_of(const detail::QuantPoint& q) const {
    for (std::uint32_t level = 0;; ++level) {
      const std::uint32_t s = detail::kQuantBits - level;
      const NodeKey k(level, level == 0 ? 0 : q.x >> s, level == 0 ? 0 : q.y >> s,
                      level == 0 ? 0 : q.z >> s);
      if (leaves_.count(k) != 0) return k;
    }
  }

  /// Each leaf's points as they read back, sorted.
  [[nodiscard]] std::map<NodeKey, std::vector<Point>> leaf_points() const {
    std::map<NodeKey, std::vector<Point>> out;
    for (const auto& [key, ids] : leaves_) {
      std::vector<Point>& v = out[key];
      for (const std::size_t i : ids) v.push_back(detail::quantized_point(q_[i], rgba_[i], edge_));
      v = test::sorted_points(std::move(v));
    }
    return out;
  }

  /// Sampling::Random's voxel colours of inner node `key` (grid 2^g): per cell, the colour of
  /// the point below it with the largest key of its rounded position.
  [[nodiscard]] std::map<std::uint32_t, std::uint32_t> random_voxels(const NodeKey& key,
                                                                     std::uint32_t g,
                                                                     std::uint32_t seed) const {
    const auto [level, x, y, z] = key;
    std::map<std::uint32_t, std::uint64_t> best;
    for (std::size_t i = 0; i < q_.size(); ++i) {
      const std::uint32_t s = detail::kQuantBits - level;
      if (level > 0 && (q_[i].x >> s != x || q_[i].y >> s != y || q_[i].z >> s != z)) continue;
      const std::uint32_t cell = detail::cell_index(q_[i], level, g);
      const std::uint64_t k = detail::random_key(q_[i], rgba_[i], seed);
      best[cell] = std::max(best[cell], k);
    }
    std::map<std::uint32_t, std::uint32_t> out;
    for (const auto& [cell, k] : best) out[cell] = static_cast<std::uint32_t>(k);
    return out;
  }

  [[nodiscard]] const std::vector<NodeKey>& inner() const { return inner_; }
  [[nodiscard]] std::size_t leaf_count() const { return leaves_.size(); }

 private:
  float edge_, scale_;
  std::uint32_t limit_, max_depth_;
  std::vector<detail::QuantPoint> q_;
  std::vector<std::uint32_t> rgba_;
  std::map<NodeKey, std::vector<std::size_t>> leaves_;
  std::vector<NodeKey> inner_;
};

OctreeConfig quantized_config(Sampling sampling = Sampling::FirstCome) {
  OctreeConfig c = test::small_config(2000, 32, 500);
  c.point_encoding = PointEncoding::Quantized16;
  c.sampling = sampling;
  return c;
}

std::map<NodeKey, const NodeSnapshot::Node*> by_key(const NodeSnapshot& snap) {
  std::map<NodeKey, const NodeSnapshot::Node*> out;
  for (const auto& n : snap.nodes) out[test::key_of(n)] = &n;
  return out;
}

/// The tree holds the model's leaves, point for point, and inner nodes whose voxels are the
/// cells of the rounded points below them with Random's colours.
void expect_model_tree(const Octree& tree, const LeafModel& model, std::uint32_t g) {
  const NodeSnapshot snap = tree.snapshot();
  const auto nodes = by_key(snap);
  ASSERT_EQ(nodes.size(), model.leaf_count() + model.inner().size());
  for (const auto& [key, points] : model.leaf_points()) {
    const auto it = nodes.find(key);
    ASSERT_NE(it, nodes.end()) << "a leaf of the model is missing";
    ASSERT_TRUE(it->second->leaf);
    ASSERT_TRUE(test::same_points(test::sorted_points(it->second->points), points))
        << "leaf at level " << std::get<0>(key) << " holds other points";
  }
  const test::CheckGeometry geo = test::check_geometry(snap, tree.config());
  for (const NodeKey& key : model.inner()) {
    const NodeSnapshot::Node& n = *nodes.at(key);
    ASSERT_FALSE(n.leaf);
    const auto want = model.random_voxels(key, g, tree.config().sampling_seed);
    ASSERT_EQ(n.voxels.size(), want.size()) << "inner node at level " << n.level;
    std::map<std::array<float, 3>, std::uint32_t> got;
    for (const Point& v : n.voxels) got[{v.x, v.y, v.z}] = v.rgba;
    for (const auto& [cell, rgba] : want) {
      const auto c = got.find(test::cell_centre(n, cell, geo));
      ASSERT_NE(c, got.end()) << "no voxel in cell " << cell << " at level " << n.level;
      ASSERT_EQ(c->second, detail::voxel_rgba(rgba)) << "cell " << cell << " at level " << n.level;
    }
  }
}

TEST(QuantizedPoints, BatchesGiveTheModelsLeavesAndRandomColours) {
  const test::Scene& s = test::random_scene(60'000, 4);
  const OctreeConfig c = quantized_config(Sampling::Random);
  Octree tree = Octree::create(s.bounds, c);
  const float edge = static_cast<float>(tree.cube().max[0] - tree.cube().min[0]);
  LeafModel model(edge, c.max_points_per_leaf, 24);
  const std::span<const Point> all(s.points);
  for (std::size_t i = 0; i < all.size(); i += 7'000) {
    const auto batch = all.subspan(i, std::min<std::size_t>(7'000, all.size() - i));
    tree.insert(batch);
    (void)tree.update();
    model.insert(batch);
  }
  ASSERT_GT(model.inner().size(), 8u);
  expect_model_tree(tree, model, 5);
  const OctreeStats st = tree.stats();
  EXPECT_EQ(st.points_per_chunk, 800u);  // 8,000-byte chunks of 10-byte points
  EXPECT_EQ(st.points, s.points.size());
  std::uint64_t leaf_chunks = 0;
  for (const auto& [key, points] : model.leaf_points()) leaf_chunks += (points.size() + 799) / 800;
  EXPECT_EQ(st.bytes_points, leaf_chunks * 8000);
}

TEST(QuantizedPoints, PointsKeepThePrecisionOfTheirFirstLeaf) {
  // Many batches of a dense scene: points go into shallow leaves first, and splits take them
  // deeper; each reads back within half a step of the leaf it first went into, at worst of
  // the root (edge / 2^17), however deep it ends.
  const test::Scene& s = test::synth_scene(40'000, synth::Order::Scan, 2);
  const OctreeConfig c = quantized_config();
  Octree tree = test::build(s.bounds, c, s.points, 3'000);
  const NodeSnapshot snap = tree.snapshot();
  const float edge = static_cast<float>(tree.cube().max[0] - tree.cube().min[0]);
  std::vector<Point> got;
  for (const auto& n : snap.nodes) got.insert(got.end(), n.points.begin(), n.points.end());
  ASSERT_EQ(got.size(), s.points.size());
  // Points keep their colours, and every input point has a stored one within the bound.
  const double bound = edge / 131072.0 * 2 + edge * 1e-6;
  std::vector<Point> in = s.points;
  const auto by_x = [](const Point& a, const Point& b) { return a.x < b.x; };
  std::sort(got.begin(), got.end(), by_x);
  std::sort(in.begin(), in.end(), by_x);
  for (std::size_t i = 0; i < in.size(); i += 97) {
    const Point& p = in[i];
    auto lo =
        std::lower_bound(got.begin(), got.end(), Point{static_cast<float>(p.x - bound)}, by_x);
    bool found = false;
    for (; lo != got.end() && lo->x <= p.x + bound && !found; ++lo) {
      found =
          lo->rgba == p.rgba && std::abs(lo->y - p.y) <= bound && std::abs(lo->z - p.z) <= bound;
    }
    ASSERT_TRUE(found) << "input point " << i << " has no stored point within " << bound;
  }
  (void)test::expect_tree_shape(snap, test::check_geometry(snap, c));
}

TEST(QuantizedPoints, BuildEqualsOneBatchAndTheFloatTreeRounded) {
  const test::Scene& s = test::synth_scene(50'000, synth::Order::Scan, 6);
  const OctreeConfig q = quantized_config(Sampling::Random);
  OctreeConfig f = q;
  f.point_encoding = PointEncoding::Float32;
  Octree batch = Octree::create(s.bounds, q);
  batch.insert(s.points);  // one batch: each point goes straight into its final leaf
  (void)batch.update();
  Octree bulk = Octree::build(s.points, s.bounds, q);
  const NodeSnapshot a = batch.snapshot(), b = bulk.snapshot();
  const NodeSnapshot floats = Octree::build(s.points, s.bounds, f).snapshot();
  const auto na = by_key(a), nb = by_key(b), nf = by_key(floats);
  ASSERT_EQ(na.size(), nf.size());
  ASSERT_EQ(nb.size(), nf.size());
  const float edge = static_cast<float>(a.cube.max[0] - a.cube.min[0]);
  const float scale = detail::quant_scale(edge);
  for (const auto& [key, node] : nf) {
    ASSERT_EQ(na.count(key), 1u);
    const NodeSnapshot::Node& x = *na.at(key);
    const NodeSnapshot::Node& y = *nb.at(key);
    ASSERT_EQ(x.leaf, node->leaf);
    if (node->leaf) {
      std::vector<Point> want;
      for (const Point& p : node->points) {
        want.push_back(detail::quantized_point(
            detail::round_to_leaf(detail::quantize(p, scale), node->level), p.rgba, edge));
      }
      want = test::sorted_points(std::move(want));
      ASSERT_TRUE(test::same_points(test::sorted_points(x.points), want));
      ASSERT_TRUE(test::same_points(test::sorted_points(y.points), want));
    } else {
      ASSERT_TRUE(test::same_points(test::sorted_points(x.voxels), test::sorted_points(y.voxels)))
          << "bulk and batch voxels differ at level " << node->level;
    }
  }
  EXPECT_EQ(batch.stats().bytes_points, bulk.stats().bytes_points);
  EXPECT_EQ(batch.stats().bricks, bulk.stats().bricks);
}

TEST(QuantizedPoints, ChannelsStayBesideTheirPointsAndTheReaderAgrees) {
  const test::Scene& s = test::synth_scene(30'000, synth::Order::Scan, 8);
  OctreeConfig c = quantized_config();
  c.channels = attribute_bit(Attribute::Intensity);
  std::vector<std::uint16_t> intensity(s.points.size());
  for (std::size_t i = 0; i < intensity.size(); ++i) {
    intensity[i] = static_cast<std::uint16_t>(s.points[i].rgba * 7u + i);
  }
  Octree tree = Octree::create(s.bounds, c);
  const std::span<const Point> all(s.points);
  for (std::size_t i = 0; i < all.size(); i += 4'000) {
    const std::size_t n = std::min<std::size_t>(4'000, all.size() - i);
    PointAttributes a;
    a.intensity.assign(intensity.begin() + static_cast<std::ptrdiff_t>(i),
                       intensity.begin() + static_cast<std::ptrdiff_t>(i + n));
    tree.insert(all.subspan(i, n), a);
    (void)tree.update();
  }
  const float edge = static_cast<float>(tree.cube().max[0] - tree.cube().min[0]);
  const float bound = edge / 65536.0f + edge * 1e-6f;
  // Each stored (point, intensity) pair belongs to an input point of that colour and intensity
  // within the root's step.
  std::multimap<std::pair<std::uint32_t, std::uint16_t>, Point> inputs;
  for (std::size_t i = 0; i < s.points.size(); ++i)
    inputs.insert({{s.points[i].rgba, intensity[i]}, s.points[i]});
  std::size_t seen = 0;
  tree.for_each_node([&](const NodeInfo& info) {
    if (!info.leaf || info.samples == 0) return;
    std::vector<Point> out(info.samples);
    PointAttributes attrs;
    ASSERT_EQ(tree.read_node(info.id, out, 0, attrs), info.samples);
    ASSERT_EQ(attrs.intensity.size(), out.size());
    for (std::size_t j = 0; j < out.size(); ++j) {
      const auto [lo, hi] = inputs.equal_range({out[j].rgba, attrs.intensity[j]});
      bool found = false;
      for (auto it = lo; it != hi && !found; ++it) {
        found = std::abs(it->second.x - out[j].x) <= bound &&
                std::abs(it->second.y - out[j].y) <= bound &&
                std::abs(it->second.z - out[j].z) <= bound;
      }
      ASSERT_TRUE(found) << "a point's intensity is not its own";
    }
    seen += out.size();
  });
  EXPECT_EQ(seen, s.points.size());
  EXPECT_EQ(tree.stats().points_per_chunk, detail::point_layout(500, 4, true).capacity);
}

TEST(QuantizedPoints, LeavesTakeAboutTenBytesAPoint) {
  const test::Scene& s = test::synth_scene(200'000, synth::Order::Scan, 3);
  OctreeConfig q = quantized_config();
  q.max_points_per_leaf = 20'000;
  q.chunk_capacity = 1000;
  OctreeConfig f = q;
  f.point_encoding = PointEncoding::Float32;
  const OctreeStats sq = Octree::build(s.points, s.bounds, q).stats();
  const OctreeStats sf = Octree::build(s.points, s.bounds, f).stats();
  EXPECT_EQ(sq.nodes, sf.nodes);
  // Inner nodes sample the stored points: a point rounded onto a voxel cell's edge (half a
  // step) may fall into the next cell, so the counts agree only nearly.
  EXPECT_NEAR(static_cast<double>(sq.voxels), static_cast<double>(sf.voxels),
              static_cast<double>(sf.voxels) / 1000.0);
  EXPECT_EQ(sq.points_per_chunk, 1600u);
  EXPECT_GE(sq.bytes_points, s.points.size() * 10);
  EXPECT_LT(sq.bytes_points, s.points.size() * 10 + sq.leaves * 16'000);
  EXPECT_LT(sq.bytes_points * 10, sf.bytes_points * 7);
}

TEST(QuantizedPoints, WeightedFinalizeAndRenderReadTheRoundedPoints) {
  const test::Scene& s = test::synth_scene(30'000, synth::Order::Scan, 5);
  const OctreeConfig c = quantized_config(Sampling::Weighted);
  Octree tree = Octree::create(s.bounds, c);
  tree.insert(s.points);
  (void)tree.update();
  tree.finalize();
  Octree bulk = Octree::build(s.points, s.bounds, c);  // one batch = build (same rounding)
  const NodeSnapshot a = tree.snapshot(), b = bulk.snapshot();
  const auto na = by_key(a), nb = by_key(b);
  ASSERT_EQ(na.size(), nb.size());
  for (const auto& [key, node] : na) {
    const auto& other = *nb.at(key);
    const auto& mine = node->leaf ? node->points : node->voxels;
    const auto& theirs = other.leaf ? other.points : other.voxels;
    ASSERT_TRUE(test::same_points(test::sorted_points(mine), test::sorted_points(theirs)))
        << "level " << node->level;
  }
}

TEST(QuantizedPoints, AnUnknownEncodingIsRefused) {
  OctreeConfig c = quantized_config();
  c.point_encoding = static_cast<PointEncoding>(7);
  EXPECT_THROW((void)Octree::create(test::cube_at_origin(1.0), c), InvalidInput);
}

}  // namespace
}  // namespace simlod
