// Write-combining for per-node counters: each worker adds into a small direct-mapped table and
// flushes an entry to the shared atomic counter only when another node takes its slot or the
// block ends. Workers counting points of the same leaves then share a cache line once per block
// instead of once per point.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "core/cpu/tree/node.hpp"
#include "core/cpu/tuning.hpp"

namespace simlod::detail::cpu {

class LocalCounts {
 public:
  LocalCounts() { node_.fill(kNone); }

  /// Counts one for `node`; calls flush(node, count) for an entry it evicts.
  template <class Flush>
  void add(std::uint32_t node, Flush&& flush) {
    const std::size_t slot = (node * 0x9E3779B1u) >> kShift;
    if (node_[slot] != node) {
      if (node_[slot] != kNone) {
        flush(node_[slot], count_[slot]);
      } else {
        used_[used_count_++] = static_cast<std::uint32_t>(slot);
      }
      node_[slot] = node;
      count_[slot] = 0;
    }
    ++count_[slot];
  }

  /// Calls flush(node, count) for every entry and empties the table.
  template <class Flush>
  void flush_all(Flush&& flush) {
    for (std::size_t i = 0; i < used_count_; ++i) {
      const std::uint32_t slot = used_[i];
      flush(node_[slot], count_[slot]);
      node_[slot] = kNone;
    }
    used_count_ = 0;
  }

 private:
  static_assert((kLocalCountSlots & (kLocalCountSlots - 1)) == 0, "power of two");
  static constexpr unsigned kShift = 32 - std::countr_zero(kLocalCountSlots);
  std::array<std::uint32_t, kLocalCountSlots> node_;
  std::array<std::uint32_t, kLocalCountSlots> count_{};
  std::array<std::uint32_t, kLocalCountSlots> used_{};  ///< occupied slots, for flush_all
  std::size_t used_count_ = 0;
};

}  // namespace simlod::detail::cpu
