// A test scene where first-come voxel colours visibly fail: one surface (gently rolling
// fields with roads and a few box-shaped buildings) scanned twice with different exposure, as
// when two flights or two photogrammetry blocks of one site are merged. Scan A has the true
// colours, scan B the same texture darkened, and the two are shuffled together, so the first
// point to reach a voxel cell comes from either scan at random and neighbouring voxels flicker
// between bright and dark where the full-resolution points blend to one tone.
#pragma once

#include <cstdint>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"

namespace simlod::examples {

struct ExposureSceneConfig {
  std::uint64_t points = 2'000'000;  ///< both scans together; scan A gets the odd one
  std::uint64_t seed = 1;            ///< the layout, the sample positions and the order
  double dark = 0.55;                ///< scan B's brightness relative to scan A, in (0, 1]
};

struct ExposureScene {
  std::vector<Point> points;  ///< x and y in [0, 200] metres, z the terrain and buildings
  Bounds bounds;              ///< of the points, exactly
};

/// Generates the scene: the same config gives the same points in the same order (integer
/// random numbers; the colours and heights go through the maths library's sin and cos).
/// Both scans sample the same surfaces with the same density at independent positions. Throws
/// InvalidInput for zero points or `dark` outside (0, 1].
ExposureScene exposure_scene(const ExposureSceneConfig& config);

}  // namespace simlod::examples
