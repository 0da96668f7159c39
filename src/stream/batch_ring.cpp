#include "stream/batch_ring.hpp"

namespace simlod::detail {

std::span<Point> BatchSlot::piece(std::size_t at, std::size_t n) {
  if (!on_device()) return {host_out + at, n};
  return device.piece().first(n);  // device.size() == at: pieces come in order
}

std::optional<BadPoint> BatchSlot::commit(std::size_t at, std::size_t n, const Bounds& cube) {
  if (!on_device()) return host.check(cube, at, n);
  device.commit(n);  // checked on the device, by the thread that inserts (batch_ring.hpp)
  return std::nullopt;
}

void BatchSlot::finish(const Bounds& cube) {
  if (on_device()) device.check_async(cube);
}

BatchRing::BatchRing(unsigned slots, std::size_t slot_points, SlotMemory memory, int device)
    : slot_points_(slot_points), memory_(memory), device_(device), slots_(slots) {
  for (unsigned i = 0; i < slots; ++i) slots_[i].seq = i;
}

BatchSlot* BatchRing::acquire(std::uint64_t seq) {
  Slot& slot = slots_[seq % slots_.size()];
  {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return cancelled_ || slot.seq == seq; });
    if (cancelled_) return nullptr;
  }
  // Only the loader of batch `seq` touches the slot until it publishes, so the allocation
  // (pinning 16 MB takes milliseconds) runs outside the lock.
  BatchSlot& batch = slot.batch;
  if (memory_ == SlotMemory::Device) {
    if (batch.device.capacity() == 0) batch.device = DeviceBatch(slot_points_, device_);
    batch.device.clear();  // its copies wait for the insert of the batch it held before
    return &batch;
  }
  if (batch.host.capacity() == 0) {
    batch.host = PinnedBatch(slot_points_, /*page_locked=*/false);
  }
  batch.host.resize(slot_points_);
  batch.host_out = batch.host.points().data();  // forgets the checks of the batch before
  return &batch;
}

void BatchRing::publish(std::uint64_t seq, std::size_t points, std::exception_ptr error) {
  {
    std::lock_guard lock(mutex_);
    Slot& slot = slots_[seq % slots_.size()];
    slot.published = true;
    slot.points = points;
    if (!error && !slot.batch.on_device()) slot.batch.host.resize(points);  // keeps the checks
    slot.error = std::move(error);
  }
  published_.notify_all();
}

std::optional<BatchRing::Entry> BatchRing::ready(std::uint64_t seq) {
  std::lock_guard lock(mutex_);
  Slot& slot = slots_[seq % slots_.size()];
  if (slot.seq != seq || !slot.published) return std::nullopt;
  return Entry{&slot.batch, slot.points, slot.error};
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
