// Octree geometry: from the user's bounds to the cube, the quantisation scale and the depth
// limit that both backends share.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "core/octree_impl.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

/// Deepest level allowed whatever the grid: 24 levels already resolve a 10 km cube to
/// well below a millimetre, and float coordinates cannot tell deeper nodes apart.
constexpr std::uint32_t kMaxDepthLimit = 24;

bool finite(const std::array<double, 3>& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

}  // namespace

OctreeGeometry make_geometry(const Bounds& bounds, const OctreeConfig& config) {
  if (bounds.empty()) {
    throw InvalidInput(fmt::format(
        "octree cube: bounds are empty (min ({}, {}, {}) exceeds max "
        "({}, {}, {}) on some axis)",
        bounds.min[0], bounds.min[1], bounds.min[2], bounds.max[0], bounds.max[1], bounds.max[2]));
  }
  if (!finite(bounds.min) || !finite(bounds.max)) {
    throw InvalidInput(fmt::format(
        "octree cube: bounds min ({}, {}, {}) max ({}, {}, {}) are "
        "not finite",
        bounds.min[0], bounds.min[1], bounds.min[2], bounds.max[0], bounds.max[1], bounds.max[2]));
  }
  OctreeGeometry g;
  g.cube = bounds.cube();
  if (g.cube.max[0] - g.cube.min[0] == 0.0) {  // one point: any edge holds it
    g.cube.max = {g.cube.min[0] + 1.0, g.cube.min[1] + 1.0, g.cube.min[2] + 1.0};
  }
  const double edge = g.cube.max[0] - g.cube.min[0];
  g.edge = static_cast<float>(edge);
  g.quant_scale = quant_scale(g.edge);
  if (!std::isfinite(edge) || !std::isfinite(g.edge) || !(g.edge > 0.0f) ||
      !std::isfinite(g.quant_scale) || !finite(g.cube.max)) {
    throw InvalidInput(
        fmt::format("octree cube: edge {} is outside the range of float "
                    "coordinates",
                    edge));
  }
  g.grid_bits = static_cast<std::uint32_t>(std::countr_zero(config.voxel_grid));
  g.max_depth = std::min(kMaxDepthLimit, max_depth_for_grid(g.grid_bits));
  return g;
}

Bounds node_bounds(const OctreeGeometry& geometry, std::uint32_t level,
                   const std::array<std::uint32_t, 3>& position) {
  const double size = std::ldexp(static_cast<double>(geometry.edge), -static_cast<int>(level));
  Bounds b;
  for (int a = 0; a < 3; ++a) {
    b.min[a] = position[a] * size;
    b.max[a] = (position[a] + 1.0) * size;
  }
  return b;
}

}  // namespace simlod::detail
