// simlod::View: cameras from look-at parameters, matrices or a box to frame, and validation.
#include "simlod/view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/framebuffer_store.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace {

using Vec = std::array<double, 3>;

Vec sub(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double length(const Vec& a) { return std::sqrt(dot(a, a)); }
Vec scaled(const Vec& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }

bool finite(const Vec& a) {
  return std::isfinite(a[0]) && std::isfinite(a[1]) && std::isfinite(a[2]);
}

void check_size(std::uint32_t width, std::uint32_t height) {
  if (width == 0 || height == 0) {
    throw InvalidInput(fmt::format("view size {} x {}: both sides must be > 0", width, height));
  }
}

}  // namespace

View View::look_at(const Vec& position, const Vec& target, const Vec& up, double fov_y_degrees,
                   std::uint32_t width, std::uint32_t height, double near_plane, double far_plane) {
  check_size(width, height);
  if (!finite(position) || !finite(target) || !finite(up)) {
    throw InvalidInput("look_at: position, target and up must be finite");
  }
  if (!(fov_y_degrees > 0.0 && fov_y_degrees < 180.0)) {
    throw InvalidInput(
        fmt::format("look_at: field of view {} degrees is not in (0, 180)", fov_y_degrees));
  }
  if (!(near_plane > 0.0 && far_plane > near_plane && std::isfinite(far_plane))) {
    throw InvalidInput(fmt::format("look_at: near {} and far {} must satisfy 0 < near < far",
                                   near_plane, far_plane));
  }
  const Vec dir = sub(target, position);
  if (!(length(dir) > 0.0)) throw InvalidInput("look_at: target equals position");
  const Vec f = scaled(dir, 1.0 / length(dir));
  const Vec side = cross(f, up);
  if (!(length(side) > 1e-9 * length(up))) {
    throw InvalidInput("look_at: up is zero or parallel to the view direction");
  }
  const Vec s = scaled(side, 1.0 / length(side));
  const Vec u = cross(s, f);
  std::array<double, 16> v{s[0],
                           u[0],
                           -f[0],
                           0,
                           s[1],
                           u[1],
                           -f[1],
                           0,
                           s[2],
                           u[2],
                           -f[2],
                           0,
                           -dot(s, position),
                           -dot(u, position),
                           dot(f, position),
                           1};
  const double t = 1.0 / std::tan(fov_y_degrees * std::numbers::pi / 360.0);
  const double aspect = static_cast<double>(width) / height;
  std::array<double, 16> p{};
  p[0] = t / aspect;
  p[5] = t;
  p[10] = (far_plane + near_plane) / (near_plane - far_plane);
  p[11] = -1.0;
  p[14] = 2.0 * far_plane * near_plane / (near_plane - far_plane);
  View view;
  for (int i = 0; i < 16; ++i) {
    view.view_matrix[i] = static_cast<float>(v[i]);
    view.projection_matrix[i] = static_cast<float>(p[i]);
  }
  view.width = width;
  view.height = height;
  return view;
}

View View::from_matrices(const std::array<float, 16>& view_m, const std::array<float, 16>& proj,
                         std::uint32_t width, std::uint32_t height) {
  View view;
  view.view_matrix = view_m;
  view.projection_matrix = proj;
  view.width = width;
  view.height = height;
  view.validate();
  return view;
}

View View::overview(const Bounds& box, std::uint32_t width, std::uint32_t height,
                    double yaw_degrees, double pitch_degrees, double fov_y_degrees) {
  check_size(width, height);
  if (box.empty() || !finite(box.min) || !finite(box.max)) {
    throw InvalidInput("overview: the box is empty or not finite");
  }
  const double yaw = yaw_degrees * std::numbers::pi / 180.0;
  const double pitch = std::clamp(pitch_degrees, -89.9, 89.9) * std::numbers::pi / 180.0;
  const Vec dir{std::sin(yaw) * std::cos(pitch), std::cos(yaw) * std::cos(pitch), -std::sin(pitch)};
  const Vec centre = box.center();
  const double radius = std::max(0.5 * length(box.size()), 1e-6);
  // The sphere around the box fits into the narrower of the two fields of view; then the
  // camera moves in while all 8 corners stay inside 95% of the picture (bisection).
  const double half_y = fov_y_degrees * std::numbers::pi / 360.0;
  const double half_x = std::atan(std::tan(half_y) * width / height);
  const auto camera = [&](double distance) {
    return look_at(sub(centre, scaled(dir, distance)), centre, {0.0, 0.0, 1.0}, fov_y_degrees,
                   width, height, std::max(distance - 1.01 * radius, 1e-3 * radius),
                   distance + 1.01 * radius);
  };
  const auto fits = [&](const View& v) {
    const std::array<float, 16> m = v.view_projection();
    for (int c = 0; c < 8; ++c) {
      const Vec p{c & 1 ? box.max[0] : box.min[0], c & 2 ? box.max[1] : box.min[1],
                  c & 4 ? box.max[2] : box.min[2]};
      double clip[4];
      for (int r = 0; r < 4; ++r) {
        clip[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
      }
      if (!(clip[3] > 0.0) || std::abs(clip[0]) > 0.95 * clip[3] ||
          std::abs(clip[1]) > 0.95 * clip[3] || clip[2] < -clip[3]) {
        return false;
      }
    }
    return true;
  };
  double far_ok = radius / std::sin(std::min(half_x, half_y)), near_bad = 0.0;
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (far_ok + near_bad);
    if (mid > 1e-6 * radius && fits(camera(mid))) {
      far_ok = mid;
    } else {
      near_bad = mid;
    }
  }
  return camera(far_ok);
}

std::array<float, 16> View::view_projection() const {
  std::array<float, 16> out{};
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) {
      double sum = 0.0;
      for (int k = 0; k < 4; ++k) {
        sum += static_cast<double>(projection_matrix[k * 4 + r]) * view_matrix[c * 4 + k];
      }
      out[c * 4 + r] = static_cast<float>(sum);
    }
  }
  return out;
}

void View::validate() const {
  check_size(width, height);
  for (int i = 0; i < 16; ++i) {
    if (!std::isfinite(view_matrix[i]) || !std::isfinite(projection_matrix[i])) {
      throw InvalidInput(fmt::format("view: matrix element {} is not finite", i));
    }
  }
  if (!std::isfinite(lod_threshold) || lod_threshold < 0.0f) {
    throw InvalidInput(
        fmt::format("view: lod_threshold {} must be finite and >= 0", lod_threshold));
  }
  detail::validate_edl(edl_strength, edl_radius, "view");
  if (point_size < 1 || point_size > kMaxPointSize) {
    throw InvalidInput(
        fmt::format("view: point_size {} must be in 1 .. {}", point_size, kMaxPointSize));
  }
  if (color == ColorMode::Elevation &&
      !(std::isfinite(elevation_range[0]) && std::isfinite(elevation_range[1]) &&
        elevation_range[0] < elevation_range[1])) {
    throw InvalidInput(fmt::format(
        "view: elevation_range [{}, {}] must be finite with the low end below the high end",
        elevation_range[0], elevation_range[1]));
  }
  if (static_cast<std::uint32_t>(color) > static_cast<std::uint32_t>(ColorMode::PointSourceId)) {
    throw InvalidInput(
        fmt::format("view: unknown color mode value {}", static_cast<std::uint32_t>(color)));
  }
  if (color == ColorMode::Intensity) {
    if (!(std::isfinite(intensity_range[0]) && std::isfinite(intensity_range[1]) &&
          intensity_range[0] < intensity_range[1])) {
      throw InvalidInput(fmt::format(
          "view: intensity_range [{}, {}] must be finite with the low end below the high end",
          intensity_range[0], intensity_range[1]));
    }
    if (!(std::isfinite(intensity_gamma) && intensity_gamma > 0.0f)) {
      throw InvalidInput(
          fmt::format("view: intensity_gamma {} must be finite and > 0", intensity_gamma));
    }
  }
}

}  // namespace simlod
