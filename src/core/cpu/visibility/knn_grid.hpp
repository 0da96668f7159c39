// The uniform grid of the k-nearest-neighbour search (knn.cpp on the CPU,
// kernels/visibility/normals.cu on CUDA): its shape from the points' bounds, a point's cell, a
// cell's key, and the search of one point ring by ring over the sorted cell keys, as SIMLOD_HD
// functions, so that both backends find the same neighbours in the same order.
#pragma once

#include <math.h>

#include <cstdint>

#include "simlod/detail/hd.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

struct KnnGrid {
  double lo[3] = {0, 0, 0};
  double cell = 1.0;
  std::int64_t dim[3] = {1, 1, 1};

  [[nodiscard]] SIMLOD_HD std::int64_t coord(double v, int a) const {
    const auto c = static_cast<std::int64_t>(::floor((v - lo[a]) / cell));
    return c < 0 ? 0 : (c > dim[a] - 1 ? dim[a] - 1 : c);
  }
  [[nodiscard]] SIMLOD_HD std::uint64_t key(std::int64_t x, std::int64_t y, std::int64_t z) const {
    return static_cast<std::uint64_t>(x + dim[0] * (y + dim[1] * z));
  }
  [[nodiscard]] SIMLOD_HD std::uint64_t key_of(const Point& p) const {
    return key(coord(p.x, 0), coord(p.y, 1), coord(p.z, 2));
  }
};

/// The grid over the bounds [lo, hi] of n points: cells of about k points on a surface spanning
/// the extent (n (cell / extent)^2 = k), doubled until there are at most 2^40.
inline KnnGrid knn_grid(const double lo[3], const double hi[3], std::uint64_t n, std::uint32_t k) {
  KnnGrid g;
  for (int a = 0; a < 3; ++a) g.lo[a] = lo[a];
  double extent = hi[0] - lo[0];
  extent = hi[1] - lo[1] > extent ? hi[1] - lo[1] : extent;
  extent = hi[2] - lo[2] > extent ? hi[2] - lo[2] : extent;
  g.cell = extent > 0.0 ? extent * ::sqrt(static_cast<double>(k) / static_cast<double>(n)) : 1.0;
  for (;;) {
    for (int a = 0; a < 3; ++a) g.dim[a] = static_cast<std::int64_t>((hi[a] - lo[a]) / g.cell) + 1;
    if (g.dim[0] * g.dim[1] * g.dim[2] <= (std::int64_t{1} << 40)) break;
    g.cell *= 2.0;
  }
  return g;
}

/// A neighbour candidate: squared distance, then index (the order of "nearer").
struct KnnCandidate {
  double d2 = 0.0;
  std::uint32_t index = 0;
};
SIMLOD_HD bool nearer(const KnnCandidate& a, const KnnCandidate& b) {
  return a.d2 != b.d2 ? a.d2 < b.d2 : a.index < b.index;
}

/// The first of the sorted keys[0, n) not below `key`.
SIMLOD_HD std::uint64_t first_key(const std::uint64_t* keys, std::uint64_t n, std::uint64_t key) {
  std::uint64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The k points nearest point i into out[0, k), nearest first: rings of cells around its cell
/// until a ring cannot hold a nearer point. keys[0, n): the cell keys in ascending order, ids the
/// points in that order (ties by index). `heap`: room for k candidates (a max-heap by nearer).
SIMLOD_HD void knn_search(const KnnGrid& g, const Point* points, const std::uint64_t* keys,
                          const std::uint32_t* ids, std::uint64_t n, std::uint32_t i,
                          std::uint32_t k, KnnCandidate* heap, std::uint32_t* out) {
  const Point& p = points[i];
  const std::int64_t c[3] = {g.coord(p.x, 0), g.coord(p.y, 1), g.coord(p.z, 2)};
  std::uint32_t size = 0;
  // Sift the candidate at `at` down a max-heap of `size` entries.
  const auto sift_down = [&](std::uint32_t at) {
    for (;;) {
      std::uint32_t top = at;
      const std::uint32_t l = 2 * at + 1, r = 2 * at + 2;
      if (l < size && nearer(heap[top], heap[l])) top = l;
      if (r < size && nearer(heap[top], heap[r])) top = r;
      if (top == at) return;
      const KnnCandidate t = heap[at];
      heap[at] = heap[top];
      heap[top] = t;
      at = top;
    }
  };
  const auto visit = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    if (x < 0 || y < 0 || z < 0 || x >= g.dim[0] || y >= g.dim[1] || z >= g.dim[2]) return;
    const std::uint64_t key = g.key(x, y, z);
    for (std::uint64_t at = first_key(keys, n, key); at < n && keys[at] == key; ++at) {
      const std::uint32_t j = ids[at];
      const float dx = points[j].x - p.x, dy = points[j].y - p.y, dz = points[j].z - p.z;
      const KnnCandidate cand{double{dx} * dx + double{dy} * dy + double{dz} * dz, j};
      if (size < k) {  // push and sift up
        std::uint32_t s = size++;
        heap[s] = cand;
        while (s > 0 && nearer(heap[(s - 1) / 2], heap[s])) {
          const KnnCandidate t = heap[s];
          heap[s] = heap[(s - 1) / 2];
          heap[(s - 1) / 2] = t;
          s = (s - 1) / 2;
        }
      } else if (nearer(cand, heap[0])) {
        heap[0] = cand;
        sift_down(0);
      }
    }
  };
  std::int64_t max_ring = g.dim[0] > g.dim[1] ? g.dim[0] : g.dim[1];
  max_ring = g.dim[2] > max_ring ? g.dim[2] : max_ring;
  for (std::int64_t r = 0; r <= max_ring; ++r) {
    for (std::int64_t dz = -r; dz <= r; ++dz) {
      for (std::int64_t dy = -r; dy <= r; ++dy) {
        const bool face = dz == -r || dz == r || dy == -r || dy == r;
        const std::int64_t step = face ? 1 : (2 * r > 1 ? 2 * r : 1);
        for (std::int64_t dx = -r; dx <= r; dx += step) visit(c[0] + dx, c[1] + dy, c[2] + dz);
      }
    }
    // Points beyond ring r lie at least r cells away.
    const double reach = static_cast<double>(r) * g.cell;
    if (size == k && heap[0].d2 <= reach * reach) break;
  }
  // Nearest first: pop the heap's largest into the back.
  for (std::uint32_t m = k; m-- > 0;) {
    out[m] = heap[0].index;
    heap[0] = heap[m];
    size = m;
    sift_down(0);
  }
}

}  // namespace simlod::detail
