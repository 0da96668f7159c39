// The embedding calls on the CPU backend: update_async and rasterize_async do what update and
// rasterize do (the CPU has no streams; its work is done when the call returns), wait_frame
// returns the last frame's statistics, and a bad device index is refused.
#include <gtest/gtest.h>

#include <string>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"
#include "simlod/render.hpp"

namespace simlod::test {
namespace {

TEST(RenderAsync, CpuUpdateAsyncAndRasterizeAsyncMatchTheBlockingCalls) {
  const Scene& scene = synth_scene(100'000, synth::Order::Scan);
  OctreeConfig config = small_config(1000, 32, 500);
  config.cpu_threads = 1;  // first-come colours are then deterministic
  const Octree reference = build(scene.bounds, config, scene.points, 10'000);
  Octree tree = Octree::create(scene.bounds, config);
  Bounds box;
  for (const Point& p : scene.points) box.expand(p.x, p.y, p.z);
  const View view = View::overview(box, 160, 120);
  Framebuffer fb(160, 120, Backend::Cpu, 1);
  EXPECT_EQ(wait_frame(fb).samples(), 0u) << "no frame yet";
  const std::span<const Point> all(scene.points);
  for (std::size_t i = 0; i < all.size(); i += 10'000) {
    tree.insert(all.subspan(i, 10'000));
    EXPECT_EQ(tree.update_async(DeviceStream{}).points, 10'000u);
    rasterize_async(tree, view, fb, DeviceStream{});
    EXPECT_GT(wait_frame(fb).samples(), 0u);
  }
  expect_identical(reference.snapshot(), tree.snapshot());
  const RenderStats async_stats = wait_frame(fb);
  const std::vector<std::uint8_t> async_image = fb.download();
  Framebuffer blocking(160, 120, Backend::Cpu, 1);
  const RenderStats stats = rasterize(reference, view, blocking);
  EXPECT_EQ(async_stats.nodes, stats.nodes);
  EXPECT_EQ(async_stats.samples(), stats.samples());
  EXPECT_EQ(async_image, blocking.download());
}

TEST(RenderAsync, NegativeDeviceIsRefused) {
  OctreeConfig config = small_config();
  config.device = -1;
  try {
    (void)Octree::create(synth_scene(1000, synth::Order::Scan).bounds, config);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("device = -1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simlod::test
