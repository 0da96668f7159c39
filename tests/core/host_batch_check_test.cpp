// PinnedBatch::check and Octree::insert_now of a checked batch: checks made while a batch is
// filled cover it from point 0 up and spare the inserting thread a second pass; whatever they
// did not cover is still checked.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"
#include "simlod/host_batch.hpp"

namespace simlod::test {
namespace {

PinnedBatch filled(std::size_t n, float edge) {
  PinnedBatch batch(n, false);
  batch.resize(n);
  auto points = batch.points();
  for (std::size_t i = 0; i < n; ++i) {
    const float f = static_cast<float>(i) / static_cast<float>(n);
    points[i] = Point{f * edge, std::fmod(f * 7.0f, 1.0f) * edge, std::fmod(f * 3.0f, 1.0f) * edge,
                      static_cast<std::uint32_t>(i)};
  }
  return batch;
}

TEST(PinnedBatchCheck, PiecesCoverTheBatchFromTheStart) {
  const Bounds cube = cube_at_origin(10.0);
  PinnedBatch batch = filled(1000, 10.0f);
  EXPECT_EQ(batch.checked_points(cube), 0u);
  EXPECT_FALSE(batch.check(cube, 0, 400).has_value());
  EXPECT_EQ(batch.checked_points(cube), 400u);
  EXPECT_FALSE(batch.check(cube, 600, 400).has_value());  // a gap: not counted
  EXPECT_EQ(batch.checked_points(cube), 400u);
  EXPECT_FALSE(batch.check(cube, 400, 200).has_value());
  EXPECT_EQ(batch.checked_points(cube), 600u);
  EXPECT_FALSE(batch.check(cube, 600, 400).has_value());
  EXPECT_EQ(batch.checked_points(cube), 1000u);
  EXPECT_EQ(batch.checked_points(cube_at_origin(20.0)), 0u) << "checked against another cube";
  batch.resize(500);
  EXPECT_EQ(batch.checked_points(cube), 500u) << "resize keeps the checks of what stays";
  (void)batch.points();
  EXPECT_EQ(batch.checked_points(cube), 0u) << "write access forgets the checks";
  EXPECT_THROW((void)batch.check(cube, 400, 101), InvalidInput);
}

TEST(PinnedBatchCheck, ReportsTheFirstBadPointByItsIndexInTheBatch) {
  const Bounds cube = cube_at_origin(10.0);
  PinnedBatch batch = filled(100, 10.0f);
  batch.points()[57].y = std::numeric_limits<float>::quiet_NaN();
  const auto bad = batch.check(cube, 50, 50);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->index, 57u);
  EXPECT_NE(bad->reason.find("not finite"), std::string::npos) << bad->reason;
  EXPECT_EQ(batch.checked_points(cube), 0u);
}

TEST(PinnedBatchCheck, InsertNowChecksWhatTheChecksDidNotCover) {
  const Bounds cube = cube_at_origin(10.0);
  Octree tree = Octree::create(cube, small_config());
  PinnedBatch batch = filled(1000, 10.0f);
  batch.points()[700].x = 11.0f;  // outside the cube
  const auto ok = batch.check(tree.cube(), 0, 600);
  ASSERT_FALSE(ok.has_value());
  try {
    (void)tree.insert_now(batch);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("point 700 of the batch"), std::string::npos) << what;
  }
  EXPECT_EQ(tree.stats().points, 0u);
  batch.points()[700].x = 5.0f;
  EXPECT_FALSE(batch.check(tree.cube(), 0, 1000).has_value());
  EXPECT_EQ(tree.insert_now(batch).points, 1000u);
  EXPECT_EQ(tree.stats().points, 1000u);
}

}  // namespace
}  // namespace simlod::test
