// Camera presets of the example programs and benchmarks, for a box in octree coordinates
// (a scene's bounds minus the octree cube's minimum corner).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "simlod/coloring.hpp"
#include "simlod/error.hpp"
#include "simlod/view.hpp"

namespace simlod::examples {

/// `bounds` (file coordinates) less `origin` (the octree cube's minimum corner): the box in
/// octree coordinates, which the cameras below frame.
inline Bounds relative_box(const Bounds& bounds, const std::array<double, 3>& origin) {
  Bounds box;
  for (std::size_t a = 0; a < 3; ++a) {
    box.min[a] = bounds.min[a] - origin[a];
    box.max[a] = bounds.max[a] - origin[a];
  }
  return box;
}

/// The whole box from above at 45 degrees, from the south-south-west.
inline View overview_view(const Bounds& box, std::uint32_t width, std::uint32_t height) {
  return View::overview(box, width, height, 30.0, 45.0);
}

/// Standing over the middle of the box at 80% of its height, looking at the centre and down,
/// towards `yaw_degrees` (0: north, +y; 90: east, +x): near samples fill the picture while the
/// far half of the scene stays in view.
inline View closeup_view(const Bounds& box, std::uint32_t width, std::uint32_t height,
                         double yaw_degrees = 0.0) {
  const auto c = box.center();
  const auto s = box.size();
  const double span = std::max({s[0], s[1], 1e-6});
  const double yaw = yaw_degrees * 3.14159265358979323846 / 180.0;
  const double sy = std::sin(yaw), cy = std::cos(yaw);
  const std::array<double, 3> eye{c[0] - 0.12 * span * sy, c[1] - 0.12 * span * cy,
                                  box.min[2] + 0.8 * s[2] + 1e-3 * span};
  const std::array<double, 3> target{c[0] + 0.05 * span * sy, c[1] + 0.05 * span * cy,
                                     box.min[2] + 0.2 * s[2]};
  return View::look_at(eye, target, {0.0, 0.0, 1.0}, 60.0, width, height, 1e-4 * span, 3.0 * span);
}

/// "overview" or "closeup"; throws InvalidInput for other names.
inline View named_view(std::string_view name, const Bounds& box, std::uint32_t width,
                       std::uint32_t height) {
  if (name == "overview") return overview_view(box, width, height);
  if (name == "closeup") return closeup_view(box, width, height);
  throw InvalidInput("unknown view '" + std::string(name) + "' (use overview or closeup)");
}

/// The names --color takes: the renderer's modes (auto, rgb, elevation) and the attributes the
/// points can be coloured by as they are read (simlod::ColorBy).
inline constexpr std::array<std::string_view, 7> kColorNames{
    "auto", "rgb", "elevation", "intensity", "classification", "returns", "source"};

/// "auto, rgb, elevation, intensity, classification, returns or source".
inline std::string color_names() {
  std::string s;
  for (std::size_t i = 0; i < kColorNames.size(); ++i) {
    s += i == 0 ? "" : i + 1 == kColorNames.size() ? " or " : ", ";
    s += kColorNames[i];
  }
  return s;
}

/// What --color asks of the loading: the attribute to colour the points by (File for the
/// renderer's modes). Throws InvalidInput for unknown names.
inline ColorBy load_coloring(std::string_view mode) {
  if (std::find(kColorNames.begin(), kColorNames.end(), mode) == kColorNames.end()) {
    throw InvalidInput("unknown colour mode '" + std::string(mode) + "' (use " + color_names() +
                       ")");
  }
  if (mode == "auto" || mode == "rgb" || mode == "elevation") return ColorBy::File;
  return color_by_from_string(mode);
}

/// Sets the colour mode of `v` by name: "rgb" and the attribute names (the points' colours),
/// "elevation" (a ramp over the box's z range), or "auto" (elevation when the data has no
/// colour of its own). Throws InvalidInput for other names.
inline void apply_color(View& v, std::string_view mode, bool data_has_color, const Bounds& box) {
  (void)load_coloring(mode);  // checks the name
  const bool elevation = mode == "elevation" || (mode == "auto" && !data_has_color);
  v.color = elevation ? ColorMode::Elevation : ColorMode::Rgb;
  const auto low = static_cast<float>(box.min[2]);
  const auto high = static_cast<float>(box.max[2]);
  v.elevation_range = {low, high > low ? high : low + 1.0f};  // flat data: one colour
}

/// With attribute channels: sets the colour mode of `v` for an attribute name (intensity over
/// `intensity`, classification, returns, source); nothing for the other names.
inline void apply_channel_color(View& v, std::string_view mode,
                                const std::array<float, 2>& intensity) {
  switch (load_coloring(mode)) {
    case ColorBy::Intensity:
      v.color = ColorMode::Intensity;
      v.intensity_range = intensity;
      break;
    case ColorBy::Classification: v.color = ColorMode::Classification; break;
    case ColorBy::Returns: v.color = ColorMode::Returns; break;
    case ColorBy::PointSourceId: v.color = ColorMode::PointSourceId; break;
    case ColorBy::File: break;
  }
}

}  // namespace simlod::examples
