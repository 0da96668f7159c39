// A bounded ring of batch buffers indexed by stream sequence number. Batch s may only be
// written into slot s % N once batch s - N was released, so at most N batches are in memory
// and the loader holding the lowest unreleased batch can always go on (no deadlock however
// the loaders interleave). The consumer takes batches strictly in sequence order.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "simlod/host_batch.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

class BatchRing {
 public:
  /// `slots` buffers of `slot_points` points each, taken when first used (page-locked when
  /// `pinned`, from the pool of PinnedBatch; their memory returns there for the next stream).
  BatchRing(unsigned slots, std::size_t slot_points, bool pinned);
  BatchRing(const BatchRing&) = delete;
  BatchRing& operator=(const BatchRing&) = delete;

  // Loader side.
  /// The buffer for batch `seq` (size() = slot points, nothing checked); blocks until batch
  /// seq - slots was released. nullptr once cancelled. Throws CapacityError when the buffer
  /// cannot be allocated. The loader writes it and check()s what it wrote.
  [[nodiscard]] PinnedBatch* acquire(std::uint64_t seq);
  /// Batch `seq` holds its first `points` points, or failed with `error`.
  void publish(std::uint64_t seq, std::size_t points, std::exception_ptr error);

  // Consumer side.
  struct Entry {
    const PinnedBatch* batch;       ///< size() = the points published, with the loader's checks
    std::span<const Point> points;  ///< batch->points()
    std::exception_ptr error;
  };
  /// Batch `seq` if it has been published (never blocks).
  [[nodiscard]] std::optional<Entry> ready(std::uint64_t seq);
  /// Waits until batch `seq` is published, the ring is cancelled or `timeout` passes.
  bool wait_ready(std::uint64_t seq, std::chrono::microseconds timeout);
  /// Frees batch `seq`'s slot for batch seq + slots.
  void release(std::uint64_t seq);

  /// Wakes and stops every waiting loader; acquire() returns nullptr from now on.
  void cancel();

  [[nodiscard]] unsigned slots() const { return static_cast<unsigned>(slots_.size()); }
  [[nodiscard]] std::uint64_t capacity_bytes() const {
    return std::uint64_t{slots()} * slot_points_ * sizeof(Point);
  }

 private:
  struct Slot {
    std::uint64_t seq = 0;  ///< the batch this slot holds or waits for
    bool published = false;
    std::size_t points = 0;
    std::exception_ptr error;
    PinnedBatch buffer;
  };

  std::size_t slot_points_;
  bool pinned_;
  std::mutex mutex_;
  std::condition_variable freed_;      ///< loaders wait for their slot
  std::condition_variable published_;  ///< the consumer waits for its batch
  std::vector<Slot> slots_;
  bool cancelled_ = false;
};

}  // namespace simlod::detail
