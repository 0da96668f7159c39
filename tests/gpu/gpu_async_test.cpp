// The embedding calls on CUDA, driven from an application's stream: batches inserted with
// update_async and frames queued with rasterize_async in between (no host wait per frame) give
// the same tree as the CPU and the same frame as the blocking rasterize; work queued on the
// application's stream after a frame sees its image; device indices are checked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"
#include "simlod/render.hpp"

#if defined(SIMLOD_TEST_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace simlod::test {
namespace {

#if defined(SIMLOD_TEST_HAS_CUDA)
TEST(GpuAsync, FramesBetweenBatchesOnAnApplicationStream) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(1'000'000, synth::Order::Scan);
  const OctreeConfig config = on_backend(small_config(5000, 64, 1000), Backend::Cuda);
  Octree tree = Octree::create(scene.bounds, config);
  Bounds box;
  for (const Point& p : scene.points) box.expand(p.x, p.y, p.z);
  constexpr std::uint32_t w = 640, h = 360;
  const View view = View::overview(box, w, h);
  Framebuffer fb(w, h, Backend::Cuda);
  void* d_image = nullptr;
  ASSERT_EQ(cudaMalloc(&d_image, std::size_t{w} * h * 4), cudaSuccess);
  fb.wrap_device_rgba8(d_image, std::size_t{w} * 4);
  cudaStream_t app = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&app, cudaStreamNonBlocking), cudaSuccess);
  const DeviceStream stream(app);

  const std::span<const Point> all(scene.points);
  constexpr std::size_t kBatch = 100'000;
  for (std::size_t i = 0; i < all.size(); i += kBatch) {
    tree.insert(all.subspan(i, kBatch));
    EXPECT_EQ(tree.update_async(stream).points, kBatch);
    rasterize_async(tree, view, fb, stream);  // the host does not wait for it
  }
  // Work queued on the application's stream after the frame sees the resolved image.
  std::vector<std::uint8_t> seen(std::size_t{w} * h * 4);
  ASSERT_EQ(cudaMemcpyAsync(seen.data(), d_image, seen.size(), cudaMemcpyDeviceToHost, app),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(app), cudaSuccess);
  const RenderStats async_stats = wait_frame(fb);
  EXPECT_GT(async_stats.samples(), 0u);

  // The same frame, drawn blocking from the same tree.
  Framebuffer blocking(w, h, Backend::Cuda);
  const RenderStats stats = rasterize(tree, view, blocking);
  EXPECT_EQ(async_stats.nodes, stats.nodes);
  EXPECT_EQ(async_stats.samples(), stats.samples());
  EXPECT_EQ(seen, blocking.download());
  EXPECT_EQ(fb.download(), seen);

  // Frames read the tree while later batches split leaves: the tree is still the CPU's.
  const Octree cpu = build(scene.bounds, on_backend(config, Backend::Cpu), all, kBatch);
  expect_same_octree(cpu, tree);
  fb.wrap_device_rgba8(nullptr, 0);
  cudaFree(d_image);
  cudaStreamDestroy(app);
}
#endif

TEST(GpuAsync, DeviceIndicesAreChecked) {
  SIMLOD_REQUIRE_GPU();
  OctreeConfig config;
  config.backend = Backend::Cuda;
  config.device = cuda_device_count();  // one past the last
  try {
    (void)Octree::create(synth_scene(1000, synth::Order::Scan).bounds, config);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("is not a CUDA device"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Framebuffer(64, 64, Backend::Cuda, 0, cuda_device_count()), InvalidInput);
  config.device = 0;
  config.memory_bytes = std::uint64_t{1} << 28;
  const Octree tree = Octree::create(synth_scene(1000, synth::Order::Scan).bounds, config);
  Framebuffer fb(64, 64, Backend::Cuda, 0, 0);
  Bounds box;
  box.expand(0, 0, 0);
  box.expand(1, 1, 1);
  EXPECT_NO_THROW((void)rasterize(tree, View::overview(box, 64, 64), fb));
}

}  // namespace
}  // namespace simlod::test
