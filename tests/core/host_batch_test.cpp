// PinnedBatch: a move-only batch of points in (page-locked where possible) host memory.
#include "simlod/host_batch.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "simlod/backend.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

TEST(PinnedBatch, SizeStaysWithinTheCapacity) {
  PinnedBatch batch(1000);
  EXPECT_EQ(batch.capacity(), 1000u);
  EXPECT_EQ(batch.size(), 0u);
  EXPECT_TRUE(batch.points().empty());
  batch.resize(1000);
  EXPECT_EQ(batch.points().size(), 1000u);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    batch.points()[i] = Point{1.0f, 2.0f, static_cast<float>(i), 7};
  }
  batch.resize(10);
  EXPECT_EQ(batch.size(), 10u);
  EXPECT_EQ(batch.points()[9], (Point{1.0f, 2.0f, 9.0f, 7}));
  try {
    batch.resize(1001);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("capacity of 1000 points"), std::string::npos) << e.what();
  }
  EXPECT_EQ(batch.size(), 10u) << "a refused resize changes nothing";
}

TEST(PinnedBatch, MovingHandsOverTheMemory) {
  PinnedBatch a(64);
  a.resize(3);
  a.points()[2] = Point{4.0f, 5.0f, 6.0f, 1};
  const Point* data = a.points().data();
  const bool pinned = a.pinned();
  PinnedBatch b(std::move(a));
  EXPECT_EQ(b.points().data(), data);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.capacity(), 64u);
  EXPECT_EQ(b.pinned(), pinned);
  EXPECT_EQ(b.points()[2], (Point{4.0f, 5.0f, 6.0f, 1}));
  EXPECT_EQ(a.capacity(), 0u);  // a moved-from batch is empty
  EXPECT_EQ(a.size(), 0u);
  EXPECT_FALSE(a.pinned());

  PinnedBatch c;
  EXPECT_EQ(c.capacity(), 0u);
  c = std::move(b);
  EXPECT_EQ(c.points().data(), data);
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(b.capacity(), 0u);
}

TEST(PinnedBatch, OrdinaryMemoryWhenAskedOrWithoutCuda) {
  PinnedBatch pageable(100, /*page_locked=*/false);
  EXPECT_FALSE(pageable.pinned());
  EXPECT_EQ(pageable.capacity(), 100u);
  if (cuda_device_count() == 0) {
    EXPECT_FALSE(PinnedBatch(100).pinned()) << "nothing can be page-locked without a device";
  }
}

TEST(PinnedBatch, ThePoolHandsMemoryToLaterBatches) {
  PinnedBatch::release_pool();
  PinnedBatch::prepare(256, 2);  // nothing to pin without a device: a no-op then
  {
    PinnedBatch a(256), b(256);
    a.resize(256);
    b.resize(256);
    EXPECT_NE(a.points().data(), b.points().data());
  }
  PinnedBatch::release_pool();
  PinnedBatch empty(0);
  EXPECT_EQ(empty.capacity(), 0u);
  EXPECT_TRUE(empty.points().empty());
}

}  // namespace
}  // namespace simlod::test
