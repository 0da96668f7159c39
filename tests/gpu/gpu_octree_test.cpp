// The CUDA backend against the CPU backend on synthetic scenes: 10^5 to 10^7 points, scan and
// Morton order, batches of 1000 to 10^6 points, SimLOD's configuration and deep trees.
#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "gpu/snapshot_compare.hpp"

namespace simlod::test {
namespace {

struct GpuCase {
  std::uint64_t points;
  synth::Order order;
  std::size_t batch;
  OctreeConfig config;
  std::string name;  ///< configuration name for the test name
};

void PrintTo(const GpuCase& c, std::ostream* os) {
  *os << c.points << (c.order == synth::Order::Scan ? " scan" : " morton") << " points, batch "
      << c.batch << ", leaf " << c.config.max_points_per_leaf << ", grid " << c.config.voxel_grid
      << ", chunk " << c.config.chunk_capacity;
}

OctreeConfig paper() { return OctreeConfig{}; }  // SimLOD: 50k per leaf, 128^3, chunks of 1000

OctreeConfig deep() {  // small leaves: deep trees and many splits per batch
  OctreeConfig c;
  c.max_points_per_leaf = 1000;
  return c;
}

class GpuVsCpu : public ::testing::TestWithParam<GpuCase> {};

TEST_P(GpuVsCpu, MatchesCpu) {
  SIMLOD_REQUIRE_GPU();
  const GpuCase& c = GetParam();
  const Scene& scene = synth_scene(c.points, c.order);
  expect_cuda_matches_cpu(scene.bounds, c.config, scene.points, c.batch,
                          /*invariants=*/c.points <= 1'000'000);
}

using O = synth::Order;

INSTANTIATE_TEST_SUITE_P(
    Scenes, GpuVsCpu,
    ::testing::Values(GpuCase{100'000, O::Scan, 1000, deep(), "deep"},
                      GpuCase{100'000, O::Morton, 1000, deep(), "deep"},
                      GpuCase{100'000, O::Scan, 100'000, paper(), "paper"},
                      GpuCase{100'000, O::Morton, 100'000, deep(), "deep"},
                      GpuCase{100'000, O::Scan, 1000, small_config(1000, 2, 100), "grid2chunk100"},
                      GpuCase{1'000'000, O::Scan, 1000, deep(), "deep"},
                      GpuCase{1'000'000, O::Scan, 100'000, paper(), "paper"},
                      GpuCase{1'000'000, O::Morton, 100'000, deep(), "deep"},
                      GpuCase{1'000'000, O::Scan, 1'000'000, deep(), "deep"},
                      GpuCase{1'000'000, O::Morton, 1'000'000, paper(), "paper"},
                      GpuCase{1'000'000, O::Morton, 100'000, small_config(2000, 32, 500),
                              "grid32chunk500"},
                      GpuCase{10'000'000, O::Scan, 1'000'000, paper(), "paper"},
                      GpuCase{10'000'000, O::Morton, 1'000'000, paper(), "paper"},
                      GpuCase{10'000'000, O::Scan, 1'000'000, deep(), "deep"},
                      GpuCase{10'000'000, O::Morton, 100'000, deep(), "deep"},
                      GpuCase{100'000'000, O::Scan, 1'000'000, paper(), "paper"},
                      GpuCase{100'000'000, O::Morton, 1'000'000, paper(), "paper"}),
    [](const auto& info) {
      const GpuCase& c = info.param;
      return std::string(c.order == O::Scan ? "Scan" : "Morton") + "_" + std::to_string(c.points) +
             "_batch" + std::to_string(c.batch) + "_" + c.name;
    });

}  // namespace
}  // namespace simlod::test
