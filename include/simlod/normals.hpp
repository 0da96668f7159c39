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
  /// Each connected part of the neighbour graph (an edge joins every point to each of its k
  /// neighbours) is oriented from a seed: the point nearest the viewpoint when there is one,
  /// else the highest (ties to the lower index), its normal turned towards the viewpoint, else
  /// up. The orientation then spreads down the part's minimum spanning tree (Hoppe et al.
  /// 1992), edge weight 1 - |n_u . n_v| so that parallel normals join first; equal weights go to
  /// the edge of the earlier neighbour entry (point i's m-th neighbour is entry i * k + m; an
  /// edge in both points' lists is the lower point's). A normal is flipped when it points
  /// against the nearest normal above it in the tree (n . r < 0; points without a normal pass
  /// r on).
  Propagate,
  /// Every normal independently points towards the viewpoint (a scanner position).
  Viewpoint,
};

struct NormalParams {
  std::uint32_t neighbours = 16;  ///< k, the point itself included: 3 .. 128
  NormalOrientation orientation = NormalOrientation::Propagate;
  std::optional<std::array<double, 3>> viewpoint{};  ///< required by Viewpoint
  /// Where the neighbours, the PCA and the propagation run (Auto: CUDA when a device is
  /// present); both give the same normals bit for bit.
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
