// The CUDA executors of VisibilityMap (core/visibility.cpp calls them in builds with CUDA): the
// octree, the leaf pairs and the links run on the current device and give the CPU executor's
// results bit for bit (the same rules, kernels compiled without fused multiply-adds).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/cpu/visibility/blocks.hpp"
#include "core/cpu/visibility/visibility.hpp"
#include "simlod/detail/normal_orientation.hpp"

namespace simlod::detail::cuda {

/// cpu::build_vis_tree on the device, bit for bit (the tree comes back to the host, where the
/// map keeps it).
[[nodiscard]] cpu::VisTree build_vis_tree(std::span<const Point> points,
                                          std::span<const Normal> normals,
                                          const VisibilityConfig& config);

/// estimate_normals' neighbours, PCA normals and, given `propagate`, their propagated
/// orientation on the device, bit for bit the CPU's (cpu::nearest_neighbours, then
/// detail::pca_normal per point, then cpu::orient_normals).
[[nodiscard]] std::vector<Normal> pca_normals(std::span<const Point> points, std::uint32_t k,
                                              const SeedRule* propagate);

/// What the device computes of a map: the leaf-pair matrix and the links.
struct PairsAndLinks {
  cpu::LeafPairs pairs;
  cpu::VisLinks links;
};

/// cpu::leaf_pairs and cpu::build_links on the device, bit for bit. The matrix stays on the
/// device between them and is copied back once, for the map. `pairs_ms`, `links_ms` get the
/// device time of their kernels (CUDA events).
[[nodiscard]] PairsAndLinks pairs_and_links(const cpu::VisTree& tree, std::uint32_t occluders,
                                            double& pairs_ms, double& links_ms);

/// cpu::build_blocked on the device, bit for bit; `pairs_ms` and `links_ms` get the device time
/// of the pair and link kernels.
[[nodiscard]] cpu::BlockedMap build_blocked(const cpu::VisTree& tree, std::uint32_t occluders,
                                            std::uint64_t budget_bits, double& pairs_ms,
                                            double& links_ms);

}  // namespace simlod::detail::cuda
