// estimate_normals' propagated orientation against a reference written from its documented rule
// (simlod/normals.hpp) in another way: Prim's algorithm over a dense table of the graph's edges
// (the executors use Kruskal's on the CPU, Boruvka's on CUDA), each part from its seed, then
// the normals oriented in the order Prim adds them. On the normals' test clouds
// (visibility_scenes.hpp: many parts, zero normals, equal weights), with and without a
// viewpoint.
#include "simlod/detail/normal_orientation.hpp"

#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "core/cpu/visibility/knn.hpp"
#include "core/visibility_scenes.hpp"
#include "simlod/detail/pca_normal.hpp"
#include "simlod/normals.hpp"

namespace simlod::test {
namespace {

using Key = std::pair<std::uint64_t, std::uint64_t>;  // weight bits, tie-breaking entry

/// The documented orientation, by Prim's algorithm on the whole graph.
std::vector<Normal> reference(const std::vector<Point>& points, std::uint32_t k,
                              const std::optional<std::array<double, 3>>& viewpoint) {
  const std::size_t n = points.size();
  const auto knn = detail::cpu::nearest_neighbours(points, k);
  std::vector<Normal> normals(n);
  for (std::size_t i = 0; i < n; ++i) {
    const detail::Dir3 d = detail::pca_normal(points.data(), knn.data() + i * k, k);
    normals[i] = {static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z)};
  }
  // Each edge's entry: the lower point's when it lists the other, else the higher point's.
  std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> entry;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint32_t m = 0; m < k; ++m) {
      const std::size_t j = knn[i * k + m];
      if (j == i) continue;
      const auto edge = std::minmax(i, j);
      const auto found = entry.find(edge);
      if (found == entry.end() || i < j) entry[edge] = i * k + m;
    }
  }
  std::vector<std::vector<std::pair<std::size_t, Key>>> adjacent(n);
  for (const auto& [edge, slot] : entry) {
    const Key key{detail::edge_weight_key(normals[edge.first], normals[edge.second]), slot};
    adjacent[edge.first].push_back({edge.second, key});
    adjacent[edge.second].push_back({edge.first, key});
  }
  auto seed_better = [&](std::size_t a, std::size_t b) {
    const Point &p = points[a], &q = points[b];
    if (viewpoint) {
      const auto& v = *viewpoint;
      const double da =
          (p.x - v[0]) * (p.x - v[0]) + (p.y - v[1]) * (p.y - v[1]) + (p.z - v[2]) * (p.z - v[2]);
      const double db =
          (q.x - v[0]) * (q.x - v[0]) + (q.y - v[1]) * (q.y - v[1]) + (q.z - v[2]) * (q.z - v[2]);
      return da != db ? da < db : a < b;
    }
    return p.z != q.z ? p.z > q.z : a < b;
  };
  std::vector<int> part(n, -1);
  std::vector<std::uint8_t> in_tree(n, 0);
  std::vector<Normal> ref(n);
  for (std::size_t start = 0; start < n; ++start) {
    if (part[start] >= 0) continue;
    std::vector<std::size_t> members{start};  // the part, by a search of the graph
    part[start] = static_cast<int>(start);
    for (std::size_t at = 0; at < members.size(); ++at) {
      for (const auto& [w, key] : adjacent[members[at]]) {
        if (part[w] < 0) {
          part[w] = static_cast<int>(start);
          members.push_back(w);
        }
      }
    }
    std::size_t seed = members[0];
    for (const std::size_t v : members) seed = seed_better(v, seed) ? v : seed;
    Normal& ns = normals[seed];
    const bool away = viewpoint ? ns.x * ((*viewpoint)[0] - points[seed].x) +
                                          ns.y * ((*viewpoint)[1] - points[seed].y) +
                                          ns.z * ((*viewpoint)[2] - points[seed].z) <
                                      0
                                : ns.z < 0;
    if (away) ns = {-ns.x, -ns.y, -ns.z};
    ref[seed] = ns;
    in_tree[seed] = 1;
    // Prim: the cheapest edge into the tree, by (weight, entry), over a dense table.
    std::vector<Key> best(n, Key{~0ull, ~0ull});
    std::vector<std::size_t> from(n, n);
    auto relax = [&](std::size_t u) {
      for (const auto& [w, key] : adjacent[u]) {
        if (in_tree[w] == 0 && key < best[w]) {
          best[w] = key;
          from[w] = u;
        }
      }
    };
    relax(seed);
    for (std::size_t added = 1; added < members.size(); ++added) {
      std::size_t next = n;
      for (const std::size_t v : members) {
        if (in_tree[v] == 0 && from[v] < n && (next == n || best[v] < best[next])) next = v;
      }
      Normal& nv = normals[next];
      const Normal& r = ref[from[next]];
      if (double{nv.x} * r.x + double{nv.y} * r.y + double{nv.z} * r.z < 0)
        nv = {-nv.x, -nv.y, -nv.z};
      ref[next] = (nv.x == 0 && nv.y == 0 && nv.z == 0) ? r : nv;
      in_tree[next] = 1;
      relax(next);
    }
  }
  return normals;
}

TEST(NormalOrientation, PropagationFollowsTheMinimumSpanningTree) {
  const auto all = normal_clouds(5, 500, 0.02f, 4, 1.0 / 12);
  for (std::size_t s = 0; s < all.size(); ++s) {
    for (const std::uint32_t k : {3u, 8u, 16u}) {
      for (const bool with_viewpoint : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << "cloud " << s << ", k " << k << ", viewpoint " << with_viewpoint);
        NormalParams params;
        params.neighbours = k;
        params.backend = Backend::Cpu;
        if (with_viewpoint) params.viewpoint = std::array<double, 3>{0.3, -0.2, 4.0};
        const auto got = estimate_normals(all[s], params);
        const auto want = reference(all[s], k, params.viewpoint);
        for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "point " << i;
      }
    }
  }
}

}  // namespace
}  // namespace simlod::test
