// The camera vocabulary the programs share (simlod-render, simlod-demo, simlod-preview): named
// views, yaw / pitch / distance with one meaning everywhere, and y-up data.
//
//   --view overview|closeup|top|front   (a comma list where a program draws several)
//   --yaw DEG        about the up axis; 0 looks along +y (y-up data: along -z), 90 along +x
//   --pitch DEG      down from the horizon: 0 level, 90 straight down
//   --distance D     from the data's centre, in data units (default: the data fills the frame)
//   --up z|y         the data's up axis (photogrammetry and meshes are often y-up)
//
// overview: yaw 30, pitch 45; top: pitch 90; front: yaw 0, pitch 0; all three frame the whole
// box (its corners within 95% of the picture). closeup: for terrain (a box much wider than
// high) a camera standing over the middle, looking at the centre; for an object it frames the
// middle half of the box from yaw 30, pitch 30. --yaw and --pitch override a view's angles
// (the terrain close-up turns with --yaw), --distance its framing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/view.hpp"

namespace CLI {
class App;
}

namespace simlod::examples {

struct CameraOptions {
  std::vector<std::string> views{};
  std::optional<double> yaw{}, pitch{}, distance{};
  std::string up = "z";
};

/// "overview, closeup, top, front".
[[nodiscard]] std::string camera_view_names();

/// Adds --view (default `views`; `several`: a comma list), --yaw, --pitch, --distance and
/// --up to `app`.
void add_camera_options(CLI::App& app, CameraOptions& options, bool several);

/// Throws InvalidInput naming the first unknown view, a non-finite or out-of-range angle
/// (pitch in [-90, 90]), a distance that is not finite and positive, or an up axis other than
/// z or y: called before anything is loaded.
void check_camera(const CameraOptions& options);

/// The camera `name` for `box` (octree coordinates) at width x height, as described above.
[[nodiscard]] View camera_view(const CameraOptions& options, std::string_view name,
                               const Bounds& box, std::uint32_t width, std::uint32_t height);

/// The yaw and pitch (degrees) of view `name` with the options' overrides: what simlod-preview's
/// orthographic camera takes.
[[nodiscard]] std::array<double, 2> camera_angles(const CameraOptions& options,
                                                  std::string_view name);

/// `box` in the z-up frame of the cameras (the box around its 8 corners mapped by to_z_up).
[[nodiscard]] Bounds z_up_box(const CameraOptions& options, const Bounds& box);

/// The middle half of `box` along every axis: what the close-up of an object frames.
[[nodiscard]] Bounds middle_half(const Bounds& box);

/// A point in the z-up frame of the cameras: (x, y, z) for z-up data, (x, -z, y) for y-up.
[[nodiscard]] std::array<double, 3> to_z_up(const CameraOptions& options,
                                            const std::array<double, 3>& p);

}  // namespace simlod::examples
