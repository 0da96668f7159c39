// The rules of estimate_normals' propagated orientation (simlod/normals.hpp) as SIMLOD_HD
// functions, so that the CPU and CUDA backends orient the same normals the same way: the
// neighbour graph's edges, their order (the spanning tree), the seed of each connected part and
// the sign each normal takes from the one above it in the tree. Double precision from the
// floats, without fused multiply-adds (the kernels that use it are compiled with -fmad=false).
#pragma once

#include <cstdint>
#include <cstring>

#include "simlod/detail/hd.hpp"
#include "simlod/point.hpp"
#include "simlod/visibility.hpp"

namespace simlod::detail {

/// n_a . n_b in double precision (exact products of floats, summed in this order).
SIMLOD_HD double normal_dot(const Normal& a, const Normal& b) {
  return double{a.x} * b.x + double{a.y} * b.y + double{a.z} * b.z;
}

/// The bits of `d` as an unsigned integer in the order of the doubles (-0 just below +0).
SIMLOD_HD std::uint64_t ordered_bits(double d) {
  std::uint64_t u = 0;
  std::memcpy(&u, &d, sizeof u);
  return (u >> 63) != 0 ? ~u : u | (std::uint64_t{1} << 63);
}

/// The spanning tree's weight of the edge between points of normals a and b, as ordered bits:
/// 1 - |n_a . n_b|, smallest for parallel normals. Ties go to the lower slot (the position
/// i * k + m of the neighbour entry the edge comes from).
SIMLOD_HD std::uint64_t edge_weight_key(const Normal& a, const Normal& b) {
  const double d = normal_dot(a, b);
  return ordered_bits(1.0 - (d < 0.0 ? -d : d));
}

/// The neighbour entry `slot` = i * k + m (point i's m-th neighbour j) is the edge {i, j} of the
/// graph: j is not i, and the entry is the edge's only one, or the one of the lower point (an
/// edge i-j with j among i's neighbours and i among j's is kept once, from the lower of the
/// two).
SIMLOD_HD bool is_edge_slot(const std::uint32_t* knn, std::uint32_t k, std::uint64_t slot) {
  const std::uint64_t i = slot / k;
  const std::uint32_t j = knn[slot];
  if (j == i) return false;
  if (j > i) return true;
  for (std::uint32_t m = 0; m < k; ++m) {
    if (knn[std::uint64_t{j} * k + m] == i) return false;
  }
  return true;
}

/// How to pick the seed of a connected part: the point of the smallest key (ties to the lower
/// index): the nearest to the viewpoint (squared distance) when there is one, else the highest.
struct SeedRule {
  bool has_viewpoint = false;
  double viewpoint[3] = {0.0, 0.0, 0.0};
};

SIMLOD_HD std::uint64_t seed_key(const SeedRule& r, const Point& p) {
  if (r.has_viewpoint) {
    const double dx = p.x - r.viewpoint[0], dy = p.y - r.viewpoint[1], dz = p.z - r.viewpoint[2];
    return ordered_bits(dx * dx + dy * dy + dz * dz);
  }
  return ~ordered_bits(static_cast<double>(p.z));
}

/// The seed's normal is flipped: it points away from the viewpoint, or, without one, down.
SIMLOD_HD bool seed_flips(const SeedRule& r, const Point& p, const Normal& n) {
  if (r.has_viewpoint) {
    const double toward =
        n.x * (r.viewpoint[0] - p.x) + n.y * (r.viewpoint[1] - p.y) + n.z * (r.viewpoint[2] - p.z);
    return toward < 0.0;
  }
  return n.z < 0.0f;
}

/// A point's sign as a function of the sign s of the normal it takes its orientation from:
/// mul * s + add, with (mul, add) one of (1, 0), (-1, 0) (follow or oppose s) or (0, +-1) (a
/// fixed sign).
struct SignRule {
  int mul = 0;
  int add = 1;
};

/// The rule of a normal n below the oriented normal r it follows (its nearest ancestor in the
/// tree with a normal, or the seed): flipped when n . r < 0, kept when n . r >= 0 (so a normal
/// at right angles to r keeps its sign whatever r's).
SIMLOD_HD SignRule follow_rule(const Normal& n, const Normal& r) {
  const double d = normal_dot(n, r);
  if (d > 0.0) return {1, 0};
  if (d < 0.0) return {-1, 0};
  return {0, 1};
}

/// `outer` applied after `inner`: the rule of a point whose rule is `outer` of a point whose
/// rule is `inner`.
SIMLOD_HD SignRule compose(const SignRule& outer, const SignRule& inner) {
  return {outer.mul * inner.mul, outer.mul * inner.add + outer.add};
}

/// The normal turned around.
SIMLOD_HD Normal flipped(const Normal& n) { return {-n.x, -n.y, -n.z}; }

SIMLOD_HD bool is_zero(const Normal& n) { return n.x == 0.0f && n.y == 0.0f && n.z == 0.0f; }

}  // namespace simlod::detail
