// The visibility map's octree arithmetic (simlod/visibility.hpp) as SIMLOD_HD functions, so
// that the CPU executor (core/cpu/visibility/tree.cpp) and the CUDA one
// (kernels/visibility/tree.cu) build the same tree bit for bit: a point's cell at the height
// limit, a leaf's geometry and sphere, an inner node's enclosing sphere. All in double
// precision, each sum in the points' octree order.
#pragma once

#include <math.h>

#include <cstdint>

#include "simlod/detail/visibility_math.hpp"
#include "simlod/visibility.hpp"

namespace simlod::detail {

/// A leaf's normal is 0 when the mean of its points' unit normals is shorter than this.
inline constexpr double kCancelledNormal = 0.05;

SIMLOD_HD double length(const Vec3d& v) { return ::sqrt(dot(v, v)); }

/// The cell (0 .. cells - 1) of coordinate c along an axis of the cube (origin, edge).
SIMLOD_HD std::uint32_t vis_cell(double c, double origin, double edge, std::uint32_t cells) {
  const double f = ::floor((c - origin) / edge * cells);
  const double top = static_cast<double>(cells - 1);
  return static_cast<std::uint32_t>(f < 0.0 ? 0.0 : (f > top ? top : f));
}

SIMLOD_HD Vec3d point_of(const Point& p) { return {p.x, p.y, p.z}; }

/// The geometry of the leaf holding points ids[0 .. count): centroid, normal (the mean of the
/// unit normals made unit, or 0), Delta.
SIMLOD_HD LeafGeometry leaf_geometry(const Point* points, const Normal* normals,
                                     const std::uint32_t* ids, std::uint32_t count) {
  LeafGeometry g;
  Vec3d sum, nsum;
  for (std::uint32_t k = 0; k < count; ++k) {
    const Vec3d p = point_of(points[ids[k]]);
    sum = {sum.x + p.x, sum.y + p.y, sum.z + p.z};
    const Normal& m = normals[ids[k]];
    const Vec3d n{m.x, m.y, m.z};
    const double len = length(n);
    if (len > 0.0) nsum = {nsum.x + n.x / len, nsum.y + n.y / len, nsum.z + n.z / len};
  }
  const double c = static_cast<double>(count);
  g.centroid = {sum.x / c, sum.y / c, sum.z / c};
  const Vec3d mean{nsum.x / c, nsum.y / c, nsum.z / c};
  const double len = length(mean);
  if (len >= kCancelledNormal) g.normal = {mean.x / len, mean.y / len, mean.z / len};
  for (std::uint32_t k = 0; k < count; ++k) {
    const double d = length(sub(point_of(points[ids[k]]), g.centroid));
    g.delta = g.delta < d ? d : g.delta;
  }
  return g;
}

/// A leaf's sphere radius: the distance from its cube's centre to its farthest point.
SIMLOD_HD double leaf_radius(const Point* points, const std::uint32_t* ids, std::uint32_t count,
                             const Vec3d& centre) {
  double r = 0.0;
  for (std::uint32_t k = 0; k < count; ++k) {
    const double d = length(sub(point_of(points[ids[k]]), centre));
    r = r < d ? d : r;
  }
  return r;
}

/// An inner node's sphere radius: max over its children of |c - c_child| + r_child.
SIMLOD_HD double inner_radius(const VisibilityNode* nodes, const VisibilityNode& node) {
  const Vec3d c{node.centre[0], node.centre[1], node.centre[2]};
  double r = 0.0;
  for (std::uint32_t k = 0; k < node.children; ++k) {
    const VisibilityNode& ch = nodes[node.first_child + k];
    const double d = length(sub({ch.centre[0], ch.centre[1], ch.centre[2]}, c)) + ch.radius;
    r = r < d ? d : r;
  }
  return r;
}

/// The centre of a node's cube.
SIMLOD_HD void node_centre(VisibilityNode& node, const double origin[3], double edge) {
  const double size = edge / static_cast<double>(1u << node.depth);
  for (int a = 0; a < 3; ++a) node.centre[a] = origin[a] + (node.cell[a] + 0.5) * size;
}

}  // namespace simlod::detail
