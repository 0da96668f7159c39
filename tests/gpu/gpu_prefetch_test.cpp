// Prefetching (the CUDA builder's prefetch): a streaming loop prefetches batches k+1 and k+2 before
// it inserts batch k, which it prefetched the frame before. All three must stay in flight: batch k
// reaches the tree from its prefetched copy, not from a second upload. Proof: the host data of each
// batch is overwritten after its prefetch finished, and the tree still holds the original points.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "core/octree_impl.hpp"
#include "gpu/snapshot_compare.hpp"

namespace simlod::test {
namespace {

TEST(GpuPrefetch, EveryPrefetchedBatchReachesTheTreeAsPrefetched) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(400'000, synth::Order::Scan);
  const std::span<const Point> all(scene.points);
  constexpr std::size_t kBatch = 100'000;
  OctreeConfig c = small_config(5000, 32, 500);
  c.backend = Backend::Cuda;
  Octree tree = Octree::create(scene.bounds, c);
  detail::TreeStores& store = detail::OctreeAccess::impl(tree).store;
  std::vector<std::vector<Point>> host;
  for (std::size_t i = 0; i < all.size(); i += kBatch)
    host.emplace_back(all.begin() + i, all.begin() + i + kBatch);

  UpdateStats stats;
  detail::prefetch(store, host[0]);
  for (std::size_t k = 0; k < host.size(); ++k) {
    for (std::size_t a = k + 1; a <= k + 2 && a < host.size(); ++a)
      detail::prefetch(store, host[a]);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the copies have landed
    // A re-upload would now read this: every point moved to the cube's origin.
    const std::vector<Point> original = host[k];
    for (Point& p : host[k]) p = Point{0.0f, 0.0f, 0.0f, 0};
    detail::insert_batch(store, host[k], stats);
    host[k] = original;
  }
  const Octree cpu = build(scene.bounds, on_backend(c, Backend::Cpu), all, kBatch);
  expect_same_octree(cpu, tree);
}

}  // namespace
}  // namespace simlod::test
