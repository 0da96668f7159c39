// The class counts of the CPU voxel index (class_tally.hpp).
#include "core/cpu/tree/class_tally.hpp"

#include <algorithm>
#include <atomic>

#include "simlod/detail/sampling.hpp"

namespace simlod::detail::cpu {

std::uint64_t ClassTally::first_slot(std::uint64_t key) const noexcept {
  const std::uint32_t h =
      mix32(mix32(static_cast<std::uint32_t>(key)) ^ static_cast<std::uint32_t>(key >> 32));
  return h & (slots_.size() - 1);
}

bool ClassTally::claim(std::uint64_t key) noexcept {
  if (slots_.empty()) return false;
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t s = first_slot(key);; s = (s + 1) & mask) {
    std::atomic_ref<std::uint64_t> slot(slots_[s].key);
    std::uint64_t now = slot.load(std::memory_order_relaxed);
    if (now == key) return true;
    if (now != kEmpty) continue;
    // At most half full (threads that pass this test together overshoot by a few keys, which
    // the other half of the slots absorbs), so that probes stay short and always end.
    std::atomic_ref<std::uint64_t> size(size_);
    if (size.load(std::memory_order_relaxed) >= slots_.size() / 2) return false;
    if (slot.compare_exchange_strong(now, key, std::memory_order_relaxed)) {
      size.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    if (now == key) return true;  // another thread claimed the same key
  }
}

std::uint64_t ClassTally::add(std::uint64_t key, std::uint64_t n) noexcept {
  const std::uint64_t mask = slots_.size() - 1;
  std::uint64_t s = first_slot(key);
  while (slots_[s].key != key) s = (s + 1) & mask;
  return std::atomic_ref<std::uint64_t>(slots_[s].count).fetch_add(n, std::memory_order_relaxed) +
         n;
}

std::uint64_t ClassTally::growth_bytes() const {
  return std::max(kFirstSlots, 2 * slots_.size()) * kSlotBytes - bytes();
}

void ClassTally::grow() {
  std::vector<Slot> old(std::max(kFirstSlots, 2 * slots_.size()));
  old.swap(slots_);  // throws before anything changed
  const std::uint64_t mask = slots_.size() - 1;
  for (const Slot& o : old) {
    if (o.key == kEmpty) continue;
    std::uint64_t s = first_slot(o.key);
    while (slots_[s].key != kEmpty) s = (s + 1) & mask;
    slots_[s] = o;
  }
}

void ClassTally::clear() noexcept {
  std::vector<Slot>().swap(slots_);
  size_ = 0;
}

}  // namespace simlod::detail::cpu
