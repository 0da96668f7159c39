// Capacity plan: after round 1 of expand (nothing changed yet) and after the last round, every
// reached leaf adds its share of the batch's memory need (kernels/update/capacity.hpp, plan_leaf)
// and the block sums go to Control::plan with one atomic per field per block.
#include <cub/block/block_reduce.cuh>

#include "kernels/common/cuda_check.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/passes.hpp"

namespace simlod::detail::cuda {
namespace {

struct PlanSumOp {
  __device__ PlanSums operator()(const PlanSums& a, const PlanSums& b) const {
    PlanSums s;
    s.splits = a.splits + b.splits;
    s.spill = a.spill + b.spill;
    s.freed_chunks = a.freed_chunks + b.freed_chunks;
    s.counted = a.counted + b.counted;
    s.point_chunks = a.point_chunks + b.point_chunks;
    s.point_nodes = a.point_nodes + b.point_nodes;
    s.voxels = a.voxels + b.voxels;
    s.max_total = a.max_total > b.max_total ? a.max_total : b.max_total;
    s.leaves = a.leaves + b.leaves;
    return s;
  }
};

__device__ void add(std::uint64_t* to, std::uint64_t value) {
  if (value != 0) atomicAdd(reinterpret_cast<unsigned long long*>(to), value);
}

__global__ void __launch_bounds__(kListBlock) plan_kernel(BatchView v, bool last) {
  using Reduce = cub::BlockReduce<PlanSums, kListBlock>;
  __shared__ typename Reduce::TempStorage temp;
  const std::uint32_t listed = v.d_control->touched;
  PlanSums mine;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < listed;
       i += gridDim.x * blockDim.x) {
    const std::uint32_t leaf = v.d_touched[i];
    if (leaf == kNil) continue;  // split since it was listed
    const DeviceNode node = v.d_nodes[leaf];
    plan_leaf(mine, v.params, node.level, node.count, node.chunks, v.d_new[leaf]);
  }
  const PlanSums sum = Reduce(temp).Reduce(mine, PlanSumOp{});
  if (threadIdx.x != 0) return;
  PlanSums& out = last ? v.d_control->last : v.d_control->plan;
  add(&out.splits, sum.splits);
  add(&out.spill, sum.spill);
  add(&out.freed_chunks, sum.freed_chunks);
  add(&out.counted, sum.counted);
  add(&out.point_chunks, sum.point_chunks);
  add(&out.point_nodes, sum.point_nodes);
  add(&out.voxels, sum.voxels);
  add(&out.leaves, sum.leaves);
  if (sum.max_total != 0) {
    atomicMax(reinterpret_cast<unsigned long long*>(&out.max_total), sum.max_total);
  }
}

}  // namespace

void launch_plan(const BatchView& v, std::uint32_t list_bound, bool last, cudaStream_t stream) {
  plan_kernel<<<blocks_for(list_bound, kListBlock, kMaxListBlocks), kListBlock, 0, stream>>>(v,
                                                                                             last);
  SIMLOD_CUDA_CHECK_LAUNCH("plan_kernel");
}

}  // namespace simlod::detail::cuda
