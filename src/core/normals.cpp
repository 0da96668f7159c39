// estimate_normals: PCA of each point's k nearest neighbours (core/cpu/visibility/knn.hpp),
// then the orientation (simlod/normals.hpp).
#include "simlod/normals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

#include "core/cpu/visibility/knn.hpp"
#include "core/thread_pool.hpp"
#include "kernels/visibility/visibility_entry.hpp"
#include "simlod/detail/pca_normal.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace {

double dot3(const Normal& a, const Normal& b) {
  return double{a.x} * b.x + double{a.y} * b.y + double{a.z} * b.z;
}

void flip(Normal& n) { n = {-n.x, -n.y, -n.z}; }

/// Hoppe et al.'s propagation over the symmetric neighbour graph (see NormalOrientation).
void propagate(std::span<const Point> points, const std::vector<std::uint32_t>& knn,
               std::uint32_t k, const std::optional<std::array<double, 3>>& viewpoint,
               std::vector<Normal>& normals) {
  const std::size_t n = points.size();
  // Symmetric adjacency: each directed neighbour edge both ways.
  std::vector<std::uint64_t> offset(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint32_t m = 0; m < k; ++m) {
      const std::uint32_t j = knn[i * k + m];
      if (j == i) continue;
      ++offset[i + 1];
      ++offset[j + 1];
    }
  }
  for (std::size_t i = 0; i < n; ++i) offset[i + 1] += offset[i];
  std::vector<std::uint32_t> adjacent(offset[n]);
  std::vector<std::uint64_t> fill(offset.begin(), offset.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint32_t m = 0; m < k; ++m) {
      const std::uint32_t j = knn[i * k + m];
      if (j == i) continue;
      adjacent[fill[i]++] = j;
      adjacent[fill[j]++] = static_cast<std::uint32_t>(i);
    }
  }
  // Connected parts and their seeds.
  std::vector<std::uint32_t> part(n, 0xFFFFFFFFu), seeds;
  for (std::uint32_t s = 0; s < n; ++s) {
    if (part[s] != 0xFFFFFFFFu) continue;
    const auto id = static_cast<std::uint32_t>(seeds.size());
    std::uint32_t best = s;
    std::vector<std::uint32_t> stack{s};
    part[s] = id;
    while (!stack.empty()) {
      const std::uint32_t u = stack.back();
      stack.pop_back();
      auto better = [&](std::uint32_t a, std::uint32_t b) {  // a preferred over b as the seed
        if (viewpoint) {
          const auto& v = *viewpoint;
          const double da = std::hypot(points[a].x - v[0], points[a].y - v[1], points[a].z - v[2]);
          const double db = std::hypot(points[b].x - v[0], points[b].y - v[1], points[b].z - v[2]);
          return da != db ? da < db : a < b;
        }
        return points[a].z != points[b].z ? points[a].z > points[b].z : a < b;
      };
      if (better(u, best)) best = u;
      for (std::uint64_t e = offset[u]; e < offset[u + 1]; ++e) {
        if (part[adjacent[e]] == 0xFFFFFFFFu) {
          part[adjacent[e]] = id;
          stack.push_back(adjacent[e]);
        }
      }
    }
    seeds.push_back(best);
  }
  // Prim from each seed: cheapest edge first, weight 1 - |n_u . n_v|; `ref` carries the last
  // oriented normal down the tree past points without one.
  std::vector<Normal> ref(n);
  std::vector<std::uint8_t> done(n, 0);
  using Edge = std::tuple<double, std::uint32_t, std::uint32_t>;  // weight, to, from
  std::priority_queue<Edge, std::vector<Edge>, std::greater<>> queue;
  for (const std::uint32_t s : seeds) {
    Normal& ns = normals[s];
    if (viewpoint) {
      const auto& v = *viewpoint;
      const double toward =
          ns.x * (v[0] - points[s].x) + ns.y * (v[1] - points[s].y) + ns.z * (v[2] - points[s].z);
      if (toward < 0) flip(ns);
    } else if (ns.z < 0) {
      flip(ns);
    }
    ref[s] = ns;
    done[s] = 1;
    for (std::uint64_t e = offset[s]; e < offset[s + 1]; ++e) {
      queue.emplace(1.0 - std::abs(dot3(ns, normals[adjacent[e]])), adjacent[e], s);
    }
    while (!queue.empty()) {
      const auto [w, v, u] = queue.top();
      queue.pop();
      if (done[v] != 0) continue;
      done[v] = 1;
      if (dot3(normals[v], ref[u]) < 0) flip(normals[v]);
      const bool has = normals[v].x != 0 || normals[v].y != 0 || normals[v].z != 0;
      ref[v] = has ? normals[v] : ref[u];
      for (std::uint64_t e = offset[v]; e < offset[v + 1]; ++e) {
        if (done[adjacent[e]] == 0) {
          queue.emplace(1.0 - std::abs(dot3(normals[v], normals[adjacent[e]])), adjacent[e], v);
        }
      }
    }
  }
}

}  // namespace

std::vector<Normal> estimate_normals(std::span<const Point> points, const NormalParams& params) {
  const std::uint32_t k = params.neighbours;
  if (k < 3 || k > 128) {
    throw InvalidInput(fmt::format("estimate_normals: {} neighbours; it takes 3 to 128", k));
  }
  if (points.size() < k) {
    throw InvalidInput(
        fmt::format("estimate_normals: {} points for {} neighbours each", points.size(), k));
  }
  if (points.size() >= 0xFFFFFFFFu) {
    throw InvalidInput(fmt::format("estimate_normals: {} points; at most 2^32 - 2", points.size()));
  }
  if (params.orientation == NormalOrientation::Viewpoint && !params.viewpoint) {
    throw InvalidInput("estimate_normals: Viewpoint orientation needs a viewpoint");
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      throw InvalidInput(fmt::format(
          "estimate_normals: point {} has a non-finite coordinate ({}, {}, {})", i, p.x, p.y, p.z));
    }
  }
  std::vector<std::uint32_t> knn;
  std::vector<Normal> normals;
  const bool on_device = resolve_backend(params.backend) == Backend::Cuda;
#if SIMLOD_HAS_CUDA
  if (on_device) normals = detail::cuda::pca_normals(points, k, knn);
#endif
  if (!on_device) {
    knn = detail::cpu::nearest_neighbours(points, k);
    normals.resize(points.size());
    detail::ThreadPool::shared().parallel_for(
        points.size(), 256, [&](unsigned, std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) {
            const detail::Dir3 n = detail::pca_normal(points.data(), knn.data() + i * k, k);
            normals[i] = {static_cast<float>(n.x), static_cast<float>(n.y),
                          static_cast<float>(n.z)};
          }
        });
  }
  if (params.orientation == NormalOrientation::Viewpoint) {
    const auto& v = *params.viewpoint;
    for (std::size_t i = 0; i < points.size(); ++i) {
      Normal& n = normals[i];
      if (n.x * (v[0] - points[i].x) + n.y * (v[1] - points[i].y) + n.z * (v[2] - points[i].z) <
          0) {
        flip(n);
      }
    }
  } else {
    propagate(points, knn, k, params.viewpoint, normals);
  }
  return normals;
}

}  // namespace simlod
