// Sample pass: a thread per point (batch + spill) walks from the root to its leaf and sets its
// cell bit in every inner node on the way; the thread that sets a bit emits the voxel
// (kernels/update/pass_bodies.hpp, sample_point). Records are staged per block in shared memory and
// reach the backlog with one atomic per block (tuning.hpp, kSampleStage). Then one thread
// takes the pages of the bricks claimed (close_bricks).
#include "kernels/common/cuda_check.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/pass_bodies.hpp"
#include "kernels/update/passes.hpp"

namespace simlod::detail::cuda {
namespace {

/// Puts records into the block's stage; when it is full, straight into the backlog.
struct BlockSink {
  VoxelRecord* stage;
  std::uint32_t* sources;  ///< per staged record its point (used with channels)
  unsigned* staged;

  SIMLOD_HD void put(const BatchView& v, const VoxelRecord& r, std::uint32_t source) const {
#if defined(__CUDA_ARCH__)
    const unsigned k = atomicAdd(staged, 1u);
    if (k < kSampleStage) {
      stage[k] = r;
      sources[k] = source;
      return;
    }
#endif
    BacklogSink{}.put(v, r, source);
  }
};

__global__ void __launch_bounds__(kPointBlock) sample_kernel(BatchView v) {
  __shared__ VoxelRecord stage[kSampleStage];
  __shared__ std::uint32_t sources[kSampleStage];
  __shared__ unsigned staged;
  __shared__ std::uint32_t base;
  const std::uint32_t total = v.points();
  const std::uint32_t stride = gridDim.x * blockDim.x;
  // Block-uniform loop bound: every thread reaches the barriers.
  for (std::uint32_t first = blockIdx.x * blockDim.x; first < total; first += stride) {
    if (threadIdx.x == 0) staged = 0;
    __syncthreads();
    const std::uint32_t i = first + threadIdx.x;
    if (i < total) sample_point(v, i, BlockSink{stage, sources, &staged});
    __syncthreads();
    const std::uint32_t n = min(staged, kSampleStage);
    if (threadIdx.x == 0 && n > 0) base = atomicAdd(&v.d_control->backlog_count, n);
    __syncthreads();
    for (std::uint32_t k = threadIdx.x; k < n; k += blockDim.x) {
      if (!put_backlog(v, base + k, stage[k], sources[k])) v.flag(kOverflowBacklog);
    }
    __syncthreads();  // the stage is refilled in the next iteration
  }
}

__global__ void close_bricks_kernel(BatchView v) { close_bricks(v); }

}  // namespace

void launch_sample(const BatchView& v, cudaStream_t stream) {
  sample_kernel<<<blocks_for(v.points(), kPointBlock), kPointBlock, 0, stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("sample_kernel");
  close_bricks_kernel<<<1, 1, 0, stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("close_bricks_kernel");
}

}  // namespace simlod::detail::cuda
