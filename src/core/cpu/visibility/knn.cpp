// k nearest neighbours on a uniform grid (core/cpu/visibility/knn.hpp).
#include "core/cpu/visibility/knn.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {
namespace {

struct Grid {
  double lo[3] = {0, 0, 0};
  double cell = 1.0;
  std::int64_t dim[3] = {1, 1, 1};
  std::vector<std::uint64_t> keys;    ///< sorted cell keys, one per point
  std::vector<std::uint32_t> points;  ///< point indices in key order

  [[nodiscard]] std::int64_t coord(double v, int a) const {
    const auto c = static_cast<std::int64_t>(std::floor((v - lo[a]) / cell));
    return std::clamp<std::int64_t>(c, 0, dim[a] - 1);
  }
  [[nodiscard]] std::uint64_t key(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::uint64_t>(x + dim[0] * (y + dim[1] * z));
  }
};

Grid make_grid(std::span<const Point> points, std::uint32_t k) {
  Grid g;
  double hi[3];
  g.lo[0] = hi[0] = points[0].x;
  g.lo[1] = hi[1] = points[0].y;
  g.lo[2] = hi[2] = points[0].z;
  for (const Point& p : points) {
    const double c[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a) {
      g.lo[a] = std::min(g.lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
  const double extent = std::max({hi[0] - g.lo[0], hi[1] - g.lo[1], hi[2] - g.lo[2]});
  // About k points a cell on a surface spanning the extent: n (cell / extent)^2 = k.
  g.cell = extent > 0.0 ? extent * std::sqrt(static_cast<double>(k) / points.size()) : 1.0;
  for (;;) {
    for (int a = 0; a < 3; ++a)
      g.dim[a] = static_cast<std::int64_t>((hi[a] - g.lo[a]) / g.cell) + 1;
    if (g.dim[0] * g.dim[1] * g.dim[2] <= (std::int64_t{1} << 40)) break;
    g.cell *= 2.0;
  }
  std::vector<std::uint64_t> key(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    key[i] = g.key(g.coord(points[i].x, 0), g.coord(points[i].y, 1), g.coord(points[i].z, 2));
  }
  g.points.resize(points.size());
  std::iota(g.points.begin(), g.points.end(), 0u);
  std::sort(g.points.begin(), g.points.end(), [&](std::uint32_t a, std::uint32_t b) {
    return key[a] != key[b] ? key[a] < key[b] : a < b;
  });
  g.keys.resize(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) g.keys[i] = key[g.points[i]];
  return g;
}

using Candidate = std::pair<double, std::uint32_t>;  // squared distance, index

}  // namespace

std::vector<std::uint32_t> nearest_neighbours(std::span<const Point> points, std::uint32_t k) {
  const Grid g = make_grid(points, k);
  std::vector<std::uint32_t> out(points.size() * std::size_t{k});
  ThreadPool& pool = ThreadPool::shared();
  std::vector<std::vector<Candidate>> heaps(pool.size());
  pool.parallel_for(points.size(), 256, [&](unsigned worker, std::size_t begin, std::size_t end) {
    std::vector<Candidate>& heap = heaps[worker];
    for (std::size_t i = begin; i < end; ++i) {
      const Point& p = points[i];
      const std::int64_t c[3] = {g.coord(p.x, 0), g.coord(p.y, 1), g.coord(p.z, 2)};
      heap.clear();
      auto visit = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        if (x < 0 || y < 0 || z < 0 || x >= g.dim[0] || y >= g.dim[1] || z >= g.dim[2]) return;
        const std::uint64_t key = g.key(x, y, z);
        const auto range = std::equal_range(g.keys.begin(), g.keys.end(), key);
        for (auto it = range.first; it != range.second; ++it) {
          const std::uint32_t j = g.points[static_cast<std::size_t>(it - g.keys.begin())];
          const double dx = points[j].x - p.x, dy = points[j].y - p.y, dz = points[j].z - p.z;
          const Candidate cand{dx * dx + dy * dy + dz * dz, j};
          if (heap.size() < k) {
            heap.push_back(cand);
            std::push_heap(heap.begin(), heap.end());
          } else if (cand < heap.front()) {
            std::pop_heap(heap.begin(), heap.end());
            heap.back() = cand;
            std::push_heap(heap.begin(), heap.end());
          }
        }
      };
      const std::int64_t max_ring = std::max({g.dim[0], g.dim[1], g.dim[2]});
      for (std::int64_t r = 0; r <= max_ring; ++r) {
        for (std::int64_t dz = -r; dz <= r; ++dz) {
          for (std::int64_t dy = -r; dy <= r; ++dy) {
            const bool face = std::abs(dz) == r || std::abs(dy) == r;
            for (std::int64_t dx = -r; dx <= r; dx += face ? 1 : std::max<std::int64_t>(2 * r, 1)) {
              visit(c[0] + dx, c[1] + dy, c[2] + dz);
            }
          }
        }
        // Points beyond ring r lie at least r cells away.
        const double reach = static_cast<double>(r) * g.cell;
        if (heap.size() == k && heap.front().first <= reach * reach) break;
      }
      std::sort_heap(heap.begin(), heap.end());
      for (std::uint32_t m = 0; m < k; ++m) out[i * k + m] = heap[m].second;
    }
  });
  return out;
}

}  // namespace simlod::detail::cpu
