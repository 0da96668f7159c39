// Parametric surfaces the scene is made of. Each maps (u, v) in [0, 1)^2 onto its surface;
// quads, triangles, cylinders and cones are area-uniform in (u, v), spheres nearly so
// (ellipsoids and tori are weighted through area_scale()). Points are always taken on the
// surface, never inside a volume, as a scanner sees them.
#pragma once

#include <array>
#include <cstdint>

#include "synth/vec3.hpp"

namespace simlod::synth::detail {

enum class ShapeKind : std::uint8_t {
  Quad,       ///< origin + u a + v b
  Triangle,   ///< corners origin, origin + a, origin + b
  Cylinder,   ///< vertical, open: base centre origin, radius, height
  Ellipsoid,  ///< centre origin, radii a = (rx, ry, rz)
  Cone,       ///< vertical, open, apex at origin pointing up, base radius and height below
  Torus,      ///< centre origin, ring in the plane of unit axes a and b, normal n
};

struct Shape {
  ShapeKind kind = ShapeKind::Quad;
  Vec3 origin;
  Vec3 a;
  Vec3 b;
  Vec3 n;
  double radius = 0.0;  ///< cylinder, cone, torus (major radius)
  double height = 0.0;  ///< cylinder, cone; torus: tube radius
};

struct SurfacePoint {
  Vec3 position;
  Vec3 normal;  ///< unit, outward
};

[[nodiscard]] SurfacePoint evaluate(const Shape& shape, double u, double v);
/// Surface area per unit (u, v) area at (u, v); its integral over [0,1)^2 is the area.
[[nodiscard]] double area_scale(const Shape& shape, double u, double v);
/// Conservative box of the surface.
[[nodiscard]] Box3 bounding_box(const Shape& shape);
/// Approximate surface length along u and along v (for cutting it into pieces).
[[nodiscard]] std::array<double, 2> parameter_lengths(const Shape& shape);
/// Fewest pieces per direction that keep the sampling close to area-uniform.
[[nodiscard]] std::array<int, 2> min_subdivision(const Shape& shape);

// Constructors with the conventions above.
Shape make_quad(Vec3 origin, Vec3 a, Vec3 b);
Shape make_triangle(Vec3 origin, Vec3 a, Vec3 b);
Shape make_cylinder(Vec3 base, double radius, double height);
Shape make_ellipsoid(Vec3 centre, Vec3 radii);
Shape make_cone(Vec3 apex, double radius, double height);
Shape make_torus(Vec3 centre, Vec3 axis_a, Vec3 axis_b, double major, double minor);

}  // namespace simlod::synth::detail
