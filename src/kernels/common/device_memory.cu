// Plain device allocations whose failure for lack of memory is a CapacityError.
#include "kernels/common/cuda_resources.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {

DeviceMemory make_device(std::size_t bytes, const std::string& what) {
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    int device = 0;
    (void)cudaGetDevice(&device);
    throw CapacityError("cannot get " + std::to_string(bytes) + " bytes of device memory for " +
                        what + " on device " + std::to_string(device));
  }
  check_cuda(err, ("cudaMalloc(" + what + ")").c_str(), __FILE__, __LINE__);
  return DeviceMemory(p);
}

}  // namespace simlod::detail::cuda
