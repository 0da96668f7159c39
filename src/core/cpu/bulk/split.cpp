// Bulk split on the CPU: Morton sort of the points, then the breadth-first node layout.
#include <algorithm>
#include <cstdint>
#include <tuple>

#include "core/cpu/bulk/bulk_tree.hpp"
#include "core/cpu/tuning.hpp"

namespace simlod::detail::cpu::bulk {
namespace {

/// Full Morton order of a quantised point: the top 21 bits per axis interleaved in `hi`, the
/// low 10 in `lo`; the input index breaks ties, so the order is total and deterministic.
struct SortKey {
  std::uint64_t hi;
  std::uint32_t lo;
  std::uint32_t index;

  friend bool operator<(const SortKey& a, const SortKey& b) {
    return std::tie(a.hi, a.lo, a.index) < std::tie(b.hi, b.lo, b.index);
  }
};

SortKey key_of(const QuantPoint& q, std::uint32_t index) {
  constexpr std::uint32_t kLow = kQuantBits - 21;  // 10 bits below the top 21
  constexpr std::uint32_t kMask = (1u << kLow) - 1u;
  return {morton_3d(q.x >> kLow, q.y >> kLow, q.z >> kLow),
          static_cast<std::uint32_t>(morton_3d(q.x & kMask, q.y & kMask, q.z & kMask)), index};
}

/// Sorts parts of the keys on the pool's workers, then merges neighbouring runs pairwise.
void parallel_sort(std::vector<SortKey>& keys, PoolView& pool) {
  const std::size_t n = keys.size();
  const std::size_t parts = std::clamp<std::size_t>(n / kCpuPointGrain, 1, pool.size());
  auto bound = [&](std::size_t part) { return n * part / parts; };
  pool.parallel_for(parts, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t p = lo; p < hi; ++p) {
      std::sort(keys.begin() + static_cast<std::ptrdiff_t>(bound(p)),
                keys.begin() + static_cast<std::ptrdiff_t>(bound(p + 1)));
    }
  });
  for (std::size_t width = 1; width < parts; width *= 2) {
    const std::size_t merges = (parts + 2 * width - 1) / (2 * width);
    pool.parallel_for(merges, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
      for (std::size_t m = lo; m < hi; ++m) {
        const std::size_t first = m * 2 * width;
        const std::size_t mid = std::min(parts, first + width);
        const std::size_t last = std::min(parts, first + 2 * width);
        if (mid == last) continue;
        std::inplace_merge(keys.begin() + static_cast<std::ptrdiff_t>(bound(first)),
                           keys.begin() + static_cast<std::ptrdiff_t>(bound(mid)),
                           keys.begin() + static_cast<std::ptrdiff_t>(bound(last)));
      }
    });
  }
}

}  // namespace

SortedPoints split(TreeStore& store, PoolView& pool, std::span<const Point> points) {
  const std::size_t n = points.size();
  const float scale = store.geometry.quant_scale;
  SortedPoints s;
  {
    std::vector<SortKey> keys(n);
    pool.parallel_for(n, kCpuPointGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        keys[i] = key_of(quantize(points[i], scale), static_cast<std::uint32_t>(i));
      }
    });
    parallel_sort(keys, pool);
    s.order.resize(n);
    s.q.resize(n);
    pool.parallel_for(n, kCpuPointGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        s.order[i] = keys[i].index;
        s.q[i] = quantize(points[keys[i].index], scale);
      }
    });
  }

  // Breadth-first: a node's children get the next free ids, so every level is one id range.
  std::vector<CpuNode>& nodes = store.nodes;
  const std::uint64_t limit = store.config.max_points_per_leaf;
  s.begin.assign(1, 0);
  s.end.assign(1, n);
  s.level_begin.assign(1, 0);
  for (std::uint32_t id = 0; id < nodes.size(); ++id) {
    const CpuNode parent = nodes[id];
    if (parent.level + 1 == s.level_begin.size()) {
      s.level_begin.push_back(static_cast<std::uint32_t>(nodes.size()));  // next level starts
    }
    const std::uint64_t lo = s.begin[id], hi = s.end[id];
    if (hi - lo <= limit || parent.level >= store.geometry.max_depth) continue;
    nodes[id].first_child = static_cast<std::uint32_t>(nodes.size());
    std::uint64_t at = lo;
    for (std::uint32_t k = 0; k < 8; ++k) {
      // Morton order sorts a node's points by their octant first.
      const auto split_at = std::partition_point(
          s.q.begin() + static_cast<std::ptrdiff_t>(at),
          s.q.begin() + static_cast<std::ptrdiff_t>(hi),
          [&](const QuantPoint& q) { return child_octant(q, parent.level) <= k; });
      const auto next = static_cast<std::uint64_t>(split_at - s.q.begin());
      CpuNode c;
      c.level = parent.level + 1;
      c.x = parent.x * 2 + (k & 1u);
      c.y = parent.y * 2 + ((k >> 1) & 1u);
      c.z = parent.z * 2 + ((k >> 2) & 1u);
      nodes.push_back(c);
      s.begin.push_back(at);
      s.end.push_back(next);
      at = next;
    }
  }
  if (s.level_begin.back() != nodes.size()) {
    s.level_begin.push_back(static_cast<std::uint32_t>(nodes.size()));
  }
  return s;
}

}  // namespace simlod::detail::cpu::bulk
