// Points in random order on the CUDA backend: every point goes in, and the tree is the one scan
// order gives (node set, leaf points, voxel cells), at 10^7 against the CPU backend and at 10^8
// against the CUDA tree of the scan order (statistics: a full snapshot comparison at 10^8 takes
// minutes on the host). The CPU backend at the same sizes runs here too: it needs no device,
// but 10^7 and 10^8 points belong on the GPU test machine's 16 cores, not in CI (10^6 there).
#include <gtest/gtest.h>

#include "gpu/snapshot_compare.hpp"

namespace simlod::test {
namespace {

/// Statistics of the 10^8-point scene built in scan order with `c`.
OctreeStats scan_order_stats(const OctreeConfig& c) {
  const Scene& scan = synth_scene(100'000'000, synth::Order::Scan);
  return build(scan.bounds, c, scan.points, 1'000'000).stats();
}

/// A random-order tree of 10^8 points holds every point and has the scan order's shape.
void expect_scan_order_shape(const OctreeStats& s, const OctreeStats& scan) {
  EXPECT_EQ(s.points, 100'000'000u);
  EXPECT_EQ(s.nodes, scan.nodes);
  EXPECT_EQ(s.leaves, scan.leaves);
  EXPECT_EQ(s.depth, scan.depth);
  EXPECT_EQ(s.voxels, scan.voxels);
  EXPECT_EQ(s.chunks_used, scan.chunks_used);
}

TEST(GpuRandomOrder, TenMillionSameTreeAsCpuScanOrder) {
  SIMLOD_REQUIRE_GPU();
  const Scene& random = random_scene(10'000'000);
  const Scene& scan = synth_scene(10'000'000, synth::Order::Scan);
  OctreeConfig c;
  c.backend = Backend::Cuda;
  const Octree gpu = build(random.bounds, c, random.points, 1'000'000);
  EXPECT_EQ(gpu.stats().last_update.pieces, 0u);
  const Octree cpu = build(scan.bounds, on_backend(c, Backend::Cpu), scan.points, 1'000'000);
  expect_same_tree(cpu.snapshot(), gpu.snapshot(), /*colours=*/false);
  EXPECT_EQ(gpu.stats().points, 10'000'000u);
}

TEST(GpuRandomOrder, HundredMillionEveryPointIn) {
  SIMLOD_REQUIRE_GPU();
  OctreeConfig c;
  c.backend = Backend::Cuda;
  const OctreeStats scan_stats = scan_order_stats(c);
  const Scene& random = random_scene(100'000'000);
  Octree tree = Octree::create(random.bounds, c);
  std::uint64_t pieces = 0;
  for (std::size_t i = 0; i < random.points.size(); i += 1'000'000) {
    tree.insert(std::span(random.points).subspan(i, 1'000'000));
    pieces += tree.update().pieces;
  }
  const OctreeStats s = tree.stats();
  EXPECT_EQ(pieces, 0u) << "the device has room: no batch needs to be split";
  expect_scan_order_shape(s, scan_stats);
}

TEST(GpuRandomOrder, CpuBackendTenMillionSameTreeAsScanOrder) {
  SIMLOD_REQUIRE_GPU();  // the GPU test machine's size
  const Scene& random = random_scene(10'000'000);
  const Scene& scan = synth_scene(10'000'000, synth::Order::Scan);
  OctreeConfig c;
  c.backend = Backend::Cpu;
  const Octree tree = build(random.bounds, c, random.points, 1'000'000);
  EXPECT_EQ(tree.stats().last_update.pieces, 0u);
  const Octree reference = build(scan.bounds, c, scan.points, 1'000'000);
  expect_same_tree(reference.snapshot(), tree.snapshot(), /*colours=*/false);
  EXPECT_EQ(tree.stats().points, 10'000'000u);
}

TEST(GpuRandomOrder, CpuBackendHundredMillionEveryPointIn) {
  SIMLOD_REQUIRE_GPU();  // the GPU test machine's size
  OctreeConfig c;
  c.backend = Backend::Cpu;
  const OctreeStats scan_stats = scan_order_stats(c);
  const Scene& random = random_scene(100'000'000);
  expect_scan_order_shape(build(random.bounds, c, random.points, 1'000'000).stats(), scan_stats);
}

}  // namespace
}  // namespace simlod::test
