// A bounded ring of batch buffers indexed by stream sequence number. Batch s may only be
// written into slot s % N once batch s - N was released, so at most N batches are in memory
// and the loader holding the lowest unreleased batch can always go on (no deadlock however
// the loaders interleave). The consumer takes batches strictly in sequence order.
//
// A slot holds its batch in host memory (a PinnedBatch) or, for a CUDA octree, on the device
// (a DeviceBatch): there the loader writes each piece into a small staging piece that stays in
// its core's cache and the piece's copy starts at once, so the points cross host memory once
// and the thread that inserts has no upload left to start (docs/perf-notes.md).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "simlod/device_batch.hpp"
#include "simlod/host_batch.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

/// Where a ring keeps its batches.
enum class SlotMemory {
  Host,    ///< ordinary host memory (a CPU octree reads it in place)
  Device,  ///< device memory, filled through staging pieces by the loaders
};

/// One batch of the ring, and the loader's way of writing it piece by piece.
struct BatchSlot {
  PinnedBatch host;           ///< SlotMemory::Host (not page-locked)
  DeviceBatch device;         ///< SlotMemory::Device
  Point* host_out = nullptr;  ///< host.points().data(), taken when the slot was acquired
  /// The octree's attribute channels of the points (host slots of an octree that keeps
  /// channels), element i beside point i; the arrays keep their memory between batches.
  PointAttributes attributes;

  [[nodiscard]] bool on_device() const { return device.capacity() > 0; }
  /// Where the loader writes points [at, at + n) of the batch, n <= DeviceBatch::kPiecePoints,
  /// pieces in order from 0.
  [[nodiscard]] std::span<Point> piece(std::size_t at, std::size_t n);
  /// Host: checks the piece written as Octree::insert() would against `cube` and keeps the
  /// check with the batch; returns the first bad point. Device: starts the piece's copy; the
  /// whole batch is checked on the device before it is inserted (DeviceBatch::check), which
  /// costs microseconds there against a pass over every piece here.
  [[nodiscard]] std::optional<BadPoint> commit(std::size_t at, std::size_t n, const Bounds& cube);
  /// After the last piece: a device slot queues its check behind its copies
  /// (DeviceBatch::check_async), so that the thread that inserts only collects the result.
  void finish(const Bounds& cube);
};

class BatchRing {
 public:
  /// `slots` batches of `slot_points` points each, allocated when first used (page-locked host
  /// memory comes from the pool of PinnedBatch and returns there for the next stream; device
  /// memory on `device`).
  BatchRing(unsigned slots, std::size_t slot_points, SlotMemory memory, int device = 0);
  BatchRing(const BatchRing&) = delete;
  BatchRing& operator=(const BatchRing&) = delete;

  // Loader side.
  /// The slot for batch `seq` (empty, nothing checked); blocks until batch seq - slots was
  /// released. nullptr once cancelled. Throws CapacityError when its memory cannot be
  /// allocated. The loader writes it piece by piece (BatchSlot::piece and commit).
  [[nodiscard]] BatchSlot* acquire(std::uint64_t seq);
  /// Batch `seq` holds its first `points` points, or failed with `error`.
  void publish(std::uint64_t seq, std::size_t points, std::exception_ptr error);

  // Consumer side.
  struct Entry {
    BatchSlot* slot;  ///< host.size() or device.size() = the points published, checked
    std::size_t points;
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
  [[nodiscard]] bool on_device() const { return memory_ == SlotMemory::Device; }
  [[nodiscard]] std::uint64_t capacity_bytes() const {
    return std::uint64_t{slots()} * slot_points_ * sizeof(Point);
  }

 private:
  struct Slot {
    std::uint64_t seq = 0;  ///< the batch this slot holds or waits for
    bool published = false;
    std::size_t points = 0;
    std::exception_ptr error;
    BatchSlot batch;
  };

  std::size_t slot_points_;
  SlotMemory memory_;
  int device_;
  std::mutex mutex_;
  std::condition_variable freed_;      ///< loaders wait for their slot
  std::condition_variable published_;  ///< the consumer waits for its batch
  std::vector<Slot> slots_;
  bool cancelled_ = false;
};

}  // namespace simlod::detail
