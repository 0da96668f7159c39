// Prefetching (Octree::prefetch): a streaming loop prefetches batches k+1 and k+2 before it
// inserts batch k (Octree::insert_now), which it prefetched the frame before. All three must stay
// in flight: batch k reaches the tree from its prefetched copy, not from a second upload. Proof:
// the host data of each batch is overwritten after its prefetch finished, and the tree still holds
// the original points.
#if defined(SIMLOD_TEST_HAS_CUDA)
#include <cuda_runtime.h>
#endif
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "gpu/snapshot_compare.hpp"
#include "simlod/host_batch.hpp"

namespace simlod::test {
namespace {

#if defined(SIMLOD_TEST_HAS_CUDA)  // waits for the copies with the CUDA runtime
TEST(GpuPrefetch, EveryPrefetchedBatchReachesTheTreeAsPrefetched) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(400'000, synth::Order::Scan);
  const std::span<const Point> all(scene.points);
  constexpr std::size_t kBatch = 100'000;
  OctreeConfig c = small_config(5000, 32, 500);
  c.backend = Backend::Cuda;
  Octree tree = Octree::create(scene.bounds, c);
  std::vector<PinnedBatch> host;
  for (std::size_t i = 0; i < all.size(); i += kBatch) {
    PinnedBatch& b = host.emplace_back(kBatch);
    b.resize(kBatch);
    std::copy(all.begin() + i, all.begin() + i + kBatch, b.points().begin());
  }
  EXPECT_TRUE(host[0].pinned()) << "page-locked memory with a device";

  tree.prefetch(host[0].points());
  for (std::size_t k = 0; k < host.size(); ++k) {
    for (std::size_t a = k + 1; a <= k + 2 && a < host.size(); ++a) tree.prefetch(host[a].points());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the copies have landed
    // A re-upload would now read this: every point moved to the cube's origin (still valid).
    const std::vector<Point> original(host[k].points().begin(), host[k].points().end());
    for (Point& p : host[k].points()) p = Point{0.0f, 0.0f, 0.0f, 0};
    const UpdateStats u = tree.insert_now(host[k].points());
    EXPECT_EQ(u.points, kBatch);
    EXPECT_GT(u.device_update_ms, 0.0);
    std::copy(original.begin(), original.end(), host[k].points().begin());
  }
  const Octree cpu = build(scene.bounds, on_backend(c, Backend::Cpu), all, kBatch);
  expect_same_octree(cpu, tree);
}
#endif

}  // namespace
}  // namespace simlod::test
