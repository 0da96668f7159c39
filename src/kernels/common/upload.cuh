// A host vector copied into new device memory (the inputs of the visibility and terrain
// executors).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <span>
#include <vector>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"

namespace simlod::detail::cuda {

/// Device memory holding `v` (at least one byte), copied on `stream` (default: the legacy
/// stream, which later work on it follows). `v` may go once this returns: a copy from pageable
/// memory returns after the bytes were staged. CapacityError naming `what` when the device has
/// no room.
template <class T>
DeviceMemory upload(std::span<const T> v, const char* what, cudaStream_t stream = nullptr) {
  DeviceMemory d = make_device(std::max<std::size_t>(v.size() * sizeof(T), 1), what);
  if (!v.empty()) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  return d;
}
template <class T>
DeviceMemory upload(const std::vector<T>& v, const char* what, cudaStream_t stream = nullptr) {
  return upload(std::span<const T>(v), what, stream);
}

}  // namespace simlod::detail::cuda
