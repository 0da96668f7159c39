// Octree::insert_now (a batch straight from the caller's memory) and Octree::prefetch on the CPU
// backend: the same tree as insert() + update(), validation before anything goes in, the
// inserted prefix reported on CapacityError, and stats().last_update set by the call.
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

TEST(OctreeInsertNow, BuildsTheTreeThatInsertAndUpdateBuild) {
  const Scene& scene = synth_scene(50'000, synth::Order::Scan);
  const std::span<const Point> all(scene.points);
  OctreeConfig c = small_config(2000, 32, 500);
  c.cpu_threads = 1;  // deterministic first-come colours, so trees compare exactly
  const Octree queued = build(scene.bounds, c, all, 10'000);

  Octree tree = Octree::create(scene.bounds, c);
  for (std::size_t i = 0; i < all.size(); i += 10'000) {
    const auto batch = all.subspan(i, 10'000);
    tree.prefetch(batch);  // the CPU backend reads batches in place: nothing to move
    const UpdateStats u = tree.insert_now(batch);
    EXPECT_EQ(u.batches, 1u);
    EXPECT_EQ(u.points, 10'000u);
    EXPECT_EQ(u.batches_left, 0u);
    EXPECT_EQ(u.device_upload_ms, 0.0) << "no device time on the CPU backend";
    EXPECT_EQ(u.device_update_ms, 0.0);
  }
  expect_identical(queued.snapshot(), tree.snapshot());
  const OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.memory_grow_steps, 0u);
  EXPECT_EQ(stats.memory_grow_ms, 0.0);
  expect_octree_invariants(tree.snapshot(), all, c, &stats);
}

TEST(OctreeInsertNow, LargeBatchesGoInAsBatchesOfMaxBatchPoints) {
  const Scene& scene = synth_scene(25'000, synth::Order::Morton);
  OctreeConfig c = small_config(1000, 16, 200);
  c.cpu_threads = 1;
  c.max_batch_points = 10'000;
  Octree queued = Octree::create(scene.bounds, c);
  queued.insert(scene.points);  // queued as 10k + 10k + 5k
  queued.update();

  Octree tree = Octree::create(scene.bounds, c);
  const UpdateStats u = tree.insert_now(scene.points);
  EXPECT_EQ(u.batches, 3u);
  EXPECT_EQ(u.points, 25'000u);
  expect_identical(queued.snapshot(), tree.snapshot());
  EXPECT_EQ(tree.stats().last_update.batches, 3u);
  EXPECT_EQ(tree.stats().last_update.points, 25'000u);
}

TEST(OctreeInsertNow, SetsLastUpdate) {
  const Scene& scene = synth_scene(5'000, synth::Order::Scan);
  Octree tree = Octree::create(scene.bounds, small_config());
  tree.insert(std::span(scene.points).first(1000));
  tree.update();
  EXPECT_EQ(tree.stats().last_update.points, 1000u);
  (void)tree.insert_now(std::span(scene.points).subspan(1000, 3000));
  const OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.last_update.batches, 1u);
  EXPECT_EQ(stats.last_update.points, 3000u);
  EXPECT_EQ(stats.points, 4000u);
  EXPECT_EQ(tree.insert_now(std::span<const Point>{}).points, 0u)
      << "an empty batch inserts nothing";
  EXPECT_EQ(tree.stats().last_update.batches, 0u);
}

TEST(OctreeInsertNow, ABadPointInsertsNothing) {
  const Scene& scene = synth_scene(5'000, synth::Order::Scan);
  Octree tree = Octree::create(scene.bounds, small_config());
  (void)tree.insert_now(std::span(scene.points).first(1000));
  const NodeSnapshot before = tree.snapshot();
  std::vector<Point> batch(scene.points.begin() + 1000, scene.points.end());
  batch[1234].y = std::numeric_limits<float>::quiet_NaN();
  try {
    (void)tree.insert_now(batch);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("point 1234 of the batch"), std::string::npos) << what;
    EXPECT_NE(what.find("not finite"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing of the batch was inserted"), std::string::npos) << what;
  }
  expect_identical(before, tree.snapshot());
  EXPECT_EQ(tree.stats().points, 1000u);
  EXPECT_EQ(tree.stats().last_update.points, 0u) << "the refused call is the last update";

  batch[1234] = scene.points[2234];
  batch[7] = Point{-1.0f, 0.0f, 0.0f, 0};  // outside the cube
  EXPECT_THROW((void)tree.insert_now(batch), InvalidInput);
  EXPECT_EQ(tree.stats().points, 1000u);
}

TEST(OctreeInsertNow, RefusedWhileBatchesAreQueued) {
  const Scene& scene = synth_scene(5'000, synth::Order::Scan);
  Octree tree = Octree::create(scene.bounds, small_config());
  const std::span<const Point> all(scene.points);
  tree.insert(all.first(1000));
  try {
    (void)tree.insert_now(all.subspan(1000));
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("1 batches are queued"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tree.stats().points, 0u);
  EXPECT_EQ(tree.stats().batches_queued, 1u) << "the queue is left as it was";
  tree.update();
  EXPECT_EQ(tree.insert_now(all.subspan(1000)).points, 4000u);
  EXPECT_EQ(tree.stats().points, 5000u);
}

// The reserve holds part of the batch: the first points_inserted() points are in the tree, the
// rest stays with the caller, and the octree takes later batches that fit.
TEST(OctreeInsertNow, CapacityErrorReportsThePointsInserted) {
  const Scene& scene = synth_scene(60'000, synth::Order::Scan);
  OctreeConfig c = small_config(2000, 8, 100);
  c.memory_bytes = 400'000;
  Octree tree = Octree::create(scene.bounds, c);
  const std::span<const Point> all(scene.points);
  (void)tree.insert_now(all.first(1000));
  const auto big = all.subspan(1000, 40'000);  // 640 KB of points alone
  std::uint64_t k = 0;
  try {
    (void)tree.insert_now(big);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    k = e.points_inserted();
    EXPECT_NE(std::string(e.what()).find(std::to_string(k) + " of the batch's 40000 points"),
              std::string::npos)
        << e.what();
  }
  ASSERT_GT(k, 0u) << "pieces of the large batch fit";
  ASSERT_LT(k, big.size());
  OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.points, 1000 + k);
  EXPECT_EQ(stats.batches_queued, 0u) << "nothing of the caller's batch is queued";
  EXPECT_EQ(stats.last_update.points, k);
  EXPECT_EQ(stats.last_update.batches, 0u);
  std::vector<Point> inserted(all.begin(), all.begin() + 1000);
  inserted.insert(inserted.end(), big.begin(), big.begin() + static_cast<std::ptrdiff_t>(k));
  expect_octree_invariants(tree.snapshot(), inserted, c, &stats);
  EXPECT_THROW((void)tree.insert_now(big.subspan(k)), CapacityError) << "still full";
}

TEST(OctreeRootCube, IsTheCubeCreateGives) {
  Bounds b;
  b.expand(10.0, 20.0, 30.0);
  b.expand(14.0, 21.0, 30.5);
  EXPECT_EQ(Octree::root_cube(b), Octree::create(b, small_config()).cube());
  Bounds point;
  point.expand(1.0, 2.0, 3.0);
  const Bounds widened = Octree::root_cube(point);
  EXPECT_EQ(widened.size()[0], 1.0) << "a cube of zero size gets an edge of 1";
  EXPECT_EQ(widened, Octree::create(point, small_config()).cube());
  EXPECT_THROW((void)Octree::root_cube(Bounds{}), InvalidInput);
}

TEST(OctreeFindBadPoint, NamesThePointInsertRefuses) {
  Bounds b;
  b.expand(100.0, 100.0, 100.0);
  b.expand(104.0, 102.0, 101.0);
  const Bounds cube = Octree::root_cube(b);  // edge 4
  std::vector<Point> batch(10, Point{1.0f, 1.0f, 4.0f, 0});
  EXPECT_FALSE(Octree::find_bad_point(batch, cube).has_value());
  batch[6].x = 4.5f;
  batch[8].z = std::numeric_limits<float>::infinity();
  const auto bad = Octree::find_bad_point(batch, cube);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->index, 6u);
  EXPECT_NE(bad->reason.find("outside the octree cube"), std::string::npos) << bad->reason;
  Octree tree = Octree::create(b, small_config());
  EXPECT_THROW(tree.insert(batch), InvalidInput);
  batch[6].x = 0.0f;
  EXPECT_EQ(Octree::find_bad_point(batch, cube)->index, 8u);
  EXPECT_NE(Octree::find_bad_point(batch, cube)->reason.find("not finite"), std::string::npos);
}

}  // namespace
}  // namespace simlod::test
