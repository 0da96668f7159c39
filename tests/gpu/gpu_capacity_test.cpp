// The CUDA backend's memory reserve: a batch whose memory bound exceeds what is left is refused
// with CapacityError before anything changes, and smaller batches keep going in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

TEST(GpuCapacity, ReserveTooSmallForTheTablesIsRefusedAtCreate) {
  SIMLOD_REQUIRE_GPU();
  OctreeConfig c;
  c.backend = Backend::Cuda;
  c.memory_bytes = 1u << 20;  // the batch buffers alone need 24 MiB
  Bounds b;
  b.expand(0, 0, 0);
  b.expand(1, 1, 1);
  try {
    (void)Octree::create(b, c);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("memory_bytes"), std::string::npos) << e.what();
  }
}

TEST(GpuCapacity, LargeBatchRefusedTreeUnchangedSmallBatchesContinue) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(1'000'000, synth::Order::Morton);
  const std::span<const Point> all(scene.points);
  constexpr std::size_t kSmall = 10'000;
  OctreeConfig c;
  c.backend = Backend::Cuda;
  c.memory_bytes = std::uint64_t{256} << 20;
  Octree tree = Octree::create(scene.bounds, c);
  std::vector<Point> accepted;
  for (std::size_t i = 0; i < 5 * kSmall; i += kSmall) {
    tree.insert(all.subspan(i, kSmall));
    tree.update();
    accepted.insert(accepted.end(), all.begin() + i, all.begin() + i + kSmall);
  }
  const NodeSnapshot before = tree.snapshot();
  const OctreeStats stats_before = tree.stats();

  const auto large = all.subspan(5 * kSmall, 900'000);
  tree.insert(large);
  try {
    tree.update();
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("batch of 900000 points"), std::string::npos) << what;
    EXPECT_NE(what.find("not inserted"), std::string::npos) << what;
  }
  expect_identical(before, tree.snapshot());
  const OctreeStats stats_after = tree.stats();
  EXPECT_EQ(stats_after.nodes, stats_before.nodes);
  EXPECT_EQ(stats_after.points, stats_before.points);
  EXPECT_EQ(stats_after.voxels, stats_before.voxels);
  EXPECT_EQ(stats_after.chunks_allocated, stats_before.chunks_allocated);
  EXPECT_EQ(stats_after.bytes_free, stats_before.bytes_free);

  // Smaller batches still go in, splits included, and the tree is what the CPU builds from
  // the accepted batches.
  for (std::size_t i = 950'000; i < all.size(); i += kSmall) {
    tree.insert(all.subspan(i, kSmall));
    tree.update();
    accepted.insert(accepted.end(), all.begin() + i, all.begin() + i + kSmall);
  }
  EXPECT_GT(tree.stats().inner_nodes, 0u);
  const Octree cpu = build(scene.bounds, on_backend(c, Backend::Cpu), accepted, kSmall);
  expect_same_octree(cpu, tree);
  const OctreeStats stats = tree.stats();
  expect_octree_invariants(tree.snapshot(), accepted, c, &stats);
}

}  // namespace
}  // namespace simlod::test
