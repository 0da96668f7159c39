// CUDA renderer: one frame (clear -> select -> splat [-> blend] -> resolve) queued on the
// framebuffer's stream, timed with events; the counters come back with one asynchronous copy,
// read when the caller asks for the frame's statistics.
#include "core/render_job.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/render/framebuffer.cuh"
#include "kernels/render/render_passes.hpp"
#include "kernels/tree/store.cuh"

namespace simlod::detail::cuda {

void render_async(const TreeStore& store, const RenderJob& job, Framebuffer& fb, void* stream,
                  bool external) {
  DeviceScope scope(fb.device());
  const ReadView tree = store.read();
  const std::uint32_t nodes = tree.node_count;
  fb.reserve(nodes, tree.chunk_top);
  cudaStream_t s = fb.stream();
  auto* app = static_cast<cudaStream_t>(stream);
  if (external) {  // after the application's work queued so far
    SIMLOD_CUDA_CHECK(cudaEventRecord(fb.external(), app));
    SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(s, fb.external(), 0));
  }
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
  // The next batch may move samples the frame reads (splits pool chunks): it waits for the
  // frame; so does the application's stream.
  SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(store.stream_handle(), fb.event(3), 0));
  if (external) SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(app, fb.event(3), 0));
}

RenderStats frame_stats(Framebuffer& fb) {
  DeviceScope scope(fb.device());
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(fb.stream()));
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
