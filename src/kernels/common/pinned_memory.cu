// Page-locked host memory for core/host_buffer.hpp.
#include <cuda_runtime.h>

#include "kernels/entry.hpp"

namespace simlod::detail::cuda {

void* allocate_pinned(std::size_t bytes) noexcept {
  void* p = nullptr;
  if (cudaHostAlloc(&p, bytes, cudaHostAllocDefault) != cudaSuccess) {
    (void)cudaGetLastError();  // no device or no room: the caller falls back
    return nullptr;
  }
  return p;
}

void free_pinned(void* p) noexcept { (void)cudaFreeHost(p); }

}  // namespace simlod::detail::cuda
