// The cameras of simlod-compare: close-ups near the surface and zoomed-out views of the whole
// scene, spread around it and fixed by the data alone (no seed), so that two runs, two
// colour filters or two machines are measured from the same places.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"
#include "simlod/view.hpp"

namespace simlod::examples {

struct CompareView {
  std::string kind;  ///< "closeup" or "zoomedout"
  std::uint32_t index = 0;
  View view;
};

/// `count` close-ups of `points` (octree coordinates; `box` their bounds). Close-up i looks
/// down at 40-55 degrees from yaw 20 + 360 i / count at the first point that a ray through a
/// spot in the middle of the box meets, from the distance at which the surface there fills
/// the frame with about one point per pixel (the local density counted around that point),
/// kept between 1% and 20% of the box's diagonal.
std::vector<CompareView> closeup_views(std::span<const Point> points, const Bounds& box,
                                       std::uint32_t count, std::uint32_t width,
                                       std::uint32_t height);

/// `count` views of the whole box from yaw 45 + 360 i / count, 35-55 degrees down, far enough
/// that the box spans at most half the frame's height and that the renderer draws nothing
/// finer than level 2 (every level-2 cell of `cube`, the octree's root cube, that meets the
/// box projects to at most `lod` pixels): the scene is small and coarse levels are drawn.
std::vector<CompareView> zoomed_out_views(const Bounds& box, const Bounds& cube, float lod,
                                          std::uint32_t count, std::uint32_t width,
                                          std::uint32_t height);

}  // namespace simlod::examples
