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
#include "simlod/error.hpp"

namespace simlod {
namespace {

/// The unit eigenvector of the smallest eigenvalue of the symmetric 3 x 3 matrix `m` (cyclic
/// Jacobi rotations), or 0 when the two smallest eigenvalues are both ~0 (no plane).
std::array<double, 3> smallest_eigenvector(double m[3][3]) {
  double v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int sweep = 0; sweep < 32; ++sweep) {
    const double off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
    if (off < 1e-30) break;
    for (int p = 0; p < 2; ++p) {
      for (int q = p + 1; q < 3; ++q) {
        if (std::abs(m[p][q]) < 1e-300) continue;
        const double theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1.0 / std::sqrt(t * t + 1), s = t * c;
        for (int r = 0; r < 3; ++r) {  // m = J^T m J
          const double mrp = m[r][p], mrq = m[r][q];
          m[r][p] = c * mrp - s * mrq;
          m[r][q] = s * mrp + c * mrq;
        }
        for (int r = 0; r < 3; ++r) {
          const double mpr = m[p][r], mqr = m[q][r];
          m[p][r] = c * mpr - s * mqr;
          m[q][r] = s * mpr + c * mqr;
        }
        for (int r = 0; r < 3; ++r) {
          const double vrp = v[r][p], vrq = v[r][q];
          v[r][p] = c * vrp - s * vrq;
          v[r][q] = s * vrp + c * vrq;
        }
      }
    }
  }
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int a, int b) { return m[a][a] < m[b][b]; });
  const double largest = std::abs(m[order[2]][order[2]]);
  if (largest == 0.0 || std::abs(m[order[1]][order[1]]) <= 1e-12 * largest) return {0, 0, 0};
  const int e = order[0];
  return {v[0][e], v[1][e], v[2][e]};
}

std::array<double, 3> pca_normal(std::span<const Point> points,
                                 std::span<const std::uint32_t> ids) {
  double mean[3] = {0, 0, 0};
  for (const std::uint32_t j : ids) {
    mean[0] += points[j].x;
    mean[1] += points[j].y;
    mean[2] += points[j].z;
  }
  for (double& m : mean) m /= static_cast<double>(ids.size());
  double cov[3][3] = {};
  for (const std::uint32_t j : ids) {
    const double d[3] = {points[j].x - mean[0], points[j].y - mean[1], points[j].z - mean[2]};
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) cov[a][b] += d[a] * d[b];
    }
  }
  return smallest_eigenvector(cov);
}

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
  const std::vector<std::uint32_t> knn = detail::cpu::nearest_neighbours(points, k);
  std::vector<Normal> normals(points.size());
  detail::ThreadPool::shared().parallel_for(
      points.size(), 256, [&](unsigned, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          const auto n = pca_normal(points, std::span(knn).subspan(i * k, k));
          normals[i] = {static_cast<float>(n[0]), static_cast<float>(n[1]),
                        static_cast<float>(n[2])};
        }
      });
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
