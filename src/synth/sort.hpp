// Sorting the points of a chunk by their order key, unit by unit, on all threads. Large units
// are first split into buckets by the leading bits of the key (a stable counting pass), then
// the buckets are sorted independently; ties are broken by the generation index, so the
// result is fully determined by the keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace simlod::synth::detail {

struct SortRecord {
  std::uint64_t key = 0;
  std::uint32_t index = 0;  ///< position of the point in the chunk's generation buffer
  /// The point's class rides in what was padding, so sorting moves it for free.
  std::uint8_t classification = 0;

  friend bool operator<(const SortRecord& a, const SortRecord& b) {
    return a.key != b.key ? a.key < b.key : a.index < b.index;
  }
};

/// Sorts each range [offsets[i], offsets[i + 1]) of `records` into the same range of `out`.
void sort_units(std::span<const SortRecord> records, std::span<const std::size_t> offsets,
                std::span<SortRecord> out);

}  // namespace simlod::synth::detail
