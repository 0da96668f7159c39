// The CUDA backend's bookkeeping, run sequentially on the host (host_model.hpp), against the
// CPU backend: same batches, same nodes, points, voxel cells and statistics. No device needed.
#include "kernels/host_model.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "core/fault_injection.hpp"
#include "core/octree_check.hpp"
#include "core/octree_impl.hpp"
#include "core/octree_test_util.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

using test::Scene;

constexpr std::uint64_t kModelBytes = std::uint64_t{768} << 20;

/// Builds `points` in batches on the model and on the CPU backend and compares them.
void expect_model_matches_cpu(const Bounds& bounds, OctreeConfig config,
                              std::span<const Point> points, std::size_t batch) {
  config.max_batch_points = static_cast<std::uint32_t>(batch);
  config.backend = Backend::Cpu;
  HostModel model(config, make_geometry(bounds, config), kModelBytes);
  Octree cpu = Octree::create(bounds, config);
  for (std::size_t i = 0; i < points.size(); i += batch) {
    const auto piece = points.subspan(i, std::min(batch, points.size() - i));
    const std::uint32_t rounds = model.insert_batch(piece);
    cpu.insert(piece);
    const UpdateStats u = cpu.update();
    ASSERT_EQ(rounds, u.split_rounds) << "batch at " << i;
    ASSERT_EQ(model.control().overflow, 0u) << "batch at " << i;
  }
  const NodeSnapshot snap = model.snapshot();
  test::expect_same_tree(cpu.snapshot(), snap, /*colours=*/false);
  if (::testing::Test::HasFatalFailure()) return;
  const OctreeStats stats = model.stats();
  test::expect_same_stats(cpu.stats(), stats);
  // Quantised points are not the input points (the CPU's are checked against a model of the
  // rounding in tests/core/quantized_points_test.cpp).
  if (config.point_encoding == PointEncoding::Float32) {
    test::expect_octree_invariants(snap, points, config, &stats);
  }
}

struct ModelCase {
  std::uint64_t points;
  synth::Order order;
  std::size_t batch;
  OctreeConfig config;
  std::string name;
};

void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.name; }

OctreeConfig leaf(std::uint32_t n) {
  OctreeConfig c;
  c.max_points_per_leaf = n;
  return c;
}

OctreeConfig quantized(OctreeConfig c) {
  c.point_encoding = PointEncoding::Quantized16;
  return c;
}

class HostModelVsCpu : public ::testing::TestWithParam<ModelCase> {};

TEST_P(HostModelVsCpu, SameTree) {
  const ModelCase& c = GetParam();
  const Scene& scene = test::synth_scene(c.points, c.order);
  expect_model_matches_cpu(scene.bounds, c.config, scene.points, c.batch);
}

using O = synth::Order;

INSTANTIATE_TEST_SUITE_P(
    Scenes, HostModelVsCpu,
    ::testing::Values(
        ModelCase{100'000, O::Scan, 1000, leaf(1000), "Scan_batch1000_leaf1000"},
        ModelCase{100'000, O::Morton, 10'000, leaf(300), "Morton_batch10k_leaf300"},
        ModelCase{200'000, O::Morton, 100'000, OctreeConfig{}, "Morton_paper"},
        ModelCase{200'000, O::Scan, 50'000, test::small_config(2000, 32, 500),
                  "Scan_grid32_chunk500"},
        ModelCase{100'000, O::Scan, 7'000, test::small_config(500, 2, 100), "Scan_grid2_chunk100"},
        ModelCase{100'000, O::Morton, 3'000, test::small_config(100, 8, 8), "Morton_grid8_chunk8"},
        ModelCase{100'000, O::Scan, 7'000, quantized(test::small_config(500, 32, 100)),
                  "Scan_quantized_chunk100"},
        ModelCase{100'000, O::Morton, 3'000, quantized(test::small_config(100, 8, 8)),
                  "Morton_quantized_grid8_chunk8"},
        ModelCase{200'000, O::Scan, 100'000, quantized(OctreeConfig{}), "Scan_quantized_paper"}),
    [](const auto& info) { return info.param.name; });

TEST(HostModel, IdenticalPointsReachTheDepthLimit) {
  Bounds b;
  b.expand(0, 0, 0);
  b.expand(10, 10, 10);
  std::vector<Point> points(3000, Point{3.25f, 1.5f, 7.75f, 5});
  for (int i = 0; i < 300; ++i) points.push_back(Point{10.0f, 0.0f, 10.0f, 6});
  expect_model_matches_cpu(b, leaf(100), points, 1000);
}

TEST(HostModel, RefusedBatchLeavesTheTreeUnchanged) {
  const Scene& scene = test::synth_scene(200'000, O::Morton);
  const std::span<const Point> all(scene.points);
  OctreeConfig c;
  c.max_batch_points = 200'000;
  HostModel model(c, make_geometry(scene.bounds, c), std::uint64_t{160} << 20);
  for (std::size_t i = 0; i < 50'000; i += 10'000) model.insert_batch(all.subspan(i, 10'000));
  const NodeSnapshot before = model.snapshot();
  const Control counters = model.control();
  model.set_device_bytes(model.backed() + (std::uint64_t{1} << 20));  // a device nearly full
  EXPECT_THROW(model.insert_batch(all.subspan(50'000, 150'000)), CapacityError);
  model.set_device_bytes(~std::uint64_t{0});
  const NodeSnapshot after = model.snapshot();
  ASSERT_EQ(before.nodes.size(), after.nodes.size());
  for (std::size_t i = 0; i < before.nodes.size(); ++i) {
    ASSERT_TRUE(test::same_points(before.nodes[i].points, after.nodes[i].points));
    ASSERT_TRUE(test::same_points(before.nodes[i].voxels, after.nodes[i].voxels));
  }
  EXPECT_EQ(std::memcmp(&counters, &model.control(), kControlBatchBegin), 0);
  // Smaller batches still fit, splits included.
  for (std::size_t i = 50'000; i < 100'000; i += 10'000) model.insert_batch(all.subspan(i, 10'000));
  EXPECT_GT(model.stats().inner_nodes, 0u);
  const auto accepted = all.first(100'000);
  const OctreeStats stats = model.stats();
  test::expect_octree_invariants(model.snapshot(), accepted, c, &stats);
}

/// Points in random order: every batch reaches leaves all over the tree.
TEST(HostModel, RandomOrderMatchesTheCpuBackend) {
  const Scene& scene = test::random_scene(200'000);
  expect_model_matches_cpu(scene.bounds, test::small_config(1000, 32, 500), scene.points, 25'000);
}

// The fault this plan replaced: every leaf that split in round 1 was charged a chain of splits
// down to the depth limit (21 grids and 21,270 voxels each here: for 512 leaves 44 MB of grids,
// 174 MB of backlog and 176 MB of voxel chunks), so the batch was refused from a reserve that
// holds what it really needs (512 grids, a spill buffer of 12 MB and the bounded backlog).
TEST(HostModel, OneBatchOverManyFullLeavesFitsWhatItNeeds) {
  const test::FullLeaves f = test::full_leaves();
  OctreeConfig c = test::small_config(1000, 32, 100);
  c.max_batch_points = 600'000;
  const OctreeGeometry g = make_geometry(f.bounds, c);
  HostModel model(c, g, std::uint64_t{160} << 20);
  model.insert_batch(f.first);
  ASSERT_EQ(model.stats().leaves, 512u);
  ASSERT_EQ(model.stats().depth, 3u);
  const std::uint32_t rounds = model.insert_batch(f.second);
  EXPECT_EQ(rounds, 2u);
  EXPECT_EQ(model.stats().inner_nodes, 1u + 8u + 64u + 512u);
  EXPECT_EQ(model.control().overflow, 0u);
  std::vector<Point> all = f.first;
  all.insert(all.end(), f.second.begin(), f.second.end());
  const OctreeStats stats = model.stats();
  test::expect_octree_invariants(model.snapshot(), all, c, &stats);
}

// A batch whose later expand rounds need more grids than granted is rolled back and run again
// with a larger grant; the tree is the same as the CPU backend's.
TEST(HostModel, RoundsBeyondTheGrantRollBackAndRetry) {
  const Scene& scene = test::synth_scene(100'000, O::Morton);
  OctreeConfig c = test::small_config(200, 8, 50);
  c.max_batch_points = 20'000;
  c.backend = Backend::Cpu;
  HostModel model(c, make_geometry(scene.bounds, c), kModelBytes);
  Octree cpu = Octree::create(scene.bounds, c);
  model.set_headroom(0);
  const std::span<const Point> all(scene.points);
  for (std::size_t i = 0; i < all.size(); i += 20'000) {
    const auto piece = all.subspan(i, 20'000);
    const std::uint32_t rounds = model.insert_batch(piece);
    cpu.insert(piece);
    ASSERT_EQ(rounds, cpu.update().split_rounds) << "batch at " << i;
  }
  EXPECT_GT(model.rollbacks(), 0u);
  EXPECT_GT(model.headroom(), 0u);
  test::expect_same_tree(cpu.snapshot(), model.snapshot(), /*colours=*/false);
  const OctreeStats stats = model.stats();
  test::expect_same_stats(cpu.stats(), stats);
}

// A device without memory for the batch (after its expansion was already done): the batch is
// refused, rolled back, and the tree and its counters are exactly as before; with memory, the
// same batch goes in.
TEST(HostModel, FullDeviceRollsBackTheExpansion) {
  const test::FullLeaves f = test::full_leaves();
  OctreeConfig c = test::small_config(1000, 32, 100);
  c.max_batch_points = 600'000;
  HostModel model(c, make_geometry(f.bounds, c), std::uint64_t{160} << 20);
  model.insert_batch(f.first);
  const NodeSnapshot before = model.snapshot();
  const Control counters = model.control();
  // Room for the expansion (grids, spill) but not for the voxel backlog.
  model.set_device_bytes(model.layout().dynamic_begin + 600 * model.layout().chunk_bytes +
                         (std::uint64_t{20} << 20));
  EXPECT_THROW(model.insert_batch(f.second), CapacityError);
  EXPECT_EQ(model.rollbacks(), 1u);
  EXPECT_EQ(std::memcmp(&counters, &model.control(), kControlBatchBegin), 0);
  test::expect_identical(before, model.snapshot());
  model.set_device_bytes(~std::uint64_t{0});
  model.insert_batch(f.second);
  std::vector<Point> all = f.first;
  all.insert(all.end(), f.second.begin(), f.second.end());
  const OctreeStats stats = model.stats();
  test::expect_octree_invariants(model.snapshot(), all, c, &stats);
}

// The fault hook after each pass of a batch that splits: the batch throws, and from the first
// split on the model's tree has already changed, which is why the facade must refuse to go on
// (core/octree.cpp: the failed state).
TEST(HostModel, InjectedFaultsLeaveAHalfWrittenTree) {
  struct Disarm {
    ~Disarm() { arm_fault(0); }
  } disarm;
  const test::FullLeaves f = test::full_leaves();
  OctreeConfig c = test::small_config(1000, 32, 100);
  c.max_batch_points = 600'000;
  // Fault points of a batch with splits: count, plan, split, expand rounds, sample, allocate,
  // insert.
  for (int k = 1; k <= 7; ++k) {
    SCOPED_TRACE(k);
    HostModel model(c, make_geometry(f.bounds, c), std::uint64_t{160} << 20);
    model.insert_batch(f.first);
    const Control before = model.control();
    arm_fault(k);
    EXPECT_THROW(model.insert_batch(f.second), Error);
    arm_fault(0);
    const bool changed = std::memcmp(&before, &model.control(), kControlBatchBegin) != 0;
    EXPECT_EQ(changed, k >= 3) << "the tree counters change from the first split on";
  }
}

}  // namespace
}  // namespace simlod::detail::cuda
