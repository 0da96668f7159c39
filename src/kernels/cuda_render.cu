// CUDA renderer: one frame (clear -> select -> splat [-> blend] -> resolve) on the
// framebuffer's stream, timed with events; the counters come back with one copy.
#include "core/render_job.hpp"
#include "kernels/cuda_backend.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/render_passes.hpp"

namespace simlod::detail::cuda {

RenderStats CudaBackend::render(const RenderJob& job, FramebufferStore& store) const {
  auto& fb = static_cast<CudaFramebuffer&>(store);
  const std::uint32_t nodes = control_.node_count;
  fb.reserve(nodes, control_.chunk_top);
  cudaStream_t s = fb.stream();
  SIMLOD_CUDA_CHECK(cudaEventRecord(fb.event(0), s));
  fb.clear(job.blend);
  launch_select(base_, nodes, job.params, job.budget, fb);
  SIMLOD_CUDA_CHECK(cudaEventRecord(fb.event(1), s));
  launch_splat(base_, control_.chunk_top, job.params, false, fb);
  if (job.blend) launch_splat(base_, control_.chunk_top, job.params, true, fb);
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
