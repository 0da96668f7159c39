// The triangulation of the seeds and the object filter (core/terrain_tin.hpp).
#include "core/terrain_tin.hpp"

#if SIMLOD_HAS_CGAL
#include <algorithm>
#include <cmath>
#include <numeric>

namespace simlod::detail {
namespace {

struct Regions {
  std::vector<std::uint32_t> parent;
  explicit Regions(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  std::uint32_t find(std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the smaller index leads: stable
  }
};

struct Cut {
  std::uint32_t high, low;
};

}  // namespace

void triangulate(const std::vector<TinVertex>& vertices, const std::vector<std::uint8_t>& keep,
                 Tin& tin) {
  tin.clear();
  Tin::Face_handle hint;
  for (std::uint32_t i = 0; i < vertices.size(); ++i) {
    if (!keep.empty() && keep[i] == 0) continue;
    const auto vh = tin.insert(vertices[i].xy, hint);
    vh->info() = i;
    hint = vh->face();
  }
}

std::uint64_t remove_objects(const std::vector<TinVertex>& vertices, const Tin& tin, double step,
                             double max_size, std::vector<std::uint8_t>& keep,
                             std::uint64_t& removed) {
  Regions regions(vertices.size());
  std::vector<Cut> cuts;
  for (auto e = tin.finite_edges_begin(); e != tin.finite_edges_end(); ++e) {
    const std::uint32_t a = e->first->vertex(Tin::cw(e->second))->info();
    const std::uint32_t b = e->first->vertex(Tin::ccw(e->second))->info();
    const TinVertex& va = vertices[a];
    const TinVertex& vb = vertices[b];
    const double dz = static_cast<double>(va.z) - vb.z;
    const double len = std::hypot(va.xy.x() - vb.xy.x(), va.xy.y() - vb.xy.y());
    if (std::abs(dz) > step && std::abs(dz) > len) {
      cuts.push_back(dz > 0.0 ? Cut{a, b} : Cut{b, a});
    } else {
      regions.join(a, b);
    }
  }
  struct Region {
    double lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
    bool raised = true, cut = false;
  };
  std::vector<Region> info(vertices.size());
  for (auto v = tin.finite_vertices_begin(); v != tin.finite_vertices_end(); ++v) {
    Region& r = info[regions.find(v->info())];
    r.lo_x = std::min(r.lo_x, v->point().x());
    r.hi_x = std::max(r.hi_x, v->point().x());
    r.lo_y = std::min(r.lo_y, v->point().y());
    r.hi_y = std::max(r.hi_y, v->point().y());
  }
  for (const Cut& c : cuts) {
    const std::uint32_t high = regions.find(c.high), low = regions.find(c.low);
    if (high == low) continue;  // a step inside one region
    info[high].cut = true;
    info[low].raised = false;
  }
  std::uint64_t objects = 0;
  std::vector<std::uint8_t> object(vertices.size(), 0);
  for (std::uint32_t i = 0; i < vertices.size(); ++i) {
    const Region& r = info[i];
    if (regions.parent[i] != i || !r.cut || !r.raised) continue;
    if (r.hi_x - r.lo_x > max_size || r.hi_y - r.lo_y > max_size) continue;
    object[i] = 1;
    ++objects;
  }
  for (auto v = tin.finite_vertices_begin(); v != tin.finite_vertices_end(); ++v) {
    if (object[regions.find(v->info())] == 0) continue;
    keep[v->info()] = 0;
    ++removed;
  }
  return objects;
}

}  // namespace simlod::detail
#endif
