// VisibilityMap on CUDA against the CPU: the same leaf matrix, counts and links, on the random
// scenes of the CPU tests, the box with its cube, and a box of several thousand leaves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "core/visibility_compare.hpp"
#include "core/visibility_scenes.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/normals.hpp"
#include "simlod/visibility.hpp"

namespace simlod::test {
namespace {

/// The same octree: nodes, leaves and point order byte for byte.
void expect_same_tree(const VisibilityMap& gpu, const VisibilityMap& cpu) {
  ASSERT_EQ(gpu.nodes().size(), cpu.nodes().size());
  ASSERT_EQ(gpu.leaves().size(), cpu.leaves().size());
  ASSERT_EQ(gpu.stats().depth, cpu.stats().depth);
  for (std::size_t i = 0; i < cpu.nodes().size(); ++i) {
    ASSERT_EQ(std::memcmp(&gpu.nodes()[i], &cpu.nodes()[i], sizeof(VisibilityNode)), 0)
        << "node " << i;
  }
  for (std::size_t i = 0; i < cpu.leaves().size(); ++i) {
    const VisibilityLeaf &g = gpu.leaves()[i], &c = cpu.leaves()[i];
    ASSERT_TRUE(g.node == c.node && g.centroid == c.centroid && g.normal == c.normal &&
                g.delta == c.delta)
        << "leaf " << i;
  }
  ASSERT_TRUE(std::ranges::equal(gpu.point_order(), cpu.point_order()));
  for (std::uint32_t i = 0; i < cpu.point_order().size(); ++i) {
    ASSERT_EQ(gpu.leaf_of_point(i), cpu.leaf_of_point(i)) << "point " << i;
  }
}

void expect_same_map(const VisibilityMap& gpu, const VisibilityMap& cpu) {
  ASSERT_EQ(gpu.stats().backend, Backend::Cuda);
  ASSERT_EQ(cpu.stats().backend, Backend::Cpu);
  expect_same_tree(gpu, cpu);
  expect_same_links(gpu, cpu);
}

VisScene noisy_box(std::uint32_t seed) {
  VisScene s = box_scene(1.0 / 50, 0.13, 1.0 / 100);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.004f, 0.004f);
  for (Point& p : s.points) {
    p.x += jitter(rng);
    p.y += jitter(rng);
    p.z += jitter(rng);
  }
  return s;
}

TEST(GpuVisibility, SameMapAsTheCpu) {
  SIMLOD_REQUIRE_GPU();
  for (std::uint32_t seed : {1u, 2u}) {
    const VisScene s = noisy_box(seed);
    for (const VisibilityConfig config :
         {VisibilityConfig{4, 8, 1, Backend::Cpu}, VisibilityConfig{5, 16, 2, Backend::Cpu},
          VisibilityConfig{3, 4, 1, Backend::Cpu}}) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << ", height " << config.height << ", K "
                                      << config.occluders);
      VisibilityConfig on_gpu = config;
      on_gpu.backend = Backend::Cuda;
      const VisibilityMap cpu = VisibilityMap::build(s.points, s.normals, config);
      const VisibilityMap gpu = VisibilityMap::build(s.points, s.normals, on_gpu);
      ASSERT_GT(cpu.stats().visible_pairs, 0u);
      expect_same_map(gpu, cpu);
    }
  }
}

TEST(GpuVisibility, EstimatedNormalsAndThousandsOfLeaves) {
  SIMLOD_REQUIRE_GPU();
  const VisScene s = box_scene(1.0 / 120, 0.13, 1.0 / 240);
  NormalParams params;
  params.viewpoint = std::array<double, 3>{0.2, 0.8, 0.8};
  const std::vector<Normal> normals = estimate_normals(s.points, params);
  const VisibilityMap cpu = VisibilityMap::build(s.points, normals, {6, 24, 1, Backend::Cpu});
  const VisibilityMap gpu = VisibilityMap::build(s.points, normals, {6, 24, 1, Backend::Cuda});
  EXPECT_GT(cpu.stats().leaves, 3000u);
  expect_same_map(gpu, cpu);
}

TEST(GpuVisibility, BlockedMapEqualsTheCpus) {
  SIMLOD_REQUIRE_GPU();
  const VisScene big = noisy_box(5);
  const VisScene small = box_scene(1.0 / 10, 0.13, 1.0 / 20);
  struct Case {
    const VisScene* scene;
    VisibilityConfig config;
  };
  // Budgets of about a third of the leaves a group, and of two leaves (many tiles).
  const Case cases[] = {{&big, {5, 4, 1, Backend::Cpu, 30'000}},
                        {&big, {6, 4, 2, Backend::Cpu, 30'000}},
                        {&small, {4, 2, 1, Backend::Cpu, 1}}};
  for (const Case& c : cases) {
    const VisibilityMap cpu = VisibilityMap::build(
        c.scene->points, c.scene->normals,
        {c.config.height, c.config.leaf_points, c.config.occluders, Backend::Cpu});
    VisibilityConfig config = c.config;
    config.backend = Backend::Cuda;
    const VisibilityMap gpu = VisibilityMap::build(c.scene->points, c.scene->normals, config);
    SCOPED_TRACE(testing::Message() << cpu.stats().leaves << " leaves");
    EXPECT_LT(gpu.stats().bytes, cpu.stats().bytes);  // blocked: no matrix kept
    EXPECT_GT(cpu.stats().visible_pairs, 0u);
    expect_same_map(gpu, cpu);
  }
}

TEST(GpuVisibility, OctreeEqualsTheCpusOnEdgeCases) {
  SIMLOD_REQUIRE_GPU();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<VisScene> scenes(5);
  // Far from the origin and negative; duplicates of a few spots; every point on one spot; one
  // point; a thin line along x.
  for (int i = 0; i < 3000; ++i) {
    scenes[0].points.push_back({-5e5f + 30 * u(rng), 4e6f + 30 * u(rng), -20 + u(rng), 0});
    scenes[0].normals.push_back({u(rng), u(rng), 1.0f});
    const float spot = static_cast<float>(i % 7);
    scenes[1].points.push_back({spot, -spot, 0.5f * spot, 0});
    scenes[1].normals.push_back({0.0f, 0.0f, i % 2 ? 1.0f : -1.0f});
    scenes[2].points.push_back({1.5f, 2.5f, -3.5f, 0});
    scenes[2].normals.push_back({1.0f, 0.0f, 0.0f});
    scenes[4].points.push_back({u(rng), 0.0f, 0.0f, 0});
    scenes[4].normals.push_back({0.0f, 1.0f, 0.0f});
  }
  scenes[3].points.push_back({1.0f, 2.0f, 3.0f, 0});
  scenes[3].normals.push_back({0.0f, 0.0f, 1.0f});
  for (std::size_t k = 0; k < scenes.size(); ++k) {
    for (const VisibilityConfig config :
         {VisibilityConfig{1, 8, 1, Backend::Cpu}, VisibilityConfig{6, 1, 1, Backend::Cpu},
          VisibilityConfig{16, 4, 1, Backend::Cpu}}) {
      SCOPED_TRACE(testing::Message() << "scene " << k << ", height " << config.height
                                      << ", leaf_points " << config.leaf_points);
      VisibilityConfig on_gpu = config;
      on_gpu.backend = Backend::Cuda;
      const VisibilityMap cpu = VisibilityMap::build(scenes[k].points, scenes[k].normals, config);
      const VisibilityMap gpu = VisibilityMap::build(scenes[k].points, scenes[k].normals, on_gpu);
      expect_same_map(gpu, cpu);
    }
  }
}

TEST(GpuVisibility, PairsInSeveralTilesGiveTheCpuMap) {
  SIMLOD_REQUIRE_GPU();
  // About 16,000 leaves: 1.3 x 10^8 pairs, two tiles of the CUDA pair phase.
  const VisScene s = box_scene(1.0 / 140, 0.13, 1.0 / 280);
  const VisibilityMap cpu = VisibilityMap::build(s.points, s.normals, {6, 8, 1, Backend::Cpu});
  const VisibilityMap gpu = VisibilityMap::build(s.points, s.normals, {6, 8, 1, Backend::Cuda});
  EXPECT_GT(cpu.stats().leaf_pairs, std::uint64_t{1} << 26);
  expect_same_map(gpu, cpu);
}

}  // namespace
}  // namespace simlod::test
