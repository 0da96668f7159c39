// Insert pass: a thread per point (batch + spill) and per backlog voxel writes it to its chunk
// slot (kernels/update/pass_bodies.hpp, insert_sample), and a new voxel gets its entry in the
// voxel index (filtered colours); then one thread retires the chunks handed out (the pool
// shrinks, the arena top grows).
#include "kernels/common/cuda_check.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/pass_bodies.hpp"
#include "kernels/update/passes.hpp"
#include "kernels/update/voxel_index.cuh"

namespace simlod::detail::cuda {
namespace {

__global__ void __launch_bounds__(kPointBlock) insert_kernel(BatchView v) {
  const Control& c = *v.d_control;
  const std::uint32_t pool_size = c.pool_size;  // as allocate saw them; retired afterwards
  const std::uint32_t chunk_top = c.chunk_top;
  const std::uint32_t total = v.points() + min(c.backlog_count, v.backlog_limit);
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += gridDim.x * blockDim.x) {
    std::uint32_t* at = insert_sample(v, i, pool_size, chunk_top);
    if (v.index.words != 0 && i >= v.points() && at != nullptr) {
      const VoxelRecord& r = v.d_backlog[i - v.points()];
      if (!index_add(v.index, r.node, r.cell, at)) v.flag(kOverflowIndex);
    }
  }
}

__global__ void retire_chunks_kernel(BatchView v) { retire_chunks(v); }

}  // namespace

void launch_insert(const BatchView& v, cudaStream_t stream) {
  // Sized for the points; the loop strides over the voxels too (their count is on the device).
  insert_kernel<<<blocks_for(v.points(), kPointBlock), kPointBlock, 0, stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("insert_kernel");
  retire_chunks_kernel<<<1, 1, 0, stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("retire_chunks_kernel");
}

}  // namespace simlod::detail::cuda
