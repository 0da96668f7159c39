// Ground classification on CUDA against the CPU backend and the brute force: the same seeds,
// DTM and ground flags, on inputs that hit window edges and ties, and on a synthetic scene of
// 2x10^7 points in scan and in random order.
#include <gtest/gtest.h>

#include <cstring>

#include "core/terrain_brute.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"
#include "simlod/synth.hpp"
#include "simlod/terrain.hpp"

namespace simlod::test {
namespace {

using terrain::GroundParams;

GroundParams on(Backend b, GroundParams p = {}) {
  p.backend = b;
  return p;
}

void expect_same_raster(const terrain::Raster& a, const terrain::Raster& b) {
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  EXPECT_EQ(a.x0, b.x0);
  EXPECT_EQ(a.y0, b.y0);
  ASSERT_EQ(a.values.size(), b.values.size());
  EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)), 0);
}

TEST(GpuTerrain, SeedsEqualCpuAndBruteForce) {
  SIMLOD_REQUIRE_GPU();
  struct Case {
    double quantum, window, overlap, gap, outlier;
  };
  for (const Case& c : {Case{0.5, 10.0, 0.8, 20.0, 0.0}, Case{0.0, 10.0, 0.8, 0.0, 0.0},
                        Case{0.25, 10.0, 0.65, 15.0, 0.0}, Case{0.5, 7.3, 0.9, 20.0, 0.0},
                        Case{0.0, 10.0, 0.8, 20.0, 2.0}}) {
    SCOPED_TRACE(testing::Message() << "quantum " << c.quantum << " w " << c.window << " O "
                                    << c.overlap << " outlier " << c.outlier);
    std::vector<Point> pts = terrain_points(6000, 110.0, c.quantum, 17);
    pts[321] = {60.1f, 40.2f, -30.0f, 0};
    GroundParams p;
    p.window = c.window;
    p.overlap = c.overlap;
    p.gap_cell = c.gap;
    p.low_outlier = c.outlier;
    const terrain::Seeds gpu = terrain::find_seeds(pts, on(Backend::Cuda, p));
    const terrain::Seeds cpu = terrain::find_seeds(pts, on(Backend::Cpu, p));
    EXPECT_EQ(gpu.indices, cpu.indices);
    if (c.outlier == 0.0) {
      EXPECT_TRUE(test::same_seeds(gpu.indices, test::brute_seeds(pts, p)));
    }
    EXPECT_EQ(gpu.stats.windows_used, cpu.stats.windows_used);
    EXPECT_EQ(gpu.stats.local_minima, cpu.stats.local_minima);
    EXPECT_EQ(gpu.stats.low_outliers, cpu.stats.low_outliers);
    EXPECT_EQ(gpu.stats.gap_seeds, cpu.stats.gap_seeds);
  }
}

TEST(GpuTerrain, SkipMaskAndBadInputAsOnTheCpu) {
  SIMLOD_REQUIRE_GPU();
  std::vector<Point> pts = terrain_points(5000, 100.0, 0.5, 3);
  std::vector<std::uint8_t> skip(pts.size(), 0);
  for (std::size_t i = 0; i < pts.size(); i += 5) skip[i] = 1;
  const terrain::Seeds gpu = terrain::find_seeds(pts, on(Backend::Cuda), skip);
  EXPECT_EQ(gpu.indices, terrain::find_seeds(pts, on(Backend::Cpu), skip).indices);
  EXPECT_EQ(gpu.stats.skipped, 1000u);
  pts[4321].x = std::numeric_limits<float>::quiet_NaN();
  try {
    (void)terrain::find_seeds(pts, on(Backend::Cuda));
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("point 4321"), std::string::npos) << e.what();
  }
}

TEST(GpuTerrain, ClassifyAndDtmEqualCpu) {
  SIMLOD_REQUIRE_GPU();
  const std::vector<Point> pts = terrain_points(40000, 150.0, 0.0, 8);
  const terrain::GroundResult gpu = terrain::ground(pts, on(Backend::Cuda));
  const terrain::GroundResult cpu = terrain::ground(pts, on(Backend::Cpu));
  EXPECT_EQ(gpu.seeds.indices, cpu.seeds.indices);
  expect_same_raster(gpu.dtm, cpu.dtm);
  EXPECT_EQ(gpu.ground, cpu.ground);
  EXPECT_GT(gpu.ground_points, pts.size() / 2);
}

void compare_scene(synth::Order order, bool shuffled) {
  synth::SceneConfig config;
  config.points = 20'000'000;
  config.order = order;
  synth::Generator gen(config);
  std::vector<Point> pts(config.points);
  ASSERT_EQ(gen.next(pts), pts.size());
  if (shuffled) synth::shuffle(pts, 5);
  const terrain::GroundResult gpu = terrain::ground(pts, on(Backend::Cuda));
  const terrain::GroundResult cpu = terrain::ground(pts, on(Backend::Cpu));
  EXPECT_EQ(gpu.seeds.indices, cpu.seeds.indices);
  EXPECT_EQ(gpu.seeds.stats.windows_used, cpu.seeds.stats.windows_used);
  expect_same_raster(gpu.dtm, cpu.dtm);
  EXPECT_EQ(gpu.ground, cpu.ground);
  EXPECT_GT(gpu.seeds.indices.size(), 10'000u);
}

TEST(GpuTerrainLarge, SceneInScanOrderEqualsCpu) {
  SIMLOD_REQUIRE_GPU();
  compare_scene(synth::Order::Scan, false);
}

TEST(GpuTerrainLarge, SceneInRandomOrderEqualsCpu) {
  SIMLOD_REQUIRE_GPU();
  compare_scene(synth::Order::Morton, true);
}

}  // namespace
}  // namespace simlod::test
