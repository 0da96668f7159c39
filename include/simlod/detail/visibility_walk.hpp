// The occluder walk of the visibility map (simlod/visibility.hpp), shared by the CPU executor
// and the CUDA kernels.
//
// A leaf occludes by its own exact tests (its sphere, then occluder_counts, in double
// precision); the walk over the tree only prunes. It prunes by boxes in single precision in the
// cube's frame (origin 0, edge 1): a leaf's box holds the disk where a segment must cross its
// plane to count, an inner node's the boxes below it, and each test has a slack far above its
// rounding error, so a node is never pruned when a leaf below it would count. The count
// therefore equals a test of every leaf, whichever order the walk takes, and the CPU and CUDA
// walks agree.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "simlod/detail/visibility_math.hpp"
#include "simlod/visibility.hpp"

namespace simlod::detail {

/// Nodes a walk keeps waiting at most: 7 siblings a level of a path of height <= 16, and one.
inline constexpr std::uint32_t kWalkStack = 8 * 17;

/// The cube's frame: x -> (x - origin) / edge.
struct WalkFrame {
  double origin[3] = {0.0, 0.0, 0.0};
  double edge = 1.0;
};

/// A node as the walk prunes by it, in the cube's frame, single precision: the box of the
/// disks of the leaves below it (disk_box), rounded outwards.
struct alignas(16) WalkNode {
  float lo[3] = {0.0f, 0.0f, 0.0f};
  std::uint32_t first = 0;  ///< first child (inner), or leaf number (leaf)
  float hi[3] = {0.0f, 0.0f, 0.0f};
  std::uint32_t children = 0;  ///< 0 for a leaf
};

/// A box in the cube's frame, in double precision (make_walk_node rounds it outwards).
struct WalkBox {
  double lo[3] = {0.0, 0.0, 0.0};
  double hi[3] = {0.0, 0.0, 0.0};
};

/// Coordinates of a box no segment meets (a leaf that occludes nothing).
inline constexpr float kNowhere = 3e38f;

/// The box, in `frame`, of the disk where a segment must cross leaf `g`'s plane to count
/// (occluder_counts: within Delta of the centroid), grown by a hair for the rounding of the
/// normal; a box no segment meets for a leaf whose normal is 0. The box is flat across an
/// axis-aligned leaf.
inline WalkBox disk_box(const LeafGeometry& g, const WalkFrame& frame) {
  WalkBox b;
  const double nn = dot(g.normal, g.normal);
  if (!(nn > 0.0)) {
    for (int a = 0; a < 3; ++a) b.lo[a] = b.hi[a] = kNowhere;
    return b;
  }
  const double n[3] = {g.normal.x, g.normal.y, g.normal.z};
  const double x[3] = {g.centroid.x, g.centroid.y, g.centroid.z};
  for (int a = 0; a < 3; ++a) {
    const double across = 1.0 - n[a] * n[a] / nn;
    const double reach = g.delta * (std::sqrt(across > 0.0 ? across : 0.0) + 1e-6) / frame.edge;
    const double c = (x[a] - frame.origin[a]) / frame.edge;
    b.lo[a] = c - reach;
    b.hi[a] = c + reach;
  }
  return b;
}

/// The walk's node for a box: rounded outwards to single precision.
inline WalkNode make_walk_node(const WalkBox& box, std::uint32_t first, std::uint32_t children) {
  WalkNode w;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (int a = 0; a < 3; ++a) {
    w.lo[a] = static_cast<float>(box.lo[a]);
    if (static_cast<double>(w.lo[a]) > box.lo[a]) w.lo[a] = std::nextafter(w.lo[a], -kInf);
    w.hi[a] = static_cast<float>(box.hi[a]);
    if (static_cast<double>(w.hi[a]) < box.hi[a]) w.hi[a] = std::nextafter(w.hi[a], kInf);
  }
  w.first = first;
  w.children = children;
  return w;
}

/// A node's exact sphere (its centre and radius in double precision, as in VisibilityNode).
struct alignas(16) WalkSphere {
  double centre[3] = {0.0, 0.0, 0.0};
  double radius = 0.0;
};

/// The slack of the single-precision test, in edges, for segments inside the cube: some 10x the
/// worst rounding of that test (about 3e-6 for coordinates up to 2). Longer segments scale it.
inline constexpr float kWalkSlack = 1.0f / 32768.0f;

/// A segment p -> p + d in the cube's frame, single precision.
struct WalkSegment {
  float p[3] = {0.0f, 0.0f, 0.0f};
  float d[3] = {0.0f, 0.0f, 0.0f};
  float inv[3] = {0.0f, 0.0f, 0.0f};  ///< 1 / d per axis (+-1e30 where d is 0)
  float inv_dd = 0.0f;                ///< 1 / d . d, 0 for a segment too short to matter
  float slack = kWalkSlack;
};

SIMLOD_HD double abs_hd(double v) { return v < 0.0 ? -v : v; }

SIMLOD_HD WalkSegment walk_segment(const WalkFrame& f, const Vec3d& p, const Vec3d& d) {
  WalkSegment s;
  const double pl[3] = {(p.x - f.origin[0]) / f.edge, (p.y - f.origin[1]) / f.edge,
                        (p.z - f.origin[2]) / f.edge};
  const double dl[3] = {d.x / f.edge, d.y / f.edge, d.z / f.edge};
  double reach = 1.0;  // the largest coordinate either end has in the frame
  for (int a = 0; a < 3; ++a) {
    s.p[a] = static_cast<float>(pl[a]);
    s.d[a] = static_cast<float>(dl[a]);
    s.inv[a] = s.d[a] != 0.0f ? 1.0f / s.d[a] : 1e30f;
    const double lo = abs_hd(pl[a]), hi = abs_hd(pl[a] + dl[a]);
    reach = reach > lo ? reach : lo;
    reach = reach > hi ? reach : hi;
  }
  const float dd = s.d[0] * s.d[0] + s.d[1] * s.d[1] + s.d[2] * s.d[2];
  s.inv_dd = dd > 1e-30f ? 1.0f / dd : 0.0f;
  s.slack = static_cast<float>(kWalkSlack * reach);
  return s;
}

/// The segment may meet the node's box: false only when it misses it by far more than any
/// rounding (the slab test on the box grown by the segment's slack). On true, [t0, t1] is
/// where along the segment it is in that grown box.
SIMLOD_HD bool walk_may_meet(const WalkSegment& s, const WalkNode& n, float& t0, float& t1) {
  t0 = 0.0f;
  t1 = 1.0f;
  for (int a = 0; a < 3; ++a) {
    const float u = (n.lo[a] - s.slack - s.p[a]) * s.inv[a];
    const float v = (n.hi[a] + s.slack - s.p[a]) * s.inv[a];
    const float near = u < v ? u : v, far = u < v ? v : u;
    t0 = near > t0 ? near : t0;
    t1 = far < t1 ? far : t1;
  }
  return t0 <= t1;
}

SIMLOD_HD bool walk_may_meet(const WalkSegment& s, const WalkNode& n) {
  float t0 = 0.0f, t1 = 1.0f;
  return walk_may_meet(s, n, t0, t1);
}

/// Leaf `node` (whose walk test passed) occludes the segment p -> p + d: its exact sphere test,
/// then the occluder rule.
SIMLOD_HD bool leaf_occludes(const WalkSphere& sphere, const LeafGeometry& leaf, const Vec3d& p,
                             const Vec3d& d) {
  return segment_meets_sphere(p, d, {sphere.centre[0], sphere.centre[1], sphere.centre[2]},
                              sphere.radius) &&
         occluder_counts(p, d, leaf);
}

/// The lowest set bit of a non-zero mask.
SIMLOD_HD std::uint32_t lowest_bit(std::uint32_t mask) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(__ffs(static_cast<int>(mask)) - 1);
#else
  return static_cast<std::uint32_t>(std::countr_zero(mask));
#endif
}

/// No node: an empty hint.
inline constexpr std::uint32_t kNoHint = 0xFFFFFFFFu;

/// What a walk reads: the nodes as it prunes by them, their exact spheres, the leaves'
/// geometry, and the cube's frame.
struct WalkTree {
  const WalkNode* walk = nullptr;
  const WalkSphere* spheres = nullptr;
  const LeafGeometry* geometry = nullptr;
  WalkFrame frame;
};

/// Leaves (other than `skip_a` and `skip_b`) that occlude the segment from p to p + d, counted
/// up to `limit`. `hint` (a node id, or kNoHint) names a leaf likely to occlude, such as the one
/// that occluded the caller's last segment from the same leaf: it is tried first, then the walk
/// goes depth first from the root over the nodes the segment may meet, skipping it. A node's
/// children are tested before they wait on the stack, and those whose span along the segment
/// holds its middle come first (an occluder of a pair seen from its two ends is most often in
/// between; two masks, with no sort and no array in local memory).
/// On return `hint` names the last leaf found to occlude (unchanged when none). The count does
/// not depend on the hint or on the order of the walk.
SIMLOD_HD std::uint32_t count_occluders(const WalkTree& t, const Vec3d& p, const Vec3d& d,
                                        std::uint32_t skip_a, std::uint32_t skip_b,
                                        std::uint32_t limit, std::uint32_t& hint) {
  const WalkSegment s = walk_segment(t.frame, p, d);
  std::uint32_t count = 0;
  std::uint32_t skip_c = VisibilityNode::kNone;
  if (hint != kNoHint) {
    const WalkNode& node = t.walk[hint];
    if (node.first != skip_a && node.first != skip_b && walk_may_meet(s, node) &&
        leaf_occludes(t.spheres[hint], t.geometry[node.first], p, d)) {
      if (++count >= limit) return count;
      skip_c = node.first;
    }
  }
  if (!walk_may_meet(s, t.walk[0])) return count;
  std::uint32_t stack[kWalkStack];
  std::uint32_t top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const std::uint32_t id = stack[--top];
    const WalkNode node = t.walk[id];
    if (node.children == 0) {
      if (node.first == skip_a || node.first == skip_b || node.first == skip_c) continue;
      if (leaf_occludes(t.spheres[id], t.geometry[node.first], p, d)) {
        hint = id;
        if (++count >= limit) return count;
      }
      continue;
    }
    // The children met, those whose span holds the segment's middle on top (taken first).
    std::uint32_t met = 0, middle = 0;
    for (std::uint32_t k = 0; k < node.children; ++k) {
      float t0 = 0.0f, t1 = 1.0f;
      if (!walk_may_meet(s, t.walk[node.first + k], t0, t1)) continue;
      met |= 1u << k;
      if (t0 <= 0.5f && t1 >= 0.5f) middle |= 1u << k;
    }
    for (std::uint32_t rest = met & ~middle; rest != 0; rest &= rest - 1) {
      stack[top++] = node.first + lowest_bit(rest);
    }
    for (; middle != 0; middle &= middle - 1) {
      stack[top++] = node.first + lowest_bit(middle);
    }
  }
  return count;
}

}  // namespace simlod::detail
