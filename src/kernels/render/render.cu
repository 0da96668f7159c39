// CUDA renderer: one frame (clear -> select -> splat [-> blend] -> resolve) on the
// framebuffer's stream, timed with events; the counters come back with one copy.
#include "core/render_job.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/render/framebuffer.cuh"
#include "kernels/render/render_passes.hpp"
#include "kernels/tree/store.cuh"

namespace simlod::detail::cuda {

RenderStats render(const TreeStore& store, const RenderJob& job, Framebuffer& fb) {
  const ReadView tree = store.read();
  const std::uint32_t nodes = tree.node_count;
  fb.reserve(nodes, tree.chunk_top);
  cudaStream_t s = fb.stream();
  // The frame reads the tree as the last batch left it: wait for it on the device, not here.
  SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(s, store.ready.get(), 0));
  SIMLOD_CUDA_CHECK(cudaEventRecord(fb.event(0), s));
  fb.clear(job.blend);
  launch_select(*tree.tree, nodes, job.params, job.budget, fb);
  SIMLOD_CUDA_CHECK(cudaEventRecord(fb.event(1), s));
  launch_splat(*tree.tree, tree.chunk_top, job.params, false, fb);
  if (job.blend) launch_splat(*tree.tree, tree.chunk_top, job.params, true, fb);
  SIMLOD_CUDA_CHECK(cudaEventRecord(fb.event(2), s));
  fb.launch_resolve(job.resolve);
  SIMLOD_CUDA_CHECK(cudaEventRecord(fb.event(3), s));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(fb.h_counters(), fb.d_counters(), sizeof(RenderCounters),
                                    cudaMemcpyDeviceToHost, s));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));

  const RenderCounters& c = *fb.h_counters();
  RenderStats stats;
  stats.nodes = c.drawn;
  stats.leaves = c.leaves;
  stats.points = c.points;
  stats.voxels = c.voxels;
  stats.threshold = c.threshold;
  float ms[3] = {};
  for (int i = 0; i < 3; ++i) {
    SIMLOD_CUDA_CHECK(cudaEventElapsedTime(&ms[i], fb.event(i), fb.event(i + 1)));
  }
  stats.select_ms = ms[0];
  stats.splat_ms = ms[1];
  stats.resolve_ms = ms[2];
  stats.total_ms = static_cast<double>(ms[0]) + ms[1] + ms[2];
  return stats;
}

}  // namespace simlod::detail::cuda
