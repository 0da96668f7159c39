// Point scenes with normals for the VisibilityMap tests: a closed box sampled on a grid with
// inward normals (each wall kept a margin away from the edges, so that no leaf mixes two walls),
// optionally with an opaque cube inside (outward normals), a brute-force evaluation of the
// rules over every leaf, and clouds for the normals' tests.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "simlod/detail/visibility_math.hpp"
#include "simlod/visibility.hpp"

namespace simlod::test {

struct VisScene {
  std::vector<Point> points;
  std::vector<Normal> normals;
  std::vector<int> part;  ///< 0-5 the box walls, 6 the cube
};

/// Samples the face of the axis-aligned box [lo, hi] on side `axis` (0-2), low or high, on a
/// grid of `step` within `margin` of the face's edges, with normal `sign` along the axis.
inline void add_face(VisScene& s, std::array<double, 3> lo, std::array<double, 3> hi, int axis,
                     bool high, double step, double margin, float sign, int part) {
  const int u = (axis + 1) % 3, v = (axis + 2) % 3;
  for (double a = lo[u] + margin; a <= hi[u] - margin + 1e-9; a += step) {
    for (double b = lo[v] + margin; b <= hi[v] - margin + 1e-9; b += step) {
      double c[3];
      c[axis] = high ? hi[axis] : lo[axis];
      c[u] = a;
      c[v] = b;
      s.points.push_back({static_cast<float>(c[0]), static_cast<float>(c[1]),
                          static_cast<float>(c[2]), 0xFFFFFFFFu});
      float n[3] = {0, 0, 0};
      n[axis] = sign;
      s.normals.push_back({n[0], n[1], n[2]});
      s.part.push_back(part);
    }
  }
}

inline constexpr std::array<double, 3> kCubeLo{0.35, 0.35, 0.1}, kCubeHi{0.65, 0.65, 0.4};

/// The unit box's six walls (normals inward) on a grid of `step`, each wall's grid kept
/// `margin` from its edges; with `cube_step` > 0, a closed cube [kCubeLo, kCubeHi] (normals
/// outward) on a grid of that step.
inline VisScene box_scene(double step, double margin, double cube_step = 0.0) {
  VisScene s;
  for (int axis = 0; axis < 3; ++axis) {
    add_face(s, {0, 0, 0}, {1, 1, 1}, axis, false, step, margin, 1.0f, 2 * axis);
    add_face(s, {0, 0, 0}, {1, 1, 1}, axis, true, step, margin, -1.0f, 2 * axis + 1);
  }
  if (cube_step > 0.0) {
    for (int axis = 0; axis < 3; ++axis) {
      add_face(s, kCubeLo, kCubeHi, axis, false, cube_step, 0.0, -1.0f, 6);
      add_face(s, kCubeLo, kCubeHi, axis, true, cube_step, 0.0, 1.0f, 6);
    }
  }
  return s;
}

/// The rules over every leaf (no sphere hierarchy): leaves a and b see each other.
inline bool brute_visible(const VisibilityMap& map, std::uint32_t a, std::uint32_t b) {
  auto geometry = [&](std::uint32_t l) {
    const VisibilityLeaf& f = map.leaves()[l];
    return detail::LeafGeometry{{f.centroid[0], f.centroid[1], f.centroid[2]},
                                {f.normal[0], f.normal[1], f.normal[2]},
                                f.delta};
  };
  const detail::LeafGeometry p = geometry(a), q = geometry(b);
  if (a == b || !detail::leaves_face(p, q)) return false;
  const detail::Vec3d d = detail::sub(q.centroid, p.centroid);
  std::uint32_t count = 0;
  for (std::uint32_t o = 0; o < map.leaves().size(); ++o) {
    if (o == a || o == b) continue;
    const VisibilityNode& n = map.nodes()[map.leaves()[o].node];
    if (!detail::segment_meets_sphere(p.centroid, d, {n.centre[0], n.centre[1], n.centre[2]},
                                      n.radius)) {
      continue;
    }
    if (detail::occluder_counts(p.centroid, d, geometry(o))) ++count;
  }
  return count < map.config().occluders;
}

/// Clouds for the normals' tests, `count` random points each but the last two: a unit sphere
/// (radii 1 +- `noise`), a noisy plane, spots on a grid of `spots` a unit (duplicated points:
/// ties in distance, zero normals, many parts), two clouds apart (two parts), the box with its
/// cube (`box_step`; axis-aligned walls) and a flat grid (every normal the same: equal weights).
inline std::vector<std::vector<Point>> normal_clouds(unsigned seed, int count, float noise,
                                                     float spots, double box_step) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::vector<Point>> out(6);
  for (int i = 0; i < count; ++i) {
    const float a = u(rng), b = u(rng), c = u(rng);
    const float len = std::sqrt(a * a + b * b + c * c) + 1e-6f;
    const float r = 1.0f + noise * u(rng);
    out[0].push_back({r * a / len, r * b / len, r * c / len, 0});
    out[1].push_back({u(rng), u(rng), 0.01f * u(rng), 0});
    out[2].push_back({std::round(spots * a) / spots, std::round(spots * b) / spots, 0, 0});
    out[3].push_back({(i % 2 == 0 ? -5.0f : 5.0f) + a, b, 0.3f * c * a, 0});
  }
  out[4] = box_scene(box_step, 0.13, box_step / 2).points;
  for (int x = 0; x < 20; ++x) {
    for (int y = 0; y < 20; ++y) out[5].push_back({0.1f * x, 0.1f * y, 2.0f, 0});
  }
  return out;
}

}  // namespace simlod::test
