// VisibilityMap on CUDA against the CPU: the same leaf matrix, counts and links, on the random
// scenes of the CPU tests, the box with its cube, and a box of several thousand leaves.
#include <gtest/gtest.h>

#include <random>

#include "core/visibility_scenes.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/normals.hpp"
#include "simlod/visibility.hpp"

namespace simlod::test {
namespace {

void expect_same_map(const VisibilityMap& gpu, const VisibilityMap& cpu) {
  ASSERT_EQ(gpu.stats().backend, Backend::Cuda);
  ASSERT_EQ(cpu.stats().backend, Backend::Cpu);
  ASSERT_EQ(gpu.leaves().size(), cpu.leaves().size());
  EXPECT_EQ(gpu.stats().facing_pairs, cpu.stats().facing_pairs);
  EXPECT_EQ(gpu.stats().visible_pairs, cpu.stats().visible_pairs);
  EXPECT_EQ(gpu.stats().links, cpu.stats().links);
  EXPECT_EQ(gpu.stats().links_per_level, cpu.stats().links_per_level);
  const auto leaves = static_cast<std::uint32_t>(cpu.leaves().size());
  for (std::uint32_t a = 0; a < leaves; ++a) {
    for (std::uint32_t b = a + 1; b < leaves; ++b) {
      ASSERT_EQ(gpu.visible(a, b), cpu.visible(a, b)) << a << " " << b;
    }
  }
  for (std::uint32_t n = 0; n < cpu.nodes().size(); ++n) {
    const auto g = gpu.links(n), c = cpu.links(n);
    ASSERT_TRUE(std::equal(g.begin(), g.end(), c.begin(), c.end())) << "links of node " << n;
  }
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
