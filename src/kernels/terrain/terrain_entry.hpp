// The CUDA executors of ground classification (core/terrain.cpp calls them in builds with
// CUDA): plain C++ declarations over host spans and an opaque handle of the points on the
// device, copied there once for all the passes of a call.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "core/terrain_plan.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {

/// Points and their skip mask on the current device (kernels/terrain/device_points.cuh).
struct DeviceCloud;
using DeviceCloudPtr = std::shared_ptr<const DeviceCloud>;

/// Copies `points` and `skip` (may be empty) to the current device; `upload_ms` gets the
/// copies' device time. Throws CapacityError when the device has no room, CudaError on other
/// failures.
[[nodiscard]] DeviceCloudPtr upload_cloud(std::span<const Point> points,
                                          std::span<const std::uint8_t> skip, double& upload_ms);

/// The seed search's phases over the cloud's points.
[[nodiscard]] std::unique_ptr<SeedExecutor> make_seed_executor(DeviceCloudPtr cloud);

/// The classifier on the device: flags for every point of the cloud, kept on the device for
/// ground_sums and copied to `out` unless it is empty; `ms` gets the kernel's device time.
void classify(const DeviceCloud& cloud, const RasterView& dtm, double tolerance,
              std::span<std::uint8_t> out, double& ms);

/// The ground sums of the DTM's refinement on the device (cpu::ground_sums' contract) from the
/// flags `ground` (copied there), or, when it is empty, from the last classify's flags on the
/// device; `ms` gets the kernel's device time.
void ground_sums(const DeviceCloud& cloud, std::span<const std::uint8_t> ground,
                 const RasterView& dtm, std::span<std::int64_t> sums,
                 std::span<std::uint32_t> counts, double& ms);

}  // namespace simlod::detail::cuda
