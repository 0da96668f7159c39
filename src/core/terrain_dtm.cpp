// simlod::terrain::make_dtm: the seeds' Delaunay triangulation (CGAL, exact predicates; the
// object filter of core/terrain_objects.cpp on it) and the raster of its linear interpolation
// at cell centres. Host only, on both backends, so the
// DTM of equal seeds is equal bit for bit. CGAL is used header-only without GMP
// (CGAL_DISABLE_GMP, set by CMake): the library links nothing of it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/stopwatch.hpp"
#include "core/terrain_tin.hpp"
#include "simlod/error.hpp"
#include "simlod/terrain.hpp"

#if SIMLOD_HAS_CGAL
#include <CGAL/Spatial_sort_traits_adapter_2.h>
#include <CGAL/hilbert_sort.h>
#include <CGAL/property_map.h>
#endif

namespace simlod::terrain {

bool dtm_available() { return SIMLOD_HAS_CGAL != 0; }

#if SIMLOD_HAS_CGAL
namespace {

using Kernel = detail::TinKernel;
using Vertex = detail::TinVertex;

/// Passes of the object filter: a roof above a lower roof needs two.
constexpr int kObjectPasses = 3;

/// The seeds as vertices: one per xy (the lowest z), in Hilbert order (deterministic, unlike
/// CGAL's randomised spatial_sort) so that insertion walks stay short.
std::vector<Vertex> seed_vertices(std::span<const Point> points, const Seeds& seeds) {
  std::vector<Vertex> v;
  v.reserve(seeds.indices.size());
  for (std::uint32_t i : seeds.indices) {
    if (i >= points.size()) {
      throw InvalidInput(
          fmt::format("make_dtm: seed index {} is beyond the {} points", i, points.size()));
    }
    v.push_back({{points[i].x, points[i].y}, points[i].z});
  }
  std::sort(v.begin(), v.end(), [](const Vertex& a, const Vertex& b) {
    if (a.xy.x() != b.xy.x()) return a.xy.x() < b.xy.x();
    if (a.xy.y() != b.xy.y()) return a.xy.y() < b.xy.y();
    return a.z < b.z;
  });
  v.erase(std::unique(v.begin(), v.end(),
                      [](const Vertex& a, const Vertex& b) { return a.xy == b.xy; }),
          v.end());
  std::vector<Kernel::Point_2> xy;
  xy.reserve(v.size());
  for (const Vertex& x : v) xy.push_back(x.xy);
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  using Map = CGAL::Pointer_property_map<Kernel::Point_2>::type;
  CGAL::hilbert_sort(order.begin(), order.end(),
                     CGAL::Spatial_sort_traits_adapter_2<Kernel, Map>(CGAL::make_property_map(xy)));
  std::vector<Vertex> sorted;
  sorted.reserve(v.size());
  for (std::size_t i : order) sorted.push_back(v[i]);
  return sorted;
}

/// Writes the linear interpolation of face (a, b, c) at every cell centre inside it.
void raster_face(const detail::Tin::Face_handle& f, const std::vector<Vertex>& v, Raster& r) {
  const auto& a = f->vertex(0);
  const auto& b = f->vertex(1);
  const auto& c = f->vertex(2);
  const double ax = a->point().x(), ay = a->point().y();
  const double bx = b->point().x(), by = b->point().y();
  const double cx = c->point().x(), cy = c->point().y();
  const double d = (by - cy) * (ax - cx) + (cx - bx) * (ay - cy);
  if (d == 0.0) return;
  const double lo_x = std::min({ax, bx, cx}), hi_x = std::max({ax, bx, cx});
  const double lo_y = std::min({ay, by, cy}), hi_y = std::max({ay, by, cy});
  const double col_lo = std::max(0.0, std::ceil((lo_x - r.x0) / r.cell - 0.5));
  const double col_hi = std::min(r.width - 1.0, std::floor((hi_x - r.x0) / r.cell - 0.5));
  const double row_lo = std::max(0.0, std::ceil((r.y0 - hi_y) / r.cell - 0.5));
  const double row_hi = std::min(r.height - 1.0, std::floor((r.y0 - lo_y) / r.cell - 0.5));
  // A centre on an edge shared by two faces must land in one of them despite rounding.
  const double eps = -1e-9;
  for (double row = row_lo; row <= row_hi; ++row) {
    const double py = r.y0 - (row + 0.5) * r.cell;
    for (double col = col_lo; col <= col_hi; ++col) {
      const double px = r.x0 + (col + 0.5) * r.cell;
      const double la = ((by - cy) * (px - cx) + (cx - bx) * (py - cy)) / d;
      const double lb = ((cy - ay) * (px - cx) + (ax - cx) * (py - cy)) / d;
      const double lc = 1.0 - la - lb;
      if (la < eps || lb < eps || lc < eps) continue;
      r.values[static_cast<std::size_t>(row) * r.width + static_cast<std::size_t>(col)] =
          static_cast<float>(la * v[a->info()].z + lb * v[b->info()].z + lc * v[c->info()].z);
    }
  }
}

/// Extends the raster past the triangulation's hull (seeds near the data's edges are rarely on
/// them): ring by ring, a cell without a value takes the mean of its neighbours (of 8) that had
/// one before the ring, for up to `rings` rings. Deterministic: each ring reads only values of
/// earlier rings. Returns the cells filled.
std::uint64_t extend_edges(Raster& r, std::uint32_t rings) {
  const std::int64_t w = r.width, h = r.height;
  const auto at = [&](std::int64_t row, std::int64_t col) -> float& {
    return r.values[static_cast<std::size_t>(row * w + col)];
  };
  std::vector<std::int64_t> front;
  const auto has_value_beside = [&](std::int64_t row, std::int64_t col) {
    for (std::int64_t dr = -1; dr <= 1; ++dr) {
      for (std::int64_t dc = -1; dc <= 1; ++dc) {
        const std::int64_t y = row + dr, x = col + dc;
        if (y >= 0 && x >= 0 && y < h && x < w && !std::isnan(at(y, x))) return true;
      }
    }
    return false;
  };
  for (std::int64_t row = 0; row < h; ++row) {
    for (std::int64_t col = 0; col < w; ++col) {
      if (std::isnan(at(row, col)) && has_value_beside(row, col)) front.push_back(row * w + col);
    }
  }
  std::uint64_t filled = 0;
  std::vector<float> value;
  std::vector<std::uint8_t> queued(r.values.size(), 0);
  for (std::uint32_t ring = 0; ring < rings && !front.empty(); ++ring) {
    value.assign(front.size(), 0.0f);
    for (std::size_t i = 0; i < front.size(); ++i) {
      const std::int64_t row = front[i] / w, col = front[i] % w;
      double sum = 0.0;
      int n = 0;
      for (std::int64_t dr = -1; dr <= 1; ++dr) {
        for (std::int64_t dc = -1; dc <= 1; ++dc) {
          const std::int64_t y = row + dr, x = col + dc;
          if (y < 0 || x < 0 || y >= h || x >= w || std::isnan(at(y, x))) continue;
          sum += at(y, x);
          ++n;
        }
      }
      value[i] = static_cast<float>(sum / n);
    }
    for (std::size_t i = 0; i < front.size(); ++i) r.values[front[i]] = value[i];
    filled += front.size();
    std::vector<std::int64_t> next;
    for (std::int64_t c : front) {
      const std::int64_t row = c / w, col = c % w;
      for (std::int64_t dr = -1; dr <= 1; ++dr) {
        for (std::int64_t dc = -1; dc <= 1; ++dc) {
          const std::int64_t y = row + dr, x = col + dc;
          if (y < 0 || x < 0 || y >= h || x >= w || !std::isnan(at(y, x))) continue;
          if (queued[y * w + x] == 0) {
            queued[y * w + x] = 1;
            next.push_back(y * w + x);
          }
        }
      }
    }
    std::sort(next.begin(), next.end());
    front = std::move(next);
  }
  return filled;
}

}  // namespace

Raster make_dtm(std::span<const Point> points, const Seeds& seeds, const GroundParams& params,
                DtmStats* stats) {
  if (!std::isfinite(params.dtm_cell) || params.dtm_cell <= 0.0) {
    throw InvalidInput(
        fmt::format("make_dtm: dtm_cell is {}; expected a value > 0", params.dtm_cell));
  }
  if (seeds.indices.empty()) throw InvalidInput("make_dtm: no seeds to triangulate");
  const Extent2& e = seeds.extent;
  const double w = std::floor((e.max_x - e.min_x) / params.dtm_cell) + 1.0;
  const double h = std::floor((e.max_y - e.min_y) / params.dtm_cell) + 1.0;
  if (!(w * h <= static_cast<double>(std::uint64_t{1} << 31))) {
    throw InvalidInput(fmt::format(
        "make_dtm: a raster of {} x {} cells of {} is too large (at most 2^31 cells): raise "
        "dtm_cell",
        w, h, params.dtm_cell));
  }
  DtmStats s;
  detail::Stopwatch t;
  const std::vector<Vertex> vertices = seed_vertices(points, seeds);
  std::vector<std::uint8_t> keep(vertices.size(), 1);
  detail::Tin dt;
  detail::triangulate(vertices, keep, dt);
  if (params.object_step > 0.0) {
    // Objects on objects (a roof above a lower roof) show once the upper one is gone.
    const double max_size = params.gap_cell > 0.0 ? params.gap_cell : params.window;
    for (int pass = 0; pass < kObjectPasses; ++pass) {
      const std::uint64_t found = detail::remove_objects(vertices, dt, params.object_step, max_size,
                                                         keep, s.object_vertices);
      if (found == 0) break;
      s.objects += found;
      detail::triangulate(vertices, keep, dt);
    }
  }
  s.vertices = dt.number_of_vertices();
  s.triangles = dt.number_of_faces();
  s.triangulate_ms = t.ms();

  t.restart();
  Raster r;
  r.width = static_cast<std::uint32_t>(w);
  r.height = static_cast<std::uint32_t>(h);
  r.cell = params.dtm_cell;
  r.x0 = e.min_x;
  r.y0 = e.min_y + h * params.dtm_cell;
  r.values.assign(static_cast<std::size_t>(r.width) * r.height,
                  std::numeric_limits<float>::quiet_NaN());
  for (auto f = dt.finite_faces_begin(); f != dt.finite_faces_end(); ++f) {
    raster_face(f, vertices, r);
  }
  const double reach = std::max(params.window, params.gap_cell);
  s.extended = extend_edges(r, static_cast<std::uint32_t>(std::ceil(reach / params.dtm_cell)));
  s.nodata = static_cast<std::uint64_t>(
      std::count_if(r.values.begin(), r.values.end(), [](float v) { return std::isnan(v); }));
  s.raster_ms = t.ms();
  if (stats != nullptr) *stats = s;
  return r;
}

#else

Raster make_dtm(std::span<const Point>, const Seeds&, const GroundParams&, DtmStats*) {
  throw InvalidInput(
      "make_dtm: simlod was built without CGAL (install libcgal-dev and configure again)");
}

#endif

}  // namespace simlod::terrain
