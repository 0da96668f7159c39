// A host vector copied into new device memory (the visibility executors' inputs).
#pragma once

#include <algorithm>
#include <vector>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"

namespace simlod::detail::cuda {

/// Device memory holding `v` (at least one byte); CapacityError naming `what` when the device
/// has no room.
template <class T>
DeviceMemory upload(const std::vector<T>& v, const char* what) {
  DeviceMemory d = make_device(std::max<std::size_t>(v.size() * sizeof(T), 1), what);
  if (!v.empty()) {
    SIMLOD_CUDA_CHECK(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  return d;
}

}  // namespace simlod::detail::cuda
