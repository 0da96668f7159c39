// k nearest neighbours of every point of a cloud on the CPU: a uniform grid of cells about two
// point spacings wide (sorted cell keys), searched ring by ring until the ring cannot hold a
// nearer point.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/cpu/visibility/knn_grid.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cpu {

/// The search grid of `points` (their bounds, knn_grid).
[[nodiscard]] KnnGrid knn_grid_of(std::span<const Point> points, std::uint32_t k);

/// neighbours[i * k .. i * k + k): the k points nearest point i (itself among them), nearest
/// first, ties to the lower index. points.size() >= k >= 1.
[[nodiscard]] std::vector<std::uint32_t> nearest_neighbours(std::span<const Point> points,
                                                            std::uint32_t k);

}  // namespace simlod::detail::cpu
