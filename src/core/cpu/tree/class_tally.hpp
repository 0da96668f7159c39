// The class counts of the CPU voxel index (Sampling::Average with a classification channel):
// how many points of each class lie below each voxel's cell, so that the voxel's class is the
// exact mode (detail/channels.hpp) batch by batch.
//
// An open-addressing table of (key, count) slots, linear probing, at most half full: key =
// node << 32 | cell << 8 | class (cells below 2^24: grids of at most 256^3), empty = kEmpty.
// A batch first claims the keys of its (cell, class) pairs (claim(), which may fail when the
// table is half full: the caller grows it and claims again; claiming twice is harmless), then
// adds its counts (add(), which cannot fail). So the table grows outside the part of a batch
// that must not fail, and with no bound on the pairs known in advance.
// Threads: claim() and add() run concurrently with calls of their own kind; grow() and
// clear() run alone.
#pragma once

#include <cstdint>
#include <vector>

namespace simlod::detail::cpu {

class ClassTally {
 public:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  [[nodiscard]] static constexpr std::uint64_t key_of(std::uint32_t node, std::uint32_t cell,
                                                      std::uint32_t cls) {
    return std::uint64_t{node} << 32 | std::uint64_t{cell} << 8 | cls;
  }

  /// Makes sure `key` has a slot; false when the table is too full to add it (grow() then).
  [[nodiscard]] bool claim(std::uint64_t key) noexcept;
  /// Adds n to the count of `key` (claimed) and returns the new count.
  std::uint64_t add(std::uint64_t key, std::uint64_t n) noexcept;
  /// Doubles the slots (at least kFirstSlots), keeping every key and count. Throws
  /// std::bad_alloc, the table then as before.
  void grow();
  /// Bytes grow() would add.
  [[nodiscard]] std::uint64_t growth_bytes() const;
  [[nodiscard]] std::uint64_t bytes() const { return slots_.size() * kSlotBytes; }
  void clear() noexcept;

 private:
  static constexpr std::uint64_t kSlotBytes = 16, kFirstSlots = std::uint64_t{1} << 14;
  struct Slot {
    std::uint64_t key = kEmpty, count = 0;
  };
  [[nodiscard]] std::uint64_t first_slot(std::uint64_t key) const noexcept;

  std::vector<Slot> slots_;
  std::uint64_t size_ = 0;  ///< keys held (atomic_ref while claiming)
};

}  // namespace simlod::detail::cpu
