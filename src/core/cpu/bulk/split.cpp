// Bulk split on the CPU: Morton sort of the points, then the breadth-first node layout.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

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

/// Buckets of the first pass: the top 15 bits of the Morton code (5 octree levels).
constexpr unsigned kBucketBits = 15;

/// Distributes the keys into buckets by their top bits (a parallel counting sort: per worker
/// counts, then each worker scatters its part), then sorts every bucket on the pool's workers.
void parallel_sort(FillVector<SortKey>& keys, PoolView& pool) {
  const std::size_t n = keys.size();
  constexpr std::size_t kBuckets = std::size_t{1} << kBucketBits;
  auto bucket = [](const SortKey& k) {
    return static_cast<std::size_t>(k.hi >> (63 - kBucketBits));
  };
  const std::size_t parts = std::clamp<std::size_t>(n / kCpuPointGrain, 1, pool.size());
  auto bound = [&](std::size_t part) { return n * part / parts; };
  std::vector<std::uint64_t> at(parts * kBuckets, 0);  // counts, then each part's first slot
  pool.parallel_for(parts, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t p = lo; p < hi; ++p) {
      std::uint64_t* row = at.data() + p * kBuckets;
      for (std::size_t i = bound(p); i < bound(p + 1); ++i) ++row[bucket(keys[i])];
    }
  });
  std::vector<std::uint64_t> begin(kBuckets + 1, 0);
  std::uint64_t sum = 0;
  for (std::size_t b = 0; b < kBuckets; ++b) {
    begin[b] = sum;
    for (std::size_t p = 0; p < parts; ++p) sum += std::exchange(at[p * kBuckets + b], sum);
  }
  begin[kBuckets] = sum;
  FillVector<SortKey> out(n);
  pool.parallel_for(parts, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t p = lo; p < hi; ++p) {
      std::uint64_t* row = at.data() + p * kBuckets;
      for (std::size_t i = bound(p); i < bound(p + 1); ++i) out[row[bucket(keys[i])]++] = keys[i];
    }
  });
  keys.swap(out);
  pool.parallel_for(kBuckets, 64, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t b = lo; b < hi; ++b) {
      std::sort(keys.begin() + static_cast<std::ptrdiff_t>(begin[b]),
                keys.begin() + static_cast<std::ptrdiff_t>(begin[b + 1]));
    }
  });
}

}  // namespace

SortedPoints split(TreeStore& store, PoolView& pool, std::span<const Point> points) {
  const std::size_t n = points.size();
  const float scale = store.geometry.quant_scale;
  SortedPoints s;
  {
    FillVector<SortKey> keys(n);
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
      nodes.push_back(parent.child(k));
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
