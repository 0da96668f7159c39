#include "synth/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace simlod::synth::detail {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

}  // namespace

SurfacePoint evaluate(const Shape& s, double u, double v) {
  switch (s.kind) {
    case ShapeKind::Quad: return {s.origin + u * s.a + v * s.b, normalized(cross(s.a, s.b))};
    case ShapeKind::Triangle: {
      const double r = std::sqrt(u);  // area-uniform: the apex gets no extra points
      return {s.origin + r * ((1.0 - v) * s.a + v * s.b), normalized(cross(s.a, s.b))};
    }
    case ShapeKind::Cylinder: {
      const double c = std::cos(kTwoPi * u);
      const double sn = std::sin(kTwoPi * u);
      return {s.origin + Vec3{s.radius * c, s.radius * sn, v * s.height}, {c, sn, 0.0}};
    }
    case ShapeKind::Ellipsoid: {
      const double c = std::cos(kTwoPi * u);
      const double sn = std::sin(kTwoPi * u);
      const double z = 2.0 * v - 1.0;  // uniform in z: Archimedes' area-uniform sphere map
      const double rho = std::sqrt(std::max(0.0, 1.0 - z * z));
      const Vec3 local{s.a.x * rho * c, s.a.y * rho * sn, s.a.z * z};
      const Vec3 grad{local.x / (s.a.x * s.a.x), local.y / (s.a.y * s.a.y),
                      local.z / (s.a.z * s.a.z)};
      return {s.origin + local, normalized(grad)};
    }
    case ShapeKind::Cone: {
      const double c = std::cos(kTwoPi * u);
      const double sn = std::sin(kTwoPi * u);
      const double r = std::sqrt(v);  // distance from the apex, area-uniform
      const Vec3 p = s.origin + Vec3{r * s.radius * c, r * s.radius * sn, -r * s.height};
      return {p, normalized(Vec3{s.height * c, s.height * sn, s.radius})};
    }
    case ShapeKind::Torus: {
      const double ct = std::cos(kTwoPi * u);
      const double st = std::sin(kTwoPi * u);
      const double cp = std::cos(kTwoPi * v);
      const double sp = std::sin(kTwoPi * v);
      const Vec3 dir = ct * s.a + st * s.b;
      return {s.origin + (s.radius + s.height * cp) * dir + (s.height * sp) * s.n,
              cp * dir + sp * s.n};
    }
  }
  return {s.origin, {0.0, 0.0, 1.0}};
}

double area_scale(const Shape& s, double u, double v) {
  switch (s.kind) {
    case ShapeKind::Quad: return length(cross(s.a, s.b));
    case ShapeKind::Triangle: return 0.5 * length(cross(s.a, s.b));
    case ShapeKind::Cylinder: return kTwoPi * s.radius * s.height;
    case ShapeKind::Cone: return std::numbers::pi * s.radius * std::hypot(s.radius, s.height);
    case ShapeKind::Ellipsoid: {
      // |d p/d phi x d p/d z| = |(b c rho cos, a c rho sin, a b z)|, times d phi/du d z/dv.
      const double c = std::cos(kTwoPi * u);
      const double sn = std::sin(kTwoPi * u);
      const double z = 2.0 * v - 1.0;
      const double rho = std::sqrt(std::max(0.0, 1.0 - z * z));
      const Vec3 j{s.a.y * s.a.z * rho * c, s.a.x * s.a.z * rho * sn, s.a.x * s.a.y * z};
      return 2.0 * kTwoPi * length(j);
    }
    case ShapeKind::Torus:
      return kTwoPi * kTwoPi * s.height * (s.radius + s.height * std::cos(kTwoPi * v));
  }
  return 0.0;
}

Box3 bounding_box(const Shape& s) {
  Box3 box;
  switch (s.kind) {
    case ShapeKind::Quad:
      box.expand(s.origin);
      box.expand(s.origin + s.a);
      box.expand(s.origin + s.b);
      box.expand(s.origin + s.a + s.b);
      break;
    case ShapeKind::Triangle:
      box.expand(s.origin);
      box.expand(s.origin + s.a);
      box.expand(s.origin + s.b);
      break;
    case ShapeKind::Cylinder:
      box.expand(s.origin - Vec3{s.radius, s.radius, 0.0});
      box.expand(s.origin + Vec3{s.radius, s.radius, s.height});
      break;
    case ShapeKind::Ellipsoid:
      box.expand(s.origin - s.a);
      box.expand(s.origin + s.a);
      break;
    case ShapeKind::Cone:
      box.expand(s.origin - Vec3{s.radius, s.radius, s.height});
      box.expand(s.origin + Vec3{s.radius, s.radius, 0.0});
      break;
    case ShapeKind::Torus: {
      const double r = s.radius + s.height;
      box.expand(s.origin - Vec3{r, r, r});
      box.expand(s.origin + Vec3{r, r, r});
      break;
    }
  }
  return box;
}

std::array<double, 2> parameter_lengths(const Shape& s) {
  switch (s.kind) {
    case ShapeKind::Quad: return {length(s.a), length(s.b)};
    case ShapeKind::Triangle: return {std::max(length(s.a), length(s.b)), length(s.b - s.a)};
    case ShapeKind::Cylinder: return {kTwoPi * s.radius, s.height};
    case ShapeKind::Ellipsoid: return {kTwoPi * std::max(s.a.x, s.a.y), std::numbers::pi * s.a.z};
    case ShapeKind::Cone: return {kTwoPi * s.radius, std::hypot(s.radius, s.height)};
    case ShapeKind::Torus: return {kTwoPi * (s.radius + s.height), kTwoPi * s.height};
  }
  return {1.0, 1.0};
}

std::array<int, 2> min_subdivision(const Shape& s) {
  switch (s.kind) {
    case ShapeKind::Ellipsoid: return {2, 2};
    case ShapeKind::Torus: return {16, 8};  // the area scale varies around the tube
    default: return {1, 1};
  }
}

Shape make_quad(Vec3 origin, Vec3 a, Vec3 b) {
  return {ShapeKind::Quad, origin, a, b, {}, 0.0, 0.0};
}
Shape make_triangle(Vec3 origin, Vec3 a, Vec3 b) {
  return {ShapeKind::Triangle, origin, a, b, {}, 0.0, 0.0};
}
Shape make_cylinder(Vec3 base, double radius, double height) {
  return {ShapeKind::Cylinder, base, {}, {}, {}, radius, height};
}
Shape make_ellipsoid(Vec3 centre, Vec3 radii) {
  return {ShapeKind::Ellipsoid, centre, radii, {}, {}, 0.0, 0.0};
}
Shape make_cone(Vec3 apex, double radius, double height) {
  return {ShapeKind::Cone, apex, {}, {}, {}, radius, height};
}
Shape make_torus(Vec3 centre, Vec3 axis_a, Vec3 axis_b, double major, double minor) {
  const Vec3 a = normalized(axis_a);
  const Vec3 b = normalized(axis_b);
  return {ShapeKind::Torus, centre, a, b, normalized(cross(a, b)), major, minor};
}

}  // namespace simlod::synth::detail
