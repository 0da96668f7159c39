// Device time of the work queued on the default stream (CUDA events).
#pragma once

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"

namespace simlod::detail::cuda {

/// Records a start event at construction; ms() records the stop, waits for it and returns the
/// milliseconds between the two.
class KernelTimer {
 public:
  KernelTimer() { SIMLOD_CUDA_CHECK(cudaEventRecord(start_.get())); }
  double ms() {
    SIMLOD_CUDA_CHECK(cudaEventRecord(stop_.get()));
    SIMLOD_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    return elapsed_ms(start_.get(), stop_.get());
  }

 private:
  EventHandle start_ = make_event(), stop_ = make_event();
};

}  // namespace simlod::detail::cuda
