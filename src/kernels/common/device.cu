// Device queries for the CUDA backend (simlod/backend.hpp through core/backend.cpp). Never throws:
// a machine without a driver or device is a normal situation (CI, laptops) and simply selects the
// CPU backend.
#include <cuda_runtime.h>

#include <string>

#include "kernels/entry.hpp"

namespace simlod::detail::cuda {
namespace {

struct DeviceProbe {
  int count = 0;
  std::string reason;
};

DeviceProbe probe() {
  DeviceProbe p;
  const cudaError_t err = cudaGetDeviceCount(&p.count);
  if (err != cudaSuccess) {
    p.count = 0;
    p.reason = std::string("no usable CUDA device (") + cudaGetErrorName(err) + ": " +
               cudaGetErrorString(err) + ")";
    (void)cudaGetLastError();  // clear the sticky-free error so later calls start clean
  } else if (p.count == 0) {
    p.reason = "no CUDA device found";
  }
  return p;
}

const DeviceProbe& cached_probe() {
  static const DeviceProbe p = probe();
  return p;
}

}  // namespace

int device_count() { return cached_probe().count; }
std::string unavailable_reason() { return cached_probe().reason; }

std::string device_description() {
  if (device_count() == 0) return {};
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return {};
  return std::string(prop.name) + ", compute capability " + std::to_string(prop.major) + "." +
         std::to_string(prop.minor) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
         std::to_string(prop.totalGlobalMem >> 20) + " MiB";
}

}  // namespace simlod::detail::cuda
