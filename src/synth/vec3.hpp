// Small double-precision vector and box types for building the synthetic scene. The scene is
// modelled in double precision; points become float only when they are handed out.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace simlod::synth::detail {

struct Vec3 {
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;
};

inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(Vec3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline Vec3 operator*(double s, Vec3 a) { return a * s; }
inline double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double length(Vec3 a) { return std::sqrt(dot(a, a)); }
inline Vec3 normalized(Vec3 a) {
  const double len = length(a);
  return len > 0.0 ? a * (1.0 / len) : Vec3{0.0, 0.0, 1.0};
}

/// Axis-aligned box; empty until something is added.
struct Box3 {
  Vec3 lo{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
          std::numeric_limits<double>::infinity()};
  Vec3 hi{-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity()};

  void expand(Vec3 p) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  }
  void expand(const Box3& b) {
    expand(b.lo);
    expand(b.hi);
  }
  [[nodiscard]] Box3 grown(double margin) const {
    return {lo - Vec3{margin, margin, margin}, hi + Vec3{margin, margin, margin}};
  }
};

/// Axis-aligned rectangle in the ground plane (x0 <= x1, y0 <= y1).
struct Rect {
  double x0 = 0.0;
  double y0 = 0.0;
  double x1 = 0.0;
  double y1 = 0.0;

  [[nodiscard]] double area() const { return (x1 - x0) * (y1 - y0); }
  [[nodiscard]] bool contains(double x, double y) const {
    return x >= x0 && x < x1 && y >= y0 && y < y1;
  }
  [[nodiscard]] Rect grown(double m) const { return {x0 - m, y0 - m, x1 + m, y1 + m}; }
  /// Area of the intersection with another rectangle (0 when disjoint).
  [[nodiscard]] double overlap(const Rect& o) const {
    const double w = std::min(x1, o.x1) - std::max(x0, o.x0);
    const double h = std::min(y1, o.y1) - std::max(y0, o.y0);
    return (w > 0.0 && h > 0.0) ? w * h : 0.0;
  }
};

inline double lerp(double a, double b, double t) { return a + (b - a) * t; }
inline double smoothstep(double e0, double e1, double x) {
  const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

}  // namespace simlod::synth::detail
