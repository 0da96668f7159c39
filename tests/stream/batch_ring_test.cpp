// The bounded, sequence-ordered ring between loaders and the consumer.
#include "stream/batch_ring.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace simlod::detail {
namespace {

using namespace std::chrono_literals;

TEST(BatchRing, ALoaderWaitsUntilItsSlotIsReleased) {
  BatchRing ring(2, 8, /*pinned=*/false);
  ASSERT_NE(ring.acquire(0), nullptr);
  ASSERT_NE(ring.acquire(1), nullptr);
  ring.publish(0, 8, nullptr);
  ring.publish(1, 4, nullptr);
  std::atomic<bool> got{false};
  std::jthread loader([&] {
    PinnedBatch* p = ring.acquire(2);  // slot of batch 0
    got = p != nullptr;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(got.load()) << "batch 2 was given a slot while the ring held 2 batches";
  ASSERT_TRUE(ring.ready(0).has_value());
  EXPECT_EQ(ring.ready(0)->points.size(), 8u);
  EXPECT_FALSE(ring.ready(2).has_value());
  ring.release(0);
  loader.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(ring.ready(1)->points.size(), 4u);
  EXPECT_EQ(ring.capacity_bytes(), 2u * 8u * sizeof(Point));
}

TEST(BatchRing, BatchesAreTakenInSequenceOrder) {
  BatchRing ring(4, 8, false);
  ASSERT_NE(ring.acquire(1), nullptr);
  ring.publish(1, 1, nullptr);
  EXPECT_FALSE(ring.ready(0).has_value());
  EXPECT_FALSE(ring.wait_ready(0, 10ms));
  ASSERT_NE(ring.acquire(0), nullptr);
  ring.publish(0, 2, nullptr);
  EXPECT_TRUE(ring.wait_ready(0, 10ms));
}

TEST(BatchRing, ErrorsTravelWithTheirBatch) {
  BatchRing ring(2, 8, false);
  ASSERT_NE(ring.acquire(0), nullptr);
  ring.publish(0, 0, std::make_exception_ptr(std::runtime_error("bad file")));
  const auto entry = ring.ready(0);
  ASSERT_TRUE(entry.has_value());
  EXPECT_TRUE(entry->points.empty());
  EXPECT_THROW(std::rethrow_exception(entry->error), std::runtime_error);
}

TEST(BatchRing, CancelWakesWaitingLoaders) {
  BatchRing ring(1, 8, false);
  ASSERT_NE(ring.acquire(0), nullptr);
  std::atomic<int> result{-1};
  std::jthread loader([&] { result = ring.acquire(1) == nullptr ? 1 : 0; });
  std::this_thread::sleep_for(20ms);
  ring.cancel();
  loader.join();
  EXPECT_EQ(result.load(), 1);
  EXPECT_EQ(ring.acquire(5), nullptr);
}

}  // namespace
}  // namespace simlod::detail
