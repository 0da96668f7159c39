// k nearest neighbours on a uniform grid (core/cpu/visibility/knn.hpp; the grid and the search
// are knn_grid.hpp, shared with the CUDA backend).
#include "core/cpu/visibility/knn.hpp"

#include <algorithm>
#include <numeric>

#include "core/cpu/visibility/knn_grid.hpp"
#include "core/cpu/visibility/visibility.hpp"
#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {

KnnGrid knn_grid_of(std::span<const Point> points, std::uint32_t k) {
  double lo[3], hi[3];
  point_bounds(points, lo, hi);
  return knn_grid(lo, hi, points.size(), k);
}

std::vector<std::uint32_t> nearest_neighbours(std::span<const Point> points, std::uint32_t k) {
  const KnnGrid g = knn_grid_of(points, k);
  const std::size_t n = points.size();
  std::vector<std::uint64_t> key(n);
  for (std::size_t i = 0; i < n; ++i) key[i] = g.key_of(points[i]);
  std::vector<std::uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0u);
  std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
    return key[a] != key[b] ? key[a] < key[b] : a < b;
  });
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = key[ids[i]];
  std::vector<std::uint32_t> out(n * std::size_t{k});
  ThreadPool& pool = ThreadPool::shared();
  std::vector<std::vector<KnnCandidate>> heaps(pool.size(), std::vector<KnnCandidate>(k));
  pool.parallel_for(n, 256, [&](unsigned worker, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      knn_search(g, points.data(), keys.data(), ids.data(), n, static_cast<std::uint32_t>(i), k,
                 heaps[worker].data(), out.data() + i * k);
    }
  });
  return out;
}

}  // namespace simlod::detail::cpu
