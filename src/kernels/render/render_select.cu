// Renderer, node selection: ranges -> choose -> collect (kernels/render/render_passes.hpp).
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/warp_ops.cuh"
#include "kernels/render/render_passes.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda {
namespace {

__global__ void __launch_bounds__(kSelectBlock)
    ranges_kernel(TreeView t, std::uint32_t nodes, RenderParams p, std::uint32_t with_budget,
                  float2* ranges, RenderCounters* counters) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nodes) return;
  const DeviceNode n = t.d_nodes[i];
  const bool leaf = t.d_links[i].first_child == kNil;
  const DrawRange r = draw_range(p, n.level, n.x, n.y, n.z, leaf);
  ranges[i] = make_float2(r.lo, r.hi);
  if (with_budget == 0 || n.count == 0) return;
  for (std::uint32_t k = 0; k <= kBudgetSteps; ++k) {
    if (draws(r, budget_threshold(p.threshold, k))) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&counters->hist[k]),
                static_cast<unsigned long long>(n.count));
    }
  }
}

__global__ void choose_kernel(RenderParams p, std::uint64_t budget, RenderCounters* counters) {
  counters->threshold =
      budget == 0 ? p.threshold
                  : budget_threshold(p.threshold, choose_budget_step(counters->hist, budget));
}

__global__ void __launch_bounds__(kSelectBlock)
    collect_kernel(TreeView t, std::uint32_t nodes, const float2* ranges, RenderCounters* counters,
                   uint2* entries) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nodes) return;
  const float2 r = ranges[i];
  if (!draws(DrawRange{r.x, r.y}, counters->threshold)) return;
  const DeviceNode n = t.d_nodes[i];
  (void)append_index(&counters->drawn);
  if (t.d_links[i].first_child == kNil) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&counters->leaves), 1ull);
    atomicAdd(reinterpret_cast<unsigned long long*>(&counters->points),
              static_cast<unsigned long long>(n.count));
  } else {
    atomicAdd(reinterpret_cast<unsigned long long*>(&counters->voxels),
              static_cast<unsigned long long>(n.count));
  }
  if (n.chunks == 0) return;
  if (t.consecutive_chunks) {
    const std::uint32_t g = entry_chunks(t), m = (n.chunks + g - 1) / g;
    const std::uint32_t at = atomicAdd(&counters->entries, m);
    for (std::uint32_t k = 0; k < m; ++k) entries[at + k] = make_uint2(n.head + k * g, i);
    return;
  }
  std::uint32_t at = atomicAdd(&counters->entries, n.chunks);
  std::uint32_t c = n.head;
  for (std::uint32_t k = 0; k < n.chunks; ++k, c = __ldg(t.chunk_next(c))) {
    entries[at + k] = make_uint2(c, i);
  }
}

}  // namespace

void launch_select(const TreeView& tree, std::uint32_t nodes, const RenderParams& params,
                   std::uint64_t budget, Framebuffer& fb) {
  const unsigned blocks = blocks_for(nodes, kSelectBlock);
  ranges_kernel<<<blocks, kSelectBlock, 0, fb.stream()>>>(tree, nodes, params, budget != 0,
                                                          fb.d_ranges(), fb.d_counters());
  SIMLOD_CUDA_CHECK_LAUNCH("ranges_kernel");
  choose_kernel<<<1, 1, 0, fb.stream()>>>(params, budget, fb.d_counters());
  SIMLOD_CUDA_CHECK_LAUNCH("choose_kernel");
  collect_kernel<<<blocks, kSelectBlock, 0, fb.stream()>>>(tree, nodes, fb.d_ranges(),
                                                           fb.d_counters(), fb.d_entries());
  SIMLOD_CUDA_CHECK_LAUNCH("collect_kernel");
}

}  // namespace simlod::detail::cuda
