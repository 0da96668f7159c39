// The node reader on the CPU backend: records and samples as the snapshot has them.
#include <gtest/gtest.h>

#include <string>

#include "core/node_reader_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

TEST(OctreeNodeReader, MatchesTheSnapshot) {
  const Scene& scene = synth_scene(200'000, synth::Order::Scan);
  const Octree tree = build(scene.bounds, small_config(2000, 32, 500), scene.points, 50'000);
  ASSERT_GT(tree.stats().inner_nodes, 10u);
  expect_reader_matches_snapshot(tree, 777);  // pieces that do not divide the chunks
  expect_reader_matches_snapshot(tree, 500);  // pieces of exactly one chunk
}

TEST(OctreeNodeReader, EmptyTreeIsTheRoot) {
  const Scene& scene = synth_scene(1000, synth::Order::Scan);
  const Octree tree = Octree::create(scene.bounds, small_config());
  int nodes = 0;
  tree.for_each_node([&](const NodeInfo& n) {
    ++nodes;
    EXPECT_TRUE(n.leaf);
    EXPECT_EQ(n.samples, 0u);
  });
  EXPECT_EQ(nodes, 1);
  std::vector<Point> out(10);
  EXPECT_EQ(tree.read_node(0, out), 0u);
}

TEST(OctreeNodeReader, BadIdAndEmptyVisitorAreClearErrors) {
  const Scene& scene = synth_scene(10'000, synth::Order::Scan);
  const Octree tree = build(scene.bounds, small_config(), scene.points, 10'000);
  std::vector<Point> out(10);
  try {
    (void)tree.read_node(123'456, out);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("node id 123456"), std::string::npos) << what;
  }
  EXPECT_THROW(tree.for_each_node({}), InvalidInput);
}

}  // namespace
}  // namespace simlod::test
