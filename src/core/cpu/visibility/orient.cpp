// The propagated orientation on the CPU: the neighbour graph's edges sorted by (weight, slot)
// on the pool's workers, Kruskal's spanning forest with a union-find, then a depth-first walk
// from each part's seed.
#include "core/cpu/visibility/orient.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {
namespace {

using Edge = std::pair<std::uint64_t, std::uint64_t>;  // weight key, slot

/// Sorts `edges` on the pool: parts sorted by the workers, then merged pairwise.
void sort_edges(std::vector<Edge>& edges) {
  ThreadPool& pool = ThreadPool::shared();
  const std::size_t n = edges.size();
  const std::size_t parts = std::clamp<std::size_t>(n / 65536, 1, pool.size());
  auto bound = [&](std::size_t p) { return static_cast<std::ptrdiff_t>(n * p / parts); };
  pool.parallel_for(parts, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t p = lo; p < hi; ++p)
      std::sort(edges.begin() + bound(p), edges.begin() + bound(p + 1));
  });
  for (std::size_t width = 1; width < parts; width *= 2) {
    const std::size_t merges = (parts + 2 * width - 1) / (2 * width);
    pool.parallel_for(merges, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
      for (std::size_t m = lo; m < hi; ++m) {
        const std::size_t a = m * 2 * width;
        const std::size_t b = std::min(a + width, parts), c = std::min(a + 2 * width, parts);
        if (b < c) {
          std::inplace_merge(edges.begin() + bound(a), edges.begin() + bound(b),
                             edges.begin() + bound(c));
        }
      }
    });
  }
}

std::uint32_t find(std::vector<std::uint32_t>& up, std::uint32_t v) {
  while (up[v] != v) {
    up[v] = up[up[v]];
    v = up[v];
  }
  return v;
}

}  // namespace

void orient_normals(std::span<const Point> points, std::span<const std::uint32_t> knn,
                    std::uint32_t k, const SeedRule& rule, std::span<Normal> normals) {
  const std::size_t n = points.size();
  // The graph's edges, each once, by (weight, slot).
  std::vector<Edge> edges;
  edges.reserve(knn.size() * 3 / 4);
  for (std::uint64_t slot = 0; slot < knn.size(); ++slot) {
    if (is_edge_slot(knn.data(), k, slot)) {
      edges.emplace_back(edge_weight_key(normals[slot / k], normals[knn[slot]]), slot);
    }
  }
  sort_edges(edges);
  // Kruskal: the spanning forest, as each point's tree neighbours.
  std::vector<std::uint32_t> up(n);
  for (std::uint32_t v = 0; v < n; ++v) up[v] = v;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> tree;
  tree.reserve(n);
  for (const auto& [key, slot] : edges) {
    const auto a = static_cast<std::uint32_t>(slot / k), b = knn[slot];
    const std::uint32_t ra = find(up, a), rb = find(up, b);
    if (ra == rb) continue;
    up[std::max(ra, rb)] = std::min(ra, rb);
    tree.emplace_back(a, b);
  }
  edges = {};
  std::vector<std::uint64_t> offset(n + 1, 0);
  std::vector<std::uint32_t> adjacent(2 * tree.size());
  for (const auto& [a, b] : tree) {
    ++offset[a + 1];
    ++offset[b + 1];
  }
  for (std::size_t v = 0; v < n; ++v) offset[v + 1] += offset[v];
  std::vector<std::uint64_t> fill(offset.begin(), offset.end() - 1);
  for (const auto& [a, b] : tree) {
    adjacent[fill[a]++] = b;
    adjacent[fill[b]++] = a;
  }
  // Each part's seed: the smallest seed key, ties to the lower index.
  std::vector<std::uint32_t> seed(n, 0xFFFFFFFFu);
  for (std::uint32_t v = 0; v < n; ++v) {
    std::uint32_t& s = seed[find(up, v)];
    if (s == 0xFFFFFFFFu || seed_key(rule, points[v]) < seed_key(rule, points[s])) s = v;
  }
  // Down the tree from each seed: a normal flips when it opposes the last normal above it
  // (`ref`: points without a normal pass their parent's on).
  std::vector<Normal> ref(n);
  std::vector<std::uint8_t> done(n, 0);
  std::vector<std::uint32_t> stack;
  for (std::uint32_t r = 0; r < n; ++r) {
    const std::uint32_t s = seed[r];
    if (s == 0xFFFFFFFFu) continue;
    if (seed_flips(rule, points[s], normals[s])) normals[s] = flipped(normals[s]);
    ref[s] = normals[s];
    done[s] = 1;
    stack.assign(1, s);
    while (!stack.empty()) {
      const std::uint32_t u = stack.back();
      stack.pop_back();
      for (std::uint64_t e = offset[u]; e < offset[u + 1]; ++e) {
        const std::uint32_t v = adjacent[e];
        if (done[v] != 0) continue;
        done[v] = 1;
        if (normal_dot(normals[v], ref[u]) < 0.0) normals[v] = flipped(normals[v]);
        ref[v] = is_zero(normals[v]) ? ref[u] : normals[v];
        stack.push_back(v);
      }
    }
  }
}

}  // namespace simlod::detail::cpu
