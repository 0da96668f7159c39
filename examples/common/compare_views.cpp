#include "common/compare_views.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

namespace simlod::examples {

namespace {

using Vec = std::array<double, 3>;
constexpr double kFovY = 60.0;  // degrees, as the other example cameras
constexpr double kDegree = std::numbers::pi / 180.0;

/// From the eye towards the target: yaw about +z (0 = along +y), pitch down from the horizon.
Vec direction(double yaw_degrees, double pitch_degrees) {
  const double yaw = yaw_degrees * kDegree, pitch = pitch_degrees * kDegree;
  return {std::sin(yaw) * std::cos(pitch), std::cos(yaw) * std::cos(pitch), -std::sin(pitch)};
}

double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec along(const Vec& from, const Vec& dir, double t) {
  return {from[0] + t * dir[0], from[1] + t * dir[1], from[2] + t * dir[2]};
}
Vec offset(const Point& p, const Vec& origin) {
  return {p.x - origin[0], p.y - origin[1], p.z - origin[2]};
}

/// The point nearest to the camera among those within a thin cylinder around the ray through
/// `spot` along `dir`: the surface the camera sees there. The cylinder widens until it holds a
/// point (sparse data).
Vec first_hit(std::span<const Point> points, const Vec& spot, const Vec& dir, double diagonal) {
  for (double radius = 0.005 * diagonal; radius <= 2.0 * diagonal; radius *= 2.0) {
    double best = std::numeric_limits<double>::infinity();
    for (const Point& p : points) {
      const Vec q = offset(p, spot);
      const double t = dot(q, dir);
      if (t < best && dot(q, q) - t * t <= radius * radius) best = t;
    }
    if (std::isfinite(best)) return along(spot, dir, best);
  }
  return spot;
}

/// Points per unit of area around `centre`: the count within the smallest of a few growing
/// spheres that holds at least 64 points, over the disc of the surface the sphere cuts.
double surface_density(std::span<const Point> points, const Vec& centre, double diagonal) {
  constexpr int kRadii = 8;  // 1% of the diagonal, doubled up to 128%
  std::array<std::uint64_t, kRadii> within{};
  const double r0 = 0.01 * diagonal;
  for (const Point& p : points) {
    const Vec q = offset(p, centre);
    double r = r0;
    for (int k = 0; k < kRadii; ++k, r *= 2.0) {
      if (dot(q, q) <= r * r) {
        ++within[k];
        break;
      }
    }
  }
  std::uint64_t count = 0;
  double r = r0;
  for (int k = 0; k < kRadii; ++k, r *= 2.0) {
    count += within[k];
    if (count >= 64) break;
  }
  return static_cast<double>(std::max<std::uint64_t>(count, 1)) / (std::numbers::pi * r * r);
}

/// The larger side, in pixels, of the screen rectangle around the 8 projected corners of `b`
/// (as the renderer sizes nodes); unbounded when a corner lies behind the camera.
double pixel_extent(const View& v, const Bounds& b) {
  const std::array<float, 16> m = v.view_projection();
  double lo[2] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  double hi[2] = {-lo[0], -lo[1]};
  for (int c = 0; c < 8; ++c) {
    const Vec p{c & 1 ? b.max[0] : b.min[0], c & 2 ? b.max[1] : b.min[1],
                c & 4 ? b.max[2] : b.min[2]};
    double clip[4];
    for (int r = 0; r < 4; ++r)
      clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    if (!(clip[3] > 0.0)) return std::numeric_limits<double>::infinity();
    const double px[2] = {(clip[0] / clip[3] + 1.0) / 2.0 * v.width,
                          (1.0 - clip[1] / clip[3]) / 2.0 * v.height};
    for (int a = 0; a < 2; ++a) {
      lo[a] = std::min(lo[a], px[a]);
      hi[a] = std::max(hi[a], px[a]);
    }
  }
  return std::max(hi[0] - lo[0], hi[1] - lo[1]);
}

}  // namespace

std::vector<CompareView> closeup_views(std::span<const Point> points, const Bounds& box,
                                       std::uint32_t count, std::uint32_t width,
                                       std::uint32_t height) {
  const Vec centre = box.center(), size = box.size();
  const double diagonal = std::max(std::sqrt(dot(size, size)), 1e-6);
  const double aspect = static_cast<double>(width) / height;
  const double tan_half = std::tan(0.5 * kFovY * kDegree);
  std::vector<CompareView> views;
  for (std::uint32_t i = 0; i < count; ++i) {
    const Vec dir = direction(20.0 + 360.0 * i / count, i % 2 == 0 ? 40.0 : 55.0);
    const double phi = 2.0 * std::numbers::pi * i / count + 0.6;
    const Vec spot{centre[0] + 0.2 * size[0] * std::cos(phi),
                   centre[1] + 0.2 * size[1] * std::sin(phi), centre[2]};
    const Vec target = first_hit(points, spot, dir, diagonal);
    // A surface facing the camera at distance d fills a frame of (2 d tan_half)^2 * aspect.
    const double density = surface_density(points, target, diagonal);
    const double pixels = static_cast<double>(width) * height;
    const double fill = std::sqrt(pixels / (density * aspect)) / (2.0 * tan_half);
    const double distance = std::clamp(fill, 0.01 * diagonal, 0.2 * diagonal);
    const Vec eye = along(target, dir, -distance);
    views.push_back({"closeup", i,
                     View::look_at(eye, target, {0.0, 0.0, 1.0}, kFovY, width, height,
                                   0.01 * distance, distance + 2.0 * diagonal)});
  }
  return views;
}

std::vector<CompareView> zoomed_out_views(const Bounds& box, const Bounds& cube, float lod,
                                          std::uint32_t count, std::uint32_t width,
                                          std::uint32_t height) {
  const Vec centre = box.center(), size = box.size();
  const double radius = std::max(0.5 * std::sqrt(dot(size, size)), 1e-6);
  // The cells of level 2 of the root cube that hold data (the renderer's nodes of that level).
  std::vector<Bounds> cells;
  const double edge = (cube.max[0] - cube.min[0]) / 4.0;
  for (int c = 0; c < 64; ++c) {
    Bounds cell;
    for (int a = 0; a < 3; ++a) {
      cell.min[a] = cube.min[a] + edge * ((c >> (2 * a)) & 3);
      cell.max[a] = cell.min[a] + edge;
    }
    bool holds = true;
    for (int a = 0; a < 3; ++a) {
      holds = holds && cell.min[a] <= box.max[a] && cell.max[a] >= box.min[a];
    }
    if (holds) cells.push_back(cell);
  }
  std::vector<CompareView> views;
  for (std::uint32_t i = 0; i < count; ++i) {
    const Vec dir = direction(45.0 + 360.0 * i / count, i % 2 == 0 ? 35.0 : 55.0);
    const auto camera = [&](double distance) {
      return View::look_at(along(centre, dir, -distance), centre, {0.0, 0.0, 1.0}, kFovY, width,
                           height, distance - 1.01 * radius, distance + 1.01 * radius);
    };
    // Far enough that the box spans at most half the frame's height (its smaller side) and
    // every level-2 cell projects to at most the LOD threshold: nothing finer than level 2 is
    // drawn.
    const auto far_enough = [&](const View& v) {
      if (pixel_extent(v, box) > 0.5 * std::min(width, height)) return false;
      return std::all_of(cells.begin(), cells.end(),
                         [&](const Bounds& c) { return pixel_extent(v, c) <= lod; });
    };
    double near = 1.05 * radius, far = 1e4 * radius;  // bisection on the distance
    for (int step = 0; step < 60; ++step) {
      const double mid = std::sqrt(near * far);
      (far_enough(camera(mid)) ? far : near) = mid;
    }
    views.push_back({"zoomedout", i, camera(far)});
  }
  return views;
}

}  // namespace simlod::examples
