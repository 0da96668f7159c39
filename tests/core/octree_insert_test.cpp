// Octree::insert and update: validation of batches, the queue, batch splitting and budgets.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

Bounds cube_of(double edge) {
  Bounds b;
  b.expand(100.0, 200.0, 300.0);
  b.expand(100.0 + edge, 200.0 + edge, 300.0 + edge);
  return b;
}

std::vector<Point> grid_points(std::size_t n, float edge) {
  std::vector<Point> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto f = static_cast<float>(i) / static_cast<float>(n);
    v[i] = {f * edge, std::fmod(f * 7.0f, 1.0f) * edge, std::fmod(f * 13.0f, 1.0f) * edge,
            static_cast<std::uint32_t>(i)};
  }
  return v;
}

/// Inserting `bad` as point `index` of a valid batch throws InvalidInput naming it; nothing
/// is queued and the tree keeps what it had.
void expect_rejected(const Point& bad, const std::string& text) {
  Octree tree = Octree::create(cube_of(10.0), small_config());
  const std::vector<Point> before = grid_points(500, 10.0f);
  tree.insert(before);
  tree.update();
  std::vector<Point> batch = grid_points(100, 10.0f);
  batch[57] = bad;
  try {
    tree.insert(batch);
    ADD_FAILURE() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("point 57 "), std::string::npos) << what;
    EXPECT_NE(what.find(text), std::string::npos) << what;
  }
  EXPECT_EQ(tree.stats().batches_queued, 0u);
  EXPECT_EQ(tree.update().batches, 0u);
  expect_octree_invariants(tree.snapshot(), before, tree.config());
}

TEST(OctreeInsert, BadPointsAreInvalidInputNamingIndexAndCoordinates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  expect_rejected({11.5f, 1.0f, 1.0f, 0}, "(11.5, 1, 1) lies outside");
  expect_rejected({1.0f, -0.25f, 1.0f, 0}, "(1, -0.25, 1) lies outside");
  expect_rejected({1.0f, 1.0f, std::nextafter(10.0f, 20.0f), 0}, "outside");
  expect_rejected({nan, 1.0f, 1.0f, 0}, "not finite");
  expect_rejected({1.0f, inf, 1.0f, 0}, "not finite");
  expect_rejected({1.0f, 1.0f, -inf, 0}, "not finite");
}

TEST(OctreeInsert, TheCubesMaxFaceIsInside) {
  Octree tree = Octree::create(cube_of(10.0), small_config(4, 4, 8));
  std::vector<Point> v;
  for (std::uint32_t i = 0; i < 40; ++i) {
    const float t = static_cast<float>(i % 11);
    v.push_back({10.0f, t, 10.0f, i});
    v.push_back({t, 10.0f, 0.0f, i + 100});
  }
  tree.insert(v);
  tree.update();
  expect_octree_invariants(tree.snapshot(), v, tree.config());
}

TEST(OctreeInsert, EmptyBatchesQueueNothing) {
  Octree tree = Octree::create(cube_of(1.0), small_config());
  tree.insert({});
  EXPECT_EQ(tree.stats().batches_queued, 0u);
  const UpdateStats s = tree.update();
  EXPECT_EQ(s.batches, 0u);
  EXPECT_EQ(s.points, 0u);
  EXPECT_EQ(s.batches_left, 0u);
  EXPECT_EQ(tree.stats().nodes, 1u);
}

TEST(OctreeInsert, LargeInsertsAreQueuedAsSeveralBatches) {
  OctreeConfig c = small_config(300, 8, 50);
  c.max_batch_points = 1000;
  Octree tree = Octree::create(cube_of(10.0), c);
  const std::vector<Point> v = grid_points(4500, 10.0f);
  tree.insert(v);
  EXPECT_EQ(tree.stats().batches_queued, 5u);
  const UpdateStats s = tree.update();
  EXPECT_EQ(s.batches, 5u);
  EXPECT_EQ(s.points, 4500u);
  EXPECT_EQ(s.batches_left, 0u);
  EXPECT_GE(s.split_rounds, 1u);
  const OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.last_update.points, 4500u);
  expect_octree_invariants(tree.snapshot(), v, c, &stats);
}

// One insert split internally gives the same tree as the same batches inserted one by one
// (single-threaded, so even first-come voxel colours agree).
TEST(OctreeInsert, InternalSplittingEqualsSeparateInserts) {
  const Scene& scene = synth_scene(1'000'000, synth::Order::Scan);
  OctreeConfig c = small_config(5000, 32, 1000);
  c.cpu_threads = 1;
  c.max_batch_points = 100'000;
  Octree whole = Octree::create(scene.bounds, c);
  whole.insert(scene.points);
  EXPECT_EQ(whole.stats().batches_queued, 10u);
  whole.update();
  const Octree parts = build(scene.bounds, c, scene.points, 100'000);
  expect_same_tree(whole.snapshot(), parts.snapshot(), true);
}

// The tree's shape, points and voxel cells do not depend on the number of threads.
TEST(OctreeInsert, ThreadCountDoesNotChangeTheTree) {
  const Scene& scene = synth_scene(200'000, synth::Order::Morton);
  OctreeConfig c = small_config(1000, 16, 200);
  c.cpu_threads = 1;
  const Octree one = build(scene.bounds, c, scene.points, 50'000);
  c.cpu_threads = 3;
  const Octree three = build(scene.bounds, c, scene.points, 50'000);
  expect_same_tree(one.snapshot(), three.snapshot(), false);
}

TEST(OctreeInsert, TinyBudgetProcessesOneBatchPerCall) {
  Octree tree = Octree::create(cube_of(10.0), small_config(100, 8, 10));
  const std::vector<Point> v = grid_points(3000, 10.0f);
  for (std::size_t i = 0; i < v.size(); i += 500) tree.insert(std::span(v).subspan(i, 500));
  ASSERT_EQ(tree.stats().batches_queued, 6u);
  for (std::uint64_t left = 5; left >= 3; --left) {
    const UpdateStats s = tree.update(std::chrono::microseconds{1});
    EXPECT_EQ(s.batches, 1u);
    EXPECT_EQ(s.points, 500u);
    EXPECT_EQ(s.batches_left, left);
    EXPECT_EQ(tree.stats().batches_queued, left);
    EXPECT_EQ(tree.stats().points, 500 * (6 - left));
  }
  const UpdateStats rest = tree.update(std::chrono::seconds{100});
  EXPECT_EQ(rest.batches, 3u);
  EXPECT_EQ(rest.batches_left, 0u);
  EXPECT_EQ(tree.update().batches, 0u);
  expect_octree_invariants(tree.snapshot(), v, tree.config());
}

}  // namespace
}  // namespace simlod::test
