// Expand, counting pass: each thread takes one point; in round 1 every point walks from the
// root to its leaf, later rounds only points whose leaf just split (kernels/update/pass_bodies.hpp,
// count_walk). Threads of a warp that reach the same leaf (the common case in Morton order)
// add themselves with a single atomic; each point keeps its (leaf, slot), so the insert pass
// needs no walk and no atomics. The first point of a leaf lists the leaf in d_touched.
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/warp_ops.cuh"
#include "kernels/tuning.hpp"
#include "kernels/update/pass_bodies.hpp"
#include "kernels/update/passes.hpp"

namespace simlod::detail::cuda {
namespace {

__global__ void __launch_bounds__(kPointBlock) count_kernel(BatchView v) {
  if (!expanding(v)) return;  // a queued round after the expansion ended
  const std::uint32_t total = v.points();
  const std::uint32_t stride = gridDim.x * blockDim.x;
  // The loop bound is uniform per block, so whole warps stay together for __match_any_sync.
  for (std::uint32_t base = blockIdx.x * blockDim.x; base < total; base += stride) {
    const std::uint32_t i = base + threadIdx.x;
    std::uint32_t leaf = kNil;
    const bool counts = i < total && count_walk(v, i, leaf);
    const std::uint32_t peers = __match_any_sync(0xFFFFFFFFu, leaf);
    const std::uint32_t leader = __ffs(peers) - 1;
    std::uint32_t first = 0;
    if (counts && lane_id() == leader) first = atomicAdd(&v.d_new[leaf], __popc(peers));
    first = __shfl_sync(0xFFFFFFFFu, first, leader);
    if (counts) {
      const std::uint32_t slot = first + __popc(peers & ((1u << lane_id()) - 1u));
      *v.slot_of(i) = make_uint2(leaf, slot);
      if (slot == 0) v.list_node(append_index(&v.d_control->touched), leaf);
    }
  }
}

}  // namespace

void launch_count(const BatchView& v, cudaStream_t stream) {
  count_kernel<<<blocks_for(v.points(), kPointBlock), kPointBlock, 0, stream>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("count_kernel");
}

}  // namespace simlod::detail::cuda
