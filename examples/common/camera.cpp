#include "common/camera.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/views.hpp"
#include "simlod/error.hpp"

namespace simlod::examples {
namespace {

constexpr std::array<std::string_view, 4> kViews{"overview", "closeup", "top", "front"};
constexpr double kFov = 60.0;

double radians(double degrees) { return degrees * std::numbers::pi / 180.0; }

/// A box much wider than high: terrain, whose close-up stands over it.
bool is_terrain(const Bounds& box) {
  const auto s = box.size();
  return s[2] < 0.25 * std::max(s[0], s[1]);
}

/// Looking along (yaw, pitch) at the box's centre from `distance`; near and far enclose the
/// box. Pitch is held within 89.9 degrees of level, as View::overview does, so that +z stays
/// the screen's up direction.
View orbit(const Bounds& box, double yaw, double pitch, double distance, std::uint32_t width,
           std::uint32_t height) {
  const auto c = box.center();
  const double p = radians(std::clamp(pitch, -89.9, 89.9));
  const std::array<double, 3> dir{std::sin(radians(yaw)) * std::cos(p),
                                  std::cos(radians(yaw)) * std::cos(p), -std::sin(p)};
  const auto s = box.size();
  const double radius = std::max(0.5 * std::hypot(s[0], s[1], s[2]), 1e-6);
  const std::array<double, 3> eye{c[0] - dir[0] * distance, c[1] - dir[1] * distance,
                                  c[2] - dir[2] * distance};
  return View::look_at(eye, c, {0.0, 0.0, 1.0}, kFov, width, height,
                       std::max(distance - 1.01 * radius, 1e-4 * distance),
                       distance + 1.01 * radius);
}

/// The distance from the camera of `v` (a rigid view matrix) to `point`.
double eye_distance(const View& v, const std::array<double, 3>& point) {
  const auto& m = v.view_matrix;  // column-major: R in columns 0-2, t in column 3
  double d2 = 0.0;
  for (int a = 0; a < 3; ++a) {
    // eye = -R^T t
    double eye = 0.0;
    for (int r = 0; r < 3; ++r) eye -= double{m[a * 4 + r]} * double{m[12 + r]};
    d2 += (eye - point[static_cast<std::size_t>(a)]) * (eye - point[static_cast<std::size_t>(a)]);
  }
  return std::sqrt(d2);
}

/// view * M, M the y-up -> z-up map (x, y, z) -> (x, -z, y): the camera of the z-up frame
/// applied to the data's own coordinates.
View from_y_up(View v) {
  const std::array<float, 16> a = v.view_matrix;
  std::array<float, 16> m{};  // column-major
  m[0] = 1;                   // x' = x
  m[9] = -1;                  // y' = -z (row 1, column 2)
  m[6] = 1;                   // z' = y (row 2, column 1)
  m[15] = 1;
  std::array<float, 16> out{};
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) {
      double sum = 0.0;
      for (int k = 0; k < 4; ++k) sum += double{a[k * 4 + r]} * double{m[c * 4 + k]};
      out[c * 4 + r] = static_cast<float>(sum);
    }
  }
  v.view_matrix = out;
  return v;
}

}  // namespace

std::string camera_view_names() {
  std::string s;
  for (const auto name : kViews) s += fmt::format("{}{}", s.empty() ? "" : ", ", name);
  return s;
}

void add_camera_options(CLI::App& app, CameraOptions& o, bool several) {
  auto* view = app.add_option("--view" + std::string(several ? ",--views" : ""), o.views,
                              several ? "cameras, a comma list of " + camera_view_names()
                                      : "camera: " + camera_view_names());
  view->capture_default_str();
  if (several) {
    view->delimiter(',');
  } else {
    view->expected(1);
  }
  app.add_option("--yaw", o.yaw, "degrees about the up axis (0: looking along +y, 90: along +x)");
  app.add_option("--pitch", o.pitch, "degrees down from the horizon (90: straight down)");
  app.add_option("--distance", o.distance,
                 "camera distance from the data's centre, data units (default: fit the data)");
  app.add_option("--up", o.up, "the data's up axis: z or y")->capture_default_str();
}

void check_camera(const CameraOptions& o) {
  if (o.views.empty()) throw InvalidInput("no view given (use " + camera_view_names() + ")");
  for (const std::string& v : o.views) {
    if (std::find(kViews.begin(), kViews.end(), v) == kViews.end()) {
      throw InvalidInput(fmt::format("unknown view '{}' (use {})", v, camera_view_names()));
    }
  }
  if (o.yaw && !std::isfinite(*o.yaw)) throw InvalidInput("--yaw must be finite");
  if (o.pitch && !(std::abs(*o.pitch) <= 90.0)) {
    throw InvalidInput(fmt::format("--pitch {} must lie in [-90, 90]", *o.pitch));
  }
  if (o.distance && !(std::isfinite(*o.distance) && *o.distance > 0.0)) {
    throw InvalidInput(fmt::format("--distance {} must be finite and positive", *o.distance));
  }
  if (o.up != "z" && o.up != "y") {
    throw InvalidInput(fmt::format("--up '{}': the up axis is z or y", o.up));
  }
}

std::array<double, 2> camera_angles(const CameraOptions& o, std::string_view name) {
  double yaw = 30.0, pitch = 45.0;
  if (name == "top") yaw = 0.0, pitch = 90.0;
  if (name == "front") yaw = 0.0, pitch = 0.0;
  if (name == "closeup") pitch = 30.0;
  return {o.yaw.value_or(yaw), o.pitch.value_or(pitch)};
}

Bounds z_up_box(const CameraOptions& o, const Bounds& box) {
  Bounds out;
  for (int c = 0; c < 8; ++c) {
    const auto p = to_z_up(o, {c & 1 ? box.max[0] : box.min[0], c & 2 ? box.max[1] : box.min[1],
                               c & 4 ? box.max[2] : box.min[2]});
    out.expand(p[0], p[1], p[2]);
  }
  return out;
}

Bounds middle_half(const Bounds& box) {
  Bounds out = box;
  const auto c = box.center(), s = box.size();
  for (std::size_t a = 0; a < 3; ++a) {
    out.min[a] = c[a] - 0.25 * s[a];
    out.max[a] = c[a] + 0.25 * s[a];
  }
  return out;
}

std::array<double, 3> to_z_up(const CameraOptions& o, const std::array<double, 3>& p) {
  return o.up == "y" ? std::array<double, 3>{p[0], -p[2], p[1]} : p;
}

View camera_view(const CameraOptions& o, std::string_view name, const Bounds& data_box,
                 std::uint32_t width, std::uint32_t height) {
  CameraOptions one = o;
  one.views = {std::string(name)};
  check_camera(one);
  const Bounds box = z_up_box(o, data_box);
  const auto [yaw, pitch] = camera_angles(o, name);
  View v;
  if (name == "closeup" && is_terrain(box) && !o.pitch && !o.distance) {
    v = closeup_view(box, width, height, o.yaw.value_or(0.0));
  } else {
    if (o.distance) {
      v = orbit(box, yaw, pitch, *o.distance, width, height);
    } else if (name == "closeup") {
      // Framed on the middle half, with near and far around the whole object.
      const View framing = View::overview(middle_half(box), width, height, yaw, pitch, kFov);
      v = orbit(box, yaw, pitch, eye_distance(framing, box.center()), width, height);
    } else {
      v = View::overview(box, width, height, yaw, pitch, kFov);
    }
  }
  return o.up == "y" ? from_y_up(v) : v;
}

}  // namespace simlod::examples
