// Device copies of the points (and the skip mask) of a ground classification call: what the
// seed search and the classifier share.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <span>

#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/terrain/terrain_entry.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {

class DevicePoints {
 public:
  DevicePoints() = default;
  [[nodiscard]] const Point* points() const { return static_cast<const Point*>(points_.get()); }
  /// Null when nothing is skipped.
  [[nodiscard]] const std::uint8_t* skip() const {
    return static_cast<const std::uint8_t*>(skip_.get());
  }

 private:
  friend DevicePoints upload_points(std::span<const Point>, std::span<const std::uint8_t>,
                                    cudaStream_t, double&);
  DeviceMemory points_, skip_;
};

/// Copies `points` and `skip` (may be empty) to the current device on `s` and waits;
/// `ms` gets the copies' device time.
inline DevicePoints upload_points(std::span<const Point> points, std::span<const std::uint8_t> skip,
                                  cudaStream_t s, double& ms) {
  DevicePoints d;
  d.points_ = make_device(points.size_bytes() + sizeof(Point), "the points to classify");
  if (!skip.empty()) d.skip_ = make_device(skip.size_bytes(), "the points' skip mask");
  KernelTimer t(s);
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(d.points_.get(), points.data(), points.size_bytes(),
                                    cudaMemcpyHostToDevice, s));
  if (!skip.empty()) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(d.skip_.get(), skip.data(), skip.size_bytes(), cudaMemcpyHostToDevice, s));
  }
  ms = t.ms();
  return d;
}

/// What kernels/terrain/terrain_entry.hpp hands out as DeviceCloudPtr.
struct DeviceCloud {
  DevicePoints d;
  std::uint64_t n = 0;
  /// The last classification's flags (n + 1 bytes), which the refinement's sums read where
  /// they are: scratch of the call, so writable through a const cloud.
  mutable DeviceMemory flags;
};

}  // namespace simlod::detail::cuda
