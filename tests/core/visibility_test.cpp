// VisibilityMap on the CPU: leaf pairs against a brute force over every leaf, the links'
// invariants (symmetric, each visible leaf pair covered exactly once, placed as high as the
// levels allow), the analytic box scene with and without an occluding cube, queries from an
// eye, degenerate scenes and bad input.
#include "simlod/visibility.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "core/expect_refused.hpp"
#include "core/visibility_scenes.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

std::vector<std::uint32_t> leaves_below(const VisibilityMap& map, std::uint32_t node) {
  std::vector<std::uint32_t> out, stack{node};
  while (!stack.empty()) {
    const VisibilityNode& n = map.nodes()[stack.back()];
    stack.pop_back();
    if (n.leaf != VisibilityNode::kNone) out.push_back(n.leaf);
    for (std::uint32_t k = 0; k < n.children; ++k) stack.push_back(n.first_child + k);
  }
  return out;
}

bool all_see(const VisibilityMap& map, std::uint32_t a, std::uint32_t b) {
  for (const std::uint32_t x : leaves_below(map, a)) {
    for (const std::uint32_t y : leaves_below(map, b)) {
      if (!map.visible(x, y)) return false;
    }
  }
  return true;
}

/// Points on a sphere (outward normals) and on two planes, with some noise in the normals.
VisScene random_scene(std::uint32_t seed, std::size_t n) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VisScene s;
  for (std::size_t i = 0; i < n; ++i) {
    const int kind = static_cast<int>(i % 3);
    double p[3], nrm[3];
    if (kind == 0) {  // sphere of radius 0.3 around (0, 0, 0.5)
      double v[3] = {u(rng), u(rng), u(rng)};
      const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + 1e-9;
      for (int a = 0; a < 3; ++a) nrm[a] = v[a] / len;
      p[0] = 0.3 * nrm[0];
      p[1] = 0.3 * nrm[1];
      p[2] = 0.5 + 0.3 * nrm[2];
    } else if (kind == 1) {  // floor z = 0, facing up
      p[0] = u(rng);
      p[1] = u(rng);
      p[2] = 0.0;
      nrm[0] = 0.05 * u(rng);
      nrm[1] = 0.05 * u(rng);
      nrm[2] = 1.0;
    } else {  // wall x = -1, facing +x
      p[0] = -1.0;
      p[1] = u(rng);
      p[2] = 0.5 + 0.5 * u(rng);
      nrm[0] = 1.0;
      nrm[1] = 0.05 * u(rng);
      nrm[2] = 0.05 * u(rng);
    }
    s.points.push_back({static_cast<float>(p[0]), static_cast<float>(p[1]),
                        static_cast<float>(p[2]), 0xFFFFFFFFu});
    s.normals.push_back(
        {static_cast<float>(nrm[0]), static_cast<float>(nrm[1]), static_cast<float>(nrm[2])});
    s.part.push_back(kind);
  }
  return s;
}

TEST(Visibility, LeafPairsMatchBruteForce) {
  for (std::uint32_t seed : {1u, 2u}) {
    const VisScene s = random_scene(seed, 900);
    for (std::uint32_t height : {3u, 5u}) {
      for (std::uint32_t k : {1u, 3u}) {
        SCOPED_TRACE(testing::Message() << "seed " << seed << ", height " << height << ", K " << k);
        const VisibilityMap map = VisibilityMap::build(s.points, s.normals, {height, 4, k});
        const auto leaves = static_cast<std::uint32_t>(map.leaves().size());
        ASSERT_GT(leaves, 10u);
        std::uint64_t visible = 0;
        for (std::uint32_t a = 0; a < leaves; ++a) {
          for (std::uint32_t b = 0; b < leaves; ++b) {
            ASSERT_EQ(map.visible(a, b), brute_visible(map, a, b)) << a << " " << b;
            visible += a < b && map.visible(a, b) ? 1 : 0;
          }
        }
        EXPECT_EQ(visible, map.stats().visible_pairs);
        EXPECT_GT(visible, 0u);
        EXPECT_LT(visible, map.stats().facing_pairs);  // some pairs are occluded
      }
    }
  }
}

TEST(Visibility, LinksCoverEveryVisiblePairOnceAsHighAsPossible) {
  const VisScene s = random_scene(3, 700);
  const VisibilityMap map = VisibilityMap::build(s.points, s.normals, {5, 4, 1});
  const auto& nodes = map.nodes();
  const auto leaves = static_cast<std::uint32_t>(map.leaves().size());
  // cover[a * leaves + b]: links covering leaf pair (a, b).
  std::vector<std::uint32_t> cover(std::size_t{leaves} * leaves, 0);
  std::uint64_t links = 0;
  for (std::uint32_t a = 0; a < nodes.size(); ++a) {
    const auto la = map.links(a);
    EXPECT_TRUE(std::is_sorted(la.begin(), la.end()));
    for (const std::uint32_t b : la) {
      const auto lb = map.links(b);
      EXPECT_TRUE(std::binary_search(lb.begin(), lb.end(), a)) << "asymmetric " << a << " " << b;
      if (b < a) continue;
      ++links;
      ASSERT_TRUE(all_see(map, a, b)) << "link " << a << " " << b;
      for (const std::uint32_t x : leaves_below(map, a)) {
        for (const std::uint32_t y : leaves_below(map, b)) {
          ++cover[std::size_t{x} * leaves + y];
          ++cover[std::size_t{y} * leaves + x];
        }
      }
      // As high as the levels allow: one level up (a node of that level's depth goes to its
      // parent, a shallower leaf stands), the parents are one node or do not all see each other.
      const std::uint32_t level = std::max(nodes[a].depth, nodes[b].depth);
      const std::uint32_t pa = nodes[a].depth == level ? nodes[a].parent : a;
      const std::uint32_t pb = nodes[b].depth == level ? nodes[b].parent : b;
      EXPECT_TRUE(pa == pb || !all_see(map, pa, pb)) << "link " << a << " " << b << " too low";
    }
  }
  EXPECT_EQ(links, map.stats().links);
  std::uint64_t per_level = 0;
  for (const auto c : map.stats().links_per_level) per_level += c;
  EXPECT_EQ(per_level, links);
  for (std::uint32_t x = 0; x < leaves; ++x) {
    for (std::uint32_t y = 0; y < leaves; ++y) {
      ASSERT_EQ(cover[std::size_t{x} * leaves + y], map.visible(x, y) ? 1u : 0u) << x << " " << y;
    }
  }
  EXPECT_GT(links, 0u);
  EXPECT_LT(links, map.stats().visible_pairs);  // links stand for many leaf pairs
}

/// The box's leaves each hold points of one wall (a margin above 1/8 keeps walls apart: a corner
/// cell of depth 3 holds no point, and shallower cells hold too many to stay leaves).
std::vector<int> leaf_parts(const VisibilityMap& map, const VisScene& s) {
  std::vector<int> part(map.leaves().size(), -1);
  for (std::uint32_t i = 0; i < s.points.size(); ++i) {
    int& p = part[map.leaf_of_point(i)];
    EXPECT_TRUE(p == -1 || p == s.part[i]) << "a leaf mixes two walls";
    p = s.part[i];
  }
  return part;
}

TEST(Visibility, EmptyBoxWallsSeeEveryOtherWall) {
  const VisScene s = box_scene(1.0 / 40, 0.13);
  const VisibilityMap map = VisibilityMap::build(s.points, s.normals, {4, 8, 1});
  const std::vector<int> part = leaf_parts(map, s);
  const auto leaves = static_cast<std::uint32_t>(map.leaves().size());
  for (std::uint32_t a = 0; a < leaves; ++a) {
    for (std::uint32_t b = a + 1; b < leaves; ++b) {
      ASSERT_EQ(map.visible(a, b), part[a] != part[b]) << a << " " << b;
    }
  }
  // From the box's centre (free space) every leaf is seen; from a point of the wall x = 0,
  // every leaf of the other walls.
  EXPECT_EQ(map.visible_from({0.5, 0.5, 0.5}).size(), leaves);
  const auto mask = map.visible_points({0.5, 0.5, 0.5});
  EXPECT_EQ(std::count(mask.begin(), mask.end(), 1), static_cast<long>(s.points.size()));
  const std::uint32_t wall_point = 0;  // the first point of wall 0
  const std::uint32_t eye_leaf = map.leaf_of_point(wall_point);
  const auto seen =
      map.visible_from({s.points[wall_point].x, s.points[wall_point].y, s.points[wall_point].z});
  for (std::uint32_t q = 0; q < leaves; ++q) {
    EXPECT_EQ(std::binary_search(seen.begin(), seen.end(), q), part[q] != part[eye_leaf]) << q;
  }
}

/// The segment from p to q meets the box [lo, hi] (slab test).
bool segment_hits_box(const std::array<double, 3>& p, const std::array<double, 3>& q,
                      const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  double t0 = 0.0, t1 = 1.0;
  for (int a = 0; a < 3; ++a) {
    const double d = q[a] - p[a];
    if (std::abs(d) < 1e-15) {
      if (p[a] < lo[a] || p[a] > hi[a]) return false;
      continue;
    }
    double ta = (lo[a] - p[a]) / d, tb = (hi[a] - p[a]) / d;
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
    if (t0 > t1) return false;
  }
  return true;
}

/// Faces of the box [lo, hi] that the segment from p to q crosses at least `inset` from the
/// face's edges.
int clean_crossings(const std::array<double, 3>& p, const std::array<double, 3>& q,
                    const std::array<double, 3>& lo, const std::array<double, 3>& hi,
                    double inset) {
  int count = 0;
  for (int a = 0; a < 3; ++a) {
    for (const double plane : {lo[a], hi[a]}) {
      const double d = q[a] - p[a];
      if (std::abs(d) < 1e-15) continue;
      const double t = (plane - p[a]) / d;
      if (!(t > 0.0 && t < 1.0)) continue;
      bool inside = true;
      for (int b = 0; b < 3; ++b) {
        const double x = p[b] + t * (q[b] - p[b]);
        if (b != a && (x < lo[b] + inset || x > hi[b] - inset)) inside = false;
      }
      count += inside ? 1 : 0;
    }
  }
  return count;
}

TEST(Visibility, CubeShadowsWhatItHidesFromAFloorLeaf) {
  const VisScene s = box_scene(1.0 / 40, 0.13, 1.0 / 160);
  const VisibilityMap map = VisibilityMap::build(s.points, s.normals, {4, 8, 1});
  const std::vector<int> part = leaf_parts(map, s);
  // The eye: the floor (wall 4, z = 0) leaf nearest (0.2, 0.5).
  std::uint32_t eye = 0;
  double best = std::numeric_limits<double>::max();
  for (std::uint32_t l = 0; l < map.leaves().size(); ++l) {
    if (part[l] != 4) continue;
    const auto& c = map.leaves()[l].centroid;
    const double d = std::hypot(c[0] - 0.2, c[1] - 0.5);
    if (d < best) {
      best = d;
      eye = l;
    }
  }
  const auto& e = map.leaves()[eye].centroid;
  // The shadow's border. Occluder discs (radius Delta) leave pinholes where four leaves meet
  // and tilt along the cube's edges (their leaves mix two faces), so a segment counts as
  // hidden when it crosses both faces it passes at least one leaf cell (1/16) from their
  // edges; the cube's grid is fine (1/160), which makes the pinholes small. A segment counts
  // as in plain view when it misses the cube grown by two cells (its leaves reach past its
  // edges by their Delta).
  const double in = 1.0 / 16, out = 2.0 / 16;
  int hidden = 0, seen = 0;
  for (std::uint32_t q = 0; q < map.leaves().size(); ++q) {
    if (part[q] == 4 || part[q] == 6) continue;  // the floor itself, the cube
    const auto& c = map.leaves()[q].centroid;
    const bool inner = clean_crossings(e, c, kCubeLo, kCubeHi, in) == 2;
    const bool outer =
        segment_hits_box(e, c, {kCubeLo[0] - out, kCubeLo[1] - out, kCubeLo[2] - out},
                         {kCubeHi[0] + out, kCubeHi[1] + out, kCubeHi[2] + out});
    if (inner) {
      EXPECT_FALSE(map.visible(eye, q)) << "leaf " << q << " is behind the cube";
      ++hidden;
    } else if (!outer) {
      EXPECT_TRUE(map.visible(eye, q)) << "leaf " << q << " is in plain view";
      ++seen;
    }
  }
  EXPECT_GT(hidden, 20);
  EXPECT_GT(seen, 200);
}

TEST(Visibility, DegenerateScenesGiveDocumentedResults) {
  // Every point on one plane, normals alike: no pair faces another.
  VisScene plane;
  add_face(plane, {0, 0, 0}, {1, 1, 0}, 2, false, 0.05, 0.0, 1.0f, 0);
  const VisibilityMap flat = VisibilityMap::build(plane.points, plane.normals);
  EXPECT_GT(flat.stats().leaves, 1u);
  EXPECT_EQ(flat.stats().facing_pairs, 0u);
  EXPECT_EQ(flat.stats().visible_pairs, 0u);
  EXPECT_EQ(flat.stats().links, 0u);
  // Every point on one spot: one leaf at the height limit, nothing to pair.
  const std::vector<Point> same(100, Point{1.0f, 2.0f, 3.0f, 0});
  const std::vector<Normal> up(100, Normal{0, 0, 1});
  const VisibilityMap spot = VisibilityMap::build(same, up, {6, 8, 1});
  EXPECT_EQ(spot.stats().leaves, 1u);
  EXPECT_EQ(spot.nodes()[spot.leaves()[0].node].depth, 6u);
  EXPECT_EQ(spot.stats().leaf_pairs, 0u);
  // Normals that cancel within a leaf: normal 0, the leaf faces nothing.
  const std::vector<Point> two{{0, 0, 0, 0}, {0, 0, 0, 0}};
  const std::vector<Normal> opposite{{0, 0, 1}, {0, 0, -1}};
  const VisibilityMap cancel = VisibilityMap::build(two, opposite);
  EXPECT_EQ(cancel.leaves()[0].normal, (std::array<double, 3>{0, 0, 0}));
}

TEST(Visibility, BadInputIsAClearError) {
  VisScene s = random_scene(4, 50);
  expect_refused([&] { (void)VisibilityMap::build({}, {}); }, "no points");
  expect_refused([&] { (void)VisibilityMap::build(s.points, std::span(s.normals).first(49)); },
                 "49 normals for 50 points");
  expect_refused([&] { (void)VisibilityMap::build(s.points, s.normals, {0, 8, 1}); }, "height 0");
  expect_refused([&] { (void)VisibilityMap::build(s.points, s.normals, {17, 8, 1}); }, "height 17");
  expect_refused(
      [&] {
        (void)VisibilityMap::build(s.points, s.normals, {8, 0, 1});
      },
      "leaf_points");
  expect_refused([&] { (void)VisibilityMap::build(s.points, s.normals, {8, 8, 0}); }, "occluders");
  auto points = s.points;
  points[17].y = std::numeric_limits<float>::quiet_NaN();
  expect_refused([&] { (void)VisibilityMap::build(points, s.normals); }, "point 17");
  auto normals = s.normals;
  normals[23].z = std::numeric_limits<float>::infinity();
  expect_refused([&] { (void)VisibilityMap::build(s.points, normals); }, "normal of point 23");
  const VisibilityMap map = VisibilityMap::build(s.points, s.normals, {3, 4, 1});
  const auto leaves = static_cast<std::uint32_t>(map.leaves().size());
  expect_refused([&] { (void)map.visible(0, leaves); }, "leaf");
  expect_refused([&] { (void)map.links(static_cast<std::uint32_t>(map.nodes().size())); }, "node");
  expect_refused([&] { (void)map.leaf_of_point(50); }, "point 50");
}

}  // namespace
}  // namespace simlod::test
