// The CUDA executors of VisibilityMap (core/visibility.cpp calls them in builds with CUDA): the
// octree is built on the host (core/cpu/visibility/tree.cpp) and copied over; the leaf pairs
// and the links, the O(leaves^2) parts, run on the current device and give the CPU
// executor's results bit for bit (the same rules, kernels compiled without fused multiply-adds).
#pragma once

#include <cstdint>

#include "core/cpu/visibility/visibility.hpp"

namespace simlod::detail::cuda {

/// cpu::leaf_pairs on the device; `ms` gets the kernel's time (CUDA events).
[[nodiscard]] cpu::LeafPairs leaf_pairs(const cpu::VisTree& tree, std::uint32_t occluders,
                                        double& ms);
/// cpu::build_links on the device; `ms` gets the device time of its kernels.
[[nodiscard]] cpu::VisLinks build_links(const cpu::VisTree& tree, const cpu::LeafPairs& pairs,
                                        double& ms);

}  // namespace simlod::detail::cuda
