// estimate_normals' propagated orientation on the CPU (simlod/normals.hpp): a minimum spanning
// tree of the neighbour graph (Kruskal), then each connected part oriented from its seed down
// the tree. The rules are detail/normal_orientation.hpp's, shared with the CUDA executor.
#pragma once

#include <cstdint>
#include <span>

#include "simlod/detail/normal_orientation.hpp"

namespace simlod::detail::cpu {

/// Orients `normals` (unit or zero, one per point) in place. `knn` holds each point's k
/// neighbours (cpu::nearest_neighbours).
void orient_normals(std::span<const Point> points, std::span<const std::uint32_t> knn,
                    std::uint32_t k, const SeedRule& rule, std::span<Normal> normals);

}  // namespace simlod::detail::cpu
