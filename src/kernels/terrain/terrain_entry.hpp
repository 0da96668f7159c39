// The CUDA executors of ground classification (core/terrain.cpp calls them in builds with
// CUDA): plain C++ declarations over host spans.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "core/terrain_plan.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {

/// Copies the points (and the skip mask) to the current device; the phases then run there.
/// Throws CapacityError when the device has no room, CudaError on other failures.
[[nodiscard]] std::unique_ptr<SeedExecutor> make_seed_executor(std::span<const Point> points,
                                                               std::span<const std::uint8_t> skip);

/// The classifier on the device (points copied there); `ms` gets the kernel's device time and
/// `upload_ms` the copies'.
void classify(std::span<const Point> points, std::span<const std::uint8_t> skip,
              const RasterView& dtm, double tolerance, std::span<std::uint8_t> out, double& ms,
              double& upload_ms);

/// The ground sums of the DTM's refinement on the device (cpu::ground_sums' contract); `ms`
/// gets the kernel's device time.
void ground_sums(std::span<const Point> points, std::span<const std::uint8_t> ground,
                 const RasterView& dtm, std::span<std::int64_t> sums,
                 std::span<std::uint32_t> counts, double& ms);

}  // namespace simlod::detail::cuda
