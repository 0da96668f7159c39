// The node reader on the CUDA backend: records and samples as its snapshot has them, read from
// the device node by node.
#include <gtest/gtest.h>

#include "core/node_reader_check.hpp"
#include "snapshot_compare.hpp"

namespace simlod::test {
namespace {

TEST(GpuNodeReader, MatchesTheSnapshot) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(200'000, synth::Order::Scan);
  const Octree tree = build(scene.bounds, on_backend(small_config(2000, 32, 500), Backend::Cuda),
                            scene.points, 50'000);
  ASSERT_GT(tree.stats().inner_nodes, 10u);
  expect_reader_matches_snapshot(tree, 777);
}

}  // namespace
}  // namespace simlod::test
