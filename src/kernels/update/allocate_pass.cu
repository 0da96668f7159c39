// Allocate pass: a thread per node that receives samples this batch (leaves: points counted in
// the last expand round; inner nodes: voxels emitted by sampling). The warp reserves its
// nodes' chunks as one range of batch-wide ordinals (one atomic per warp); ordinal o is the
// pool's o-th chunk from the top, or a fresh one after the pool runs dry, so the insert pass
// finds a sample's chunk by arithmetic instead of walking lists (kernels/update/pass_bodies.hpp).
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/warp_ops.cuh"
#include "kernels/tuning.hpp"
#include "kernels/update/pass_bodies.hpp"
#include "kernels/update/passes.hpp"

namespace simlod::detail::cuda {
namespace {

__global__ void __launch_bounds__(kListBlock) allocate_kernel(BatchView v) {
  Control& c = *v.d_control;
  const std::uint32_t listed = c.touched;
  const std::uint32_t pool_size = c.pool_size;  // retired only after the insert pass
  const std::uint32_t chunk_top = c.chunk_top;
  const std::uint32_t stride = gridDim.x * blockDim.x;
  // Block-uniform loop bound: whole warps reach the warp-wide reservation together.
  for (std::uint32_t base = blockIdx.x * blockDim.x; base < listed; base += stride) {
    const std::uint32_t i = base + threadIdx.x;
    const std::uint32_t id = i < listed ? v.d_touched[i] : kNil;
    const bool valid = id != kNil;  // kNil: a leaf that split, listed again if it has voxels
    const std::uint32_t need = valid ? chunks_needed(v, id) : 0;
    const std::uint32_t first = warp_reserve(&c.ordinals, need);
    const bool leaf = valid && v.d_links[id].first_child == kNil;
    const unsigned long long to_points = warp_sum(leaf ? need : 0u);
    const unsigned long long to_voxels = warp_sum(valid && !leaf ? need : 0u);
    if (lane_id() == 0) {
      if (to_points != 0) atomic_add(&c.point_chunks, to_points);
      if (to_voxels != 0) atomic_add(&c.voxel_chunks, to_voxels);
    }
    if (valid) allocate_node(v, id, first, need, pool_size, chunk_top);
  }
}

}  // namespace

void launch_allocate(const BatchView& v, std::uint32_t list_bound, cudaStream_t stream) {
  allocate_kernel<<<blocks_for(list_bound, kListBlock, kMaxListBlocks), kListBlock, 0, stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("allocate_kernel");
}

}  // namespace simlod::detail::cuda
