#include "stream/batch_ring.hpp"

namespace simlod::detail {

BatchRing::BatchRing(unsigned slots, std::size_t slot_points, bool pinned)
    : slot_points_(slot_points), pinned_(pinned), slots_(slots) {
  for (unsigned i = 0; i < slots; ++i) slots_[i].seq = i;
}

PinnedBatch* BatchRing::acquire(std::uint64_t seq) {
  Slot& slot = slots_[seq % slots_.size()];
  {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return cancelled_ || slot.seq == seq; });
    if (cancelled_) return nullptr;
  }
  // Only the loader of batch `seq` touches the slot until it publishes, so the allocation
  // (pinning 16 MB takes milliseconds) runs outside the lock.
  if (slot.buffer.capacity() == 0) {
    slot.buffer = PinnedBatch(slot_points_, pinned_);
  }
  slot.buffer.resize(slot_points_);
  (void)slot.buffer.points();  // forgets the checks of the batch it held before
  return &slot.buffer;
}

void BatchRing::publish(std::uint64_t seq, std::size_t points, std::exception_ptr error) {
  {
    std::lock_guard lock(mutex_);
    Slot& slot = slots_[seq % slots_.size()];
    slot.published = true;
    slot.points = points;
    if (!error) slot.buffer.resize(points);  // keeps the loader's checks
    slot.error = std::move(error);
  }
  published_.notify_all();
}

std::optional<BatchRing::Entry> BatchRing::ready(std::uint64_t seq) {
  std::lock_guard lock(mutex_);
  Slot& slot = slots_[seq % slots_.size()];
  if (slot.seq != seq || !slot.published) return std::nullopt;
  const PinnedBatch& batch = slot.buffer;
  return Entry{&batch, batch.points().first(slot.points), slot.error};
}

bool BatchRing::wait_ready(std::uint64_t seq, std::chrono::microseconds timeout) {
  std::unique_lock lock(mutex_);
  Slot& slot = slots_[seq % slots_.size()];
  return published_.wait_for(lock, timeout, [&] {
    return cancelled_ || (slot.seq == seq && slot.published);
  }) && !cancelled_;
}

void BatchRing::release(std::uint64_t seq) {
  {
    std::lock_guard lock(mutex_);
    Slot& slot = slots_[seq % slots_.size()];
    slot.seq = seq + slots_.size();
    slot.published = false;
    slot.points = 0;
    slot.error = nullptr;
  }
  freed_.notify_all();
}

void BatchRing::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  freed_.notify_all();
  published_.notify_all();
}

}  // namespace simlod::detail
