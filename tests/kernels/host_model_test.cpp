// The CUDA backend's bookkeeping, run sequentially on the host (host_model.hpp), against the
// CPU backend: same batches, same nodes, points, voxel cells and statistics. No device needed.
#include "kernels/host_model.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "core/octree_impl.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
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
  test::expect_octree_invariants(snap, points, config, &stats);
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
        ModelCase{100'000, O::Morton, 3'000, test::small_config(100, 8, 7), "Morton_grid8_chunk7"}),
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
  EXPECT_THROW(model.insert_batch(all.subspan(50'000, 150'000)), CapacityError);
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

}  // namespace
}  // namespace simlod::detail
