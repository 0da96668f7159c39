#include "synth/sort.hpp"

#include <algorithm>
#include <bit>
#include <utility>
#include <vector>

#include "synth/parallel.hpp"

namespace simlod::synth::detail {
namespace {

constexpr std::size_t kSerialSortSize = 1u << 15;  // below this a unit is one sort task
constexpr int kBucketBits = 10;

using Range = std::pair<std::size_t, std::size_t>;

// Scatters records[begin, end) into out[begin, end) grouped by the leading varying key bits
// and returns the bucket ranges.
std::vector<Range> bucket(std::span<const SortRecord> records, std::span<SortRecord> out,
                          std::size_t begin, std::size_t end) {
  std::uint64_t lo = ~0ull;
  std::uint64_t hi = 0;
  for (std::size_t i = begin; i < end; ++i) {
    lo = std::min(lo, records[i].key);
    hi = std::max(hi, records[i].key);
  }
  const int varying = std::bit_width(lo ^ hi);
  const int shift = std::max(0, varying - kBucketBits);
  const std::uint64_t mask = (1ull << kBucketBits) - 1;
  std::vector<std::size_t> start((1u << kBucketBits) + 1, 0);
  for (std::size_t i = begin; i < end; ++i) ++start[((records[i].key >> shift) & mask) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<Range> ranges;
  for (std::size_t b = 0; b + 1 < start.size(); ++b) {
    if (start[b + 1] > start[b]) ranges.emplace_back(begin + start[b], begin + start[b + 1]);
  }
  for (std::size_t i = begin; i < end; ++i) {
    out[begin + start[(records[i].key >> shift) & mask]++] = records[i];
  }
  return ranges;
}

}  // namespace

void sort_units(std::span<const SortRecord> records, std::span<const std::size_t> offsets,
                std::span<SortRecord> out) {
  const std::size_t units = offsets.size() - 1;
  std::vector<std::vector<Range>> tasks(units);
  parallel_for(units, [&](std::size_t u) {
    const std::size_t begin = offsets[u];
    const std::size_t end = offsets[u + 1];
    if (end - begin <= kSerialSortSize) {
      std::copy(records.begin() + static_cast<std::ptrdiff_t>(begin),
                records.begin() + static_cast<std::ptrdiff_t>(end),
                out.begin() + static_cast<std::ptrdiff_t>(begin));
      if (end > begin) tasks[u].emplace_back(begin, end);
    } else {
      tasks[u] = bucket(records, out, begin, end);
    }
  });
  std::vector<Range> all;
  for (const auto& t : tasks) all.insert(all.end(), t.begin(), t.end());
  parallel_for(all.size(), [&](std::size_t i) {
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(all[i].first),
              out.begin() + static_cast<std::ptrdiff_t>(all[i].second));
  });
}

}  // namespace simlod::synth::detail
