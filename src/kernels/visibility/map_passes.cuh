// The two halves of kernels/visibility/visibility_entry.hpp's pairs_and_links(), which keep
// the leaf-pair matrix on the device between them.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cpu/visibility/visibility.hpp"
#include "kernels/common/cuda_resources.cuh"

namespace simlod::detail::cuda {

/// The leaf-pair matrix on the device (pairs.cu); `out` gets its host copy and counts, `ms` the
/// kernel's time.
[[nodiscard]] DeviceMemory leaf_pairs(const cpu::VisTree& tree, std::uint32_t occluders,
                                      cpu::LeafPairs& out, double& ms);
/// One level's links (node pairs) on the device.
struct LevelLinks {
  DeviceMemory links;  ///< `count` uint2 (a, b)
  std::uint64_t count = 0;
};
/// The lists per node of the links of every level (csr.cu): the CSR of cpu::links_csr, its
/// kernels' time added to `ms`.
[[nodiscard]] cpu::VisLinks links_csr(std::uint64_t nodes, const std::vector<LevelLinks>& levels,
                                      std::vector<std::uint64_t> per_level, double& ms);
/// The links from the device matrix `d_matrix` (links.cu); `ms` gets its kernels' time.
[[nodiscard]] cpu::VisLinks build_links(const cpu::VisTree& tree, const std::uint32_t* d_matrix,
                                        double& ms);

}  // namespace simlod::detail::cuda
