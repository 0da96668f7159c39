// The bounded, sequence-ordered ring between loaders and the consumer.
#include "stream/batch_ring.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <utility>

namespace simlod::detail {
namespace {

using namespace std::chrono_literals;

TEST(BatchRing, ALoaderWaitsUntilItsSlotIsReleased) {
  BatchRing ring(2, 8, SlotMemory::Host);
  ASSERT_NE(ring.acquire(0), nullptr);
  ASSERT_NE(ring.acquire(1), nullptr);
  ring.publish(0, 8, nullptr);
  ring.publish(1, 4, nullptr);
  std::atomic<bool> got{false};
  std::jthread loader([&] {
    BatchSlot* p = ring.acquire(2);  // slot of batch 0
    got = p != nullptr;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(got.load()) << "batch 2 was given a slot while the ring held 2 batches";
  ASSERT_TRUE(ring.ready(0).has_value());
  EXPECT_EQ(ring.ready(0)->points, 8u);
  EXPECT_FALSE(ring.ready(2).has_value());
  ring.release(0);
  loader.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(ring.ready(1)->points, 4u);
  EXPECT_EQ(ring.capacity_bytes(), 2u * 8u * sizeof(Point));
}

TEST(BatchRing, BatchesAreTakenInSequenceOrder) {
  BatchRing ring(4, 8, SlotMemory::Host);
  ASSERT_NE(ring.acquire(1), nullptr);
  ring.publish(1, 1, nullptr);
  EXPECT_FALSE(ring.ready(0).has_value());
  EXPECT_FALSE(ring.wait_ready(0, 10ms));
  ASSERT_NE(ring.acquire(0), nullptr);
  ring.publish(0, 2, nullptr);
  EXPECT_TRUE(ring.wait_ready(0, 10ms));
}

TEST(BatchRing, ErrorsTravelWithTheirBatch) {
  BatchRing ring(2, 8, SlotMemory::Host);
  ASSERT_NE(ring.acquire(0), nullptr);
  ring.publish(0, 0, std::make_exception_ptr(std::runtime_error("bad file")));
  const auto entry = ring.ready(0);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->points, 0u);
  EXPECT_THROW(std::rethrow_exception(entry->error), std::runtime_error);
}

TEST(BatchRing, CancelWakesWaitingLoaders) {
  BatchRing ring(1, 8, SlotMemory::Host);
  ASSERT_NE(ring.acquire(0), nullptr);
  std::atomic<int> result{-1};
  std::jthread loader([&] { result = ring.acquire(1) == nullptr ? 1 : 0; });
  std::this_thread::sleep_for(20ms);
  ring.cancel();
  loader.join();
  EXPECT_EQ(result.load(), 1);
  EXPECT_EQ(ring.acquire(5), nullptr);
}

TEST(BatchRing, HostSlotsAreWrittenAndCheckedPieceByPiece) {
  BatchRing ring(1, 8, SlotMemory::Host);
  const Bounds cube{{0, 0, 0}, {10, 10, 10}};
  BatchSlot* slot = ring.acquire(0);
  ASSERT_NE(slot, nullptr);
  EXPECT_FALSE(slot->on_device());
  for (std::size_t at = 0; at < 6; at += 3) {
    std::span<Point> piece = slot->piece(at, 3);
    for (std::size_t i = 0; i < 3; ++i) {
      piece[i] = {static_cast<float>(at + i), 1.0f, 2.0f, 0xff000000u};
    }
    EXPECT_FALSE(slot->commit(at, 3, cube).has_value());
  }
  ring.publish(0, 6, nullptr);
  const auto entry = ring.ready(0);
  ASSERT_TRUE(entry.has_value());
  const PinnedBatch& batch = std::as_const(entry->slot->host);
  ASSERT_EQ(batch.size(), 6u);
  EXPECT_EQ(batch.checked_points(cube), 6u);  // insert_now() need not check them again
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(batch.points()[i].x, static_cast<float>(i));
  ring.release(0);

  // A bad point is named by its index in the batch, not in the piece.
  slot = ring.acquire(1);
  ASSERT_NE(slot, nullptr);
  std::span<Point> piece = slot->piece(0, 4);
  for (Point& p : piece) p = {1.0f, 1.0f, 1.0f, 0xff000000u};
  ASSERT_FALSE(slot->commit(0, 4, cube).has_value());
  piece = slot->piece(4, 4);
  for (Point& p : piece) p = {1.0f, 1.0f, 1.0f, 0xff000000u};
  piece[2].y = 11.0f;
  const auto bad = slot->commit(4, 4, cube);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->index, 6u);
}

}  // namespace
}  // namespace simlod::detail
