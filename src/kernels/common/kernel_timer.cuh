// Device time of the work queued on a stream (CUDA events).
#pragma once

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"

namespace simlod::detail::cuda {

/// Records a start event on `stream` (default: the legacy default stream) at construction;
/// ms() records the stop, waits for it and returns the milliseconds between the two.
class KernelTimer {
 public:
  explicit KernelTimer(cudaStream_t stream = nullptr) : stream_(stream) {
    SIMLOD_CUDA_CHECK(cudaEventRecord(start_.get(), stream_));
  }
  double ms() {
    SIMLOD_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_));
    SIMLOD_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    return elapsed_ms(start_.get(), stop_.get());
  }

 private:
  cudaStream_t stream_;
  EventHandle start_ = make_event(), stop_ = make_event();
};

}  // namespace simlod::detail::cuda
