// CUDA batch timing in builds without CUDA: there is never a CUDA backend to ask.
#include "kernels/cuda_backend.hpp"

namespace simlod::detail {

std::optional<CudaBatchTiming> cuda_batch_timing(const OctreeBackend&) { return std::nullopt; }

}  // namespace simlod::detail
