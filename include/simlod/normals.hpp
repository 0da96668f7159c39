// simlod::estimate_normals: surface normals of a point cloud by principal component analysis of
// each point's nearest neighbours, oriented consistently (for VisibilityMap and anything that
// shades or culls points).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "simlod/point.hpp"
#include "simlod/visibility.hpp"

namespace simlod {

enum class NormalOrientation {
  /// Each connected part of the neighbour graph: one seed point is oriented (towards the
  /// viewpoint when there is one, else the highest point's normal points up), then the
  /// orientation spreads along a minimum spanning tree that prefers neighbours with parallel
  /// normals (Hoppe et al. 1992), each normal flipped to agree with the one it comes from.
  Propagate,
  /// Every normal independently points towards the viewpoint (a scanner position).
  Viewpoint,
};

struct NormalParams {
  std::uint32_t neighbours = 16;  ///< k, the point itself included: 3 .. 128
  NormalOrientation orientation = NormalOrientation::Propagate;
  std::optional<std::array<double, 3>> viewpoint{};  ///< required by Viewpoint
  /// Where the neighbours and the PCA run (Auto: CUDA when a device is present); both give the
  /// same normals. The orientation runs on the CPU.
  Backend backend = Backend::Auto;
};

/// Unit normals, one per point: the eigenvector of the smallest eigenvalue of the covariance of
/// its k nearest neighbours (ties in distance go to the lower index), on params.backend (the
/// CPU: every core).
/// InvalidInput for fewer than k points, k out of range, a non-finite coordinate (naming the
/// point) or Viewpoint without a viewpoint. Neighbourhoods that span no plane (all on one spot
/// or one line) get the normal (0, 0, 0).
[[nodiscard]] std::vector<Normal> estimate_normals(std::span<const Point> points,
                                                   const NormalParams& params = {});

}  // namespace simlod
