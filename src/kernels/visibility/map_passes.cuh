// The two halves of kernels/visibility/visibility_entry.hpp's pairs_and_links(), which keep
// the leaf-pair matrix on the device between them.
#pragma once

#include <cstdint>

#include "core/cpu/visibility/visibility.hpp"
#include "kernels/common/cuda_resources.cuh"

namespace simlod::detail::cuda {

/// The leaf-pair matrix on the device (pairs.cu); `out` gets its host copy and counts, `ms` the
/// kernel's time.
[[nodiscard]] DeviceMemory leaf_pairs(const cpu::VisTree& tree, std::uint32_t occluders,
                                      cpu::LeafPairs& out, double& ms);
/// The links from the device matrix `d_matrix` (links.cu); `ms` gets its kernels' time.
[[nodiscard]] cpu::VisLinks build_links(const cpu::VisTree& tree, const std::uint32_t* d_matrix,
                                        double& ms);

}  // namespace simlod::detail::cuda
