// Expand, splitting: two launches per round. The decision pass has a thread per listed leaf
// (kernels/update/pass_bodies.hpp, split_decide); the execution pass a block per recorded split, so
// that emptying a grid's 16 KiB slot table and copying up to 50k points of a leaf run in parallel.
// Plus the one-thread step between rounds that ends the expansion when a round split nothing.
#include "kernels/common/cuda_check.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/pass_bodies.hpp"
#include "kernels/update/passes.hpp"

namespace simlod::detail::cuda {
namespace {

__global__ void __launch_bounds__(kListBlock) split_decide_kernel(BatchView v) {
  if (!expanding(v)) return;  // a queued round after the expansion ended
  const std::uint32_t listed = v.d_control->touched;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < listed;
       i += gridDim.x * blockDim.x) {
    split_decide(v, i);
  }
}

__global__ void __launch_bounds__(kSplitBlock) split_execute_kernel(BatchView v) {
  if (!expanding(v)) return;
  const Control& c = *v.d_control;
  const std::uint32_t end = recorded_splits(c, v.split_limit);
  for (std::uint32_t s = c.split_base + blockIdx.x; s < end; s += gridDim.x) {
    split_execute(v, v.d_splits[s], threadIdx.x, blockDim.x);
  }
}

__global__ void next_round_kernel(BatchView v) { next_round(v); }

__global__ void __launch_bounds__(kListBlock)
    rollback_kernel(BatchView v, std::uint32_t old_nodes) {
  const std::uint32_t end = recorded_splits(*v.d_control, v.split_limit);
  for (std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < end;
       s += gridDim.x * blockDim.x) {
    restore_split(v, v.d_splits[s], old_nodes);
  }
}

}  // namespace

void launch_next_round(const BatchView& v, cudaStream_t stream) {
  next_round_kernel<<<1, 1, 0, stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("next_round_kernel");
}

void launch_rollback(const BatchView& v, std::uint32_t old_nodes, std::uint32_t split_bound,
                     cudaStream_t stream) {
  rollback_kernel<<<blocks_for(split_bound, kListBlock, kMaxListBlocks), kListBlock, 0, stream>>>(
      v, old_nodes);
  SIMLOD_CUDA_CHECK_LAUNCH("rollback_kernel");
}

void launch_split(const BatchView& v, std::uint32_t list_bound, std::uint32_t split_bound,
                  cudaStream_t stream) {
  split_decide_kernel<<<blocks_for(list_bound, kListBlock, kMaxListBlocks), kListBlock, 0,
                        stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("split_decide_kernel");
  split_execute_kernel<<<blocks_for(split_bound, 1, kMaxSplitBlocks), kSplitBlock, 0, stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("split_execute_kernel");
}

}  // namespace simlod::detail::cuda
