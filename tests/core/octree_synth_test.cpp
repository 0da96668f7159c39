// Invariants of the CPU backend on synthetic scenes: scan and Morton order, several batch
// sizes, default and deep-tree configurations.
#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <string>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"

namespace simlod::test {
namespace {

struct SynthCase {
  std::uint64_t points;
  synth::Order order;
  std::size_t batch;
  OctreeConfig config;
};

void PrintTo(const SynthCase& c, std::ostream* os) {
  *os << c.points << (c.order == synth::Order::Scan ? " scan" : " morton") << " points, batch "
      << c.batch << ", leaf " << c.config.max_points_per_leaf << ", grid " << c.config.voxel_grid;
}

class OctreeSynth : public ::testing::TestWithParam<SynthCase> {};

TEST_P(OctreeSynth, InvariantsHold) {
  const SynthCase& c = GetParam();
  const Scene& scene = synth_scene(c.points, c.order);
  const auto start = std::chrono::steady_clock::now();
  Octree tree = build(scene.bounds, c.config, scene.points, c.batch);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("mpoints_per_s", std::to_string(c.points / seconds / 1e6));
  const OctreeStats stats = tree.stats();
  EXPECT_GT(stats.inner_nodes, 0u);
  EXPECT_EQ(stats.batches_queued, 0u);
  // Occupancy: a slot table of 4 bytes per 8^3-cell brick per inner node, and the chunks of
  // the bricks; node records of 56 bytes.
  const std::uint64_t cells =
      std::uint64_t{c.config.voxel_grid} * c.config.voxel_grid * c.config.voxel_grid;
  const std::uint64_t slots = std::max<std::uint64_t>(1, cells / 512);
  EXPECT_EQ(stats.bytes_grids, stats.inner_nodes * ((slots * 4 + 15) / 16 * 16) +
                                   stats.chunks_bricks * c.config.chunk_capacity * 16);
  EXPECT_LE(stats.bricks, stats.voxels) << "a brick holds at least one voxel's cell";
  EXPECT_EQ(stats.bytes_nodes, stats.nodes * 56);
  EXPECT_EQ(stats.bytes_reserved, stats.bytes_points + stats.bytes_voxels + stats.bytes_grids +
                                      stats.bytes_nodes +
                                      stats.chunks_pooled * c.config.chunk_capacity * 16);
  expect_octree_invariants(tree.snapshot(), scene.points, c.config, &stats);
}

OctreeConfig default_cpu() {
  OctreeConfig c;
  c.backend = Backend::Cpu;
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, OctreeSynth,
    ::testing::Values(SynthCase{200'000, synth::Order::Scan, 1000, small_config()},
                      SynthCase{200'000, synth::Order::Morton, 1000, small_config()},
                      SynthCase{300'000, synth::Order::Scan, 100'000, small_config(5000, 64)},
                      SynthCase{300'000, synth::Order::Morton, 100'000, small_config(1000)},
                      SynthCase{1'000'000, synth::Order::Scan, 1'000'000, small_config(5000)},
                      SynthCase{1'000'000, synth::Order::Morton, 1'000'000, default_cpu()},
                      SynthCase{10'000'000, synth::Order::Scan, 1'000'000, default_cpu()}),
    [](const auto& info) {
      const SynthCase& c = info.param;
      return std::string(c.order == synth::Order::Scan ? "Scan" : "Morton") + "_" +
             std::to_string(c.points) + "_batch" + std::to_string(c.batch) + "_leaf" +
             std::to_string(c.config.max_points_per_leaf);
    });

// The tree is valid after every update, not only at the end.
TEST(OctreeSynthIncremental, InvariantsHoldAfterEveryUpdate) {
  const Scene& scene = synth_scene(200'000, synth::Order::Scan);
  const OctreeConfig config = small_config(1500, 16, 100);
  Octree tree = Octree::create(scene.bounds, config);
  const std::size_t batch = 40'000;
  for (std::size_t end = batch; end <= scene.points.size(); end += batch) {
    tree.insert(std::span(scene.points).subspan(end - batch, batch));
    tree.update();
    const OctreeStats stats = tree.stats();
    expect_octree_invariants(tree.snapshot(), std::span(scene.points).first(end), config, &stats);
    if (HasFatalFailure()) return;
  }
}

// Chunks freed by splits are taken before new ones: a batch only takes fresh chunks for samples
// once the pool is empty (the pages of occupancy bricks are always fresh).
TEST(OctreeSynthIncremental, PooledChunksAreReusedFirst) {
  const Scene& scene = synth_scene(100'000, synth::Order::Morton);
  Octree tree = Octree::create(scene.bounds, small_config(800, 16, 64));
  for (std::size_t i = 0; i < scene.points.size(); i += 2000) {
    const OctreeStats before = tree.stats();
    tree.insert(std::span(scene.points).subspan(i, 2000));
    tree.update();
    const OctreeStats after = tree.stats();
    if (after.chunks_allocated - after.chunks_bricks >
        before.chunks_allocated - before.chunks_bricks) {
      EXPECT_EQ(after.chunks_pooled, 0u) << "fresh chunks taken while the pool had some";
    }
    EXPECT_EQ(after.chunks_used + after.chunks_pooled + after.chunks_bricks,
              after.chunks_allocated);
  }
  EXPECT_GT(tree.stats().inner_nodes, 10u);
}

}  // namespace
}  // namespace simlod::test
