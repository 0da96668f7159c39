// Owners of CUDA resources (device memory, pinned host memory, streams, events): move-only,
// released in the destructor (errors there are ignored: destructors must not throw, and a
// failing release means the context is gone anyway).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "kernels/common/cuda_check.hpp"

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
  /// Gives the handle up: the caller releases it.
  [[nodiscard]] T release() { return std::exchange(handle_, T{}); }
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

/// Makes `device` current for a scope and restores the caller's device after it: every entry
/// point of a store or framebuffer runs on the device it was created on.
class DeviceScope {
 public:
  explicit DeviceScope(int device) : device_(device) {
    SIMLOD_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device_) SIMLOD_CUDA_CHECK(cudaSetDevice(device_));
  }
  ~DeviceScope() {
    if (previous_ != device_) (void)cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int device_;
  int previous_ = 0;
};

/// Deletes `p` with `device` current (its resources were made there); never throws.
template <class T>
void delete_on(int device, T* p) noexcept {
  int previous = 0;
  const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != device &&
                        cudaSetDevice(device) == cudaSuccess;
  delete p;
  if (switched) (void)cudaSetDevice(previous);
}

// Makers that throw CudaError when the runtime refuses.
inline PinnedMemory make_pinned(std::size_t bytes) {
  void* p = nullptr;
  SIMLOD_CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
  return PinnedMemory(p);
}
/// Device memory of `bytes` on the current device; CapacityError naming `what` ("the
/// framebuffer's depth buffer") when the device has no room for it.
DeviceMemory make_device(std::size_t bytes, const std::string& what);
/// Milliseconds between two recorded timing events (waits for `to`).
inline double elapsed_ms(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0.0f;
  SIMLOD_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return ms;
}
/// A stream that does not synchronise with the legacy default stream.
inline StreamHandle make_stream() {
  cudaStream_t s = nullptr;
  SIMLOD_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return StreamHandle(s);
}
/// `flags`: cudaEventDefault (timing) or cudaEventDisableTiming (ordering only).
inline EventHandle make_event(unsigned flags = cudaEventDefault) {
  cudaEvent_t e = nullptr;
  SIMLOD_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
  return EventHandle(e);
}

}  // namespace simlod::detail::cuda
