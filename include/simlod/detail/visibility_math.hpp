// The visibility map's per-pair rules (simlod/visibility.hpp) as SIMLOD_HD functions, so that
// the CPU executor and CUDA kernels decide alike. All in double precision.
#pragma once

#include "simlod/detail/hd.hpp"

namespace simlod::detail {

struct Vec3d {
  double x = 0.0, y = 0.0, z = 0.0;
};

SIMLOD_HD Vec3d sub(const Vec3d& a, const Vec3d& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
SIMLOD_HD double dot(const Vec3d& a, const Vec3d& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/// What a leaf brings to the rules: the centroid of its points, its normal (unit, or 0 when
/// its points' normals cancel) and Delta, the distance from the centroid to its farthest point.
struct LeafGeometry {
  Vec3d centroid;
  Vec3d normal;
  double delta = 0.0;
};

/// Leaves p and q face each other: n_p . (q - p) > 0 and n_q . (p - q) > 0.
SIMLOD_HD bool leaves_face(const LeafGeometry& p, const LeafGeometry& q) {
  const Vec3d d = sub(q.centroid, p.centroid);
  return dot(p.normal, d) > 0.0 && -dot(q.normal, d) > 0.0;
}

/// The segment from p to p + d meets the sphere of centre c and radius r (its closest point
/// lies within r).
SIMLOD_HD bool segment_meets_sphere(const Vec3d& p, const Vec3d& d, const Vec3d& c, double r) {
  const Vec3d pc = sub(c, p);
  const double dd = dot(d, d);
  double t = dd > 0.0 ? dot(pc, d) / dd : 0.0;
  t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
  const Vec3d off{pc.x - t * d.x, pc.y - t * d.y, pc.z - t * d.z};
  return dot(off, off) <= r * r;
}

/// |n . d| at or below this times |d| counts as ~0: the segment runs along the occluder's plane.
inline constexpr double kParallel = 1e-9;

/// Occluder o counts for the segment from p to p + d: n . d is not ~0, t = n . (x - p) / n . d
/// lies in (0, 1), and the segment crosses the occluder's plane within Delta of its centroid x.
SIMLOD_HD bool occluder_counts(const Vec3d& p, const Vec3d& d, const LeafGeometry& o) {
  const double den = dot(o.normal, d);
  const double len2 = dot(d, d);
  if (den * den <= kParallel * kParallel * len2) return false;
  const double t = dot(o.normal, sub(o.centroid, p)) / den;
  if (!(t > 0.0 && t < 1.0)) return false;
  const Vec3d hit{p.x + t * d.x - o.centroid.x, p.y + t * d.y - o.centroid.y,
                  p.z + t * d.z - o.centroid.z};
  return dot(hit, hit) <= o.delta * o.delta;
}

/// Unordered pairs of n entries, n (n - 1) / 2 (0 for n = 0 too: the product wraps to 0).
SIMLOD_HD unsigned long long pair_count(unsigned long long n) { return n * (n - 1) / 2; }

/// Index of the unordered pair (i, j), i < j < n, in a triangle of pair_count(n) bits.
SIMLOD_HD unsigned long long pair_index(unsigned long long i, unsigned long long j,
                                        unsigned long long n) {
  return i * (2 * n - i - 1) / 2 + (j - i - 1);
}

}  // namespace simlod::detail
