// Owners of CUDA resources (device memory, pinned host memory, streams, events): move-only,
// released in the destructor (errors there are ignored: destructors must not throw, and a
// failing release means the context is gone anyway).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace simlod::detail::cuda {

template <typename T, typename Release>
class CudaOwner {
 public:
  CudaOwner() = default;
  explicit CudaOwner(T handle) : handle_(handle) {}
  CudaOwner(CudaOwner&& other) noexcept : handle_(std::exchange(other.handle_, T{})) {}
  CudaOwner& operator=(CudaOwner&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, T{});
    }
    return *this;
  }
  CudaOwner(const CudaOwner&) = delete;
  CudaOwner& operator=(const CudaOwner&) = delete;
  ~CudaOwner() { reset(); }

  [[nodiscard]] T get() const { return handle_; }
  void reset() {
    if (handle_ != T{}) Release{}(handle_);
    handle_ = T{};
  }

 private:
  T handle_{};
};

struct ReleaseDevice {
  void operator()(void* p) const { (void)cudaFree(p); }
};
struct ReleasePinned {
  void operator()(void* p) const { (void)cudaFreeHost(p); }
};
struct ReleaseStream {
  void operator()(cudaStream_t s) const { (void)cudaStreamDestroy(s); }
};
struct ReleaseEvent {
  void operator()(cudaEvent_t e) const { (void)cudaEventDestroy(e); }
};

using DeviceMemory = CudaOwner<void*, ReleaseDevice>;
using PinnedMemory = CudaOwner<void*, ReleasePinned>;
using StreamHandle = CudaOwner<cudaStream_t, ReleaseStream>;
using EventHandle = CudaOwner<cudaEvent_t, ReleaseEvent>;

}  // namespace simlod::detail::cuda
