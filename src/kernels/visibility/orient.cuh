// estimate_normals' propagated orientation on CUDA (orient.cu): the CPU's result
// (cpu::orient_normals) bit for bit.
#pragma once

#include <cstdint>

#include "simlod/detail/normal_orientation.hpp"

namespace simlod::detail::cuda {

/// Orients the device's `normals` (n, unit or zero) in place, from the device's points and
/// their k neighbours each. CapacityError past 2^31 neighbour entries.
void orient_normals(const Point* points, const std::uint32_t* knn, std::uint64_t n, std::uint32_t k,
                    const SeedRule& rule, Normal* normals);

}  // namespace simlod::detail::cuda
