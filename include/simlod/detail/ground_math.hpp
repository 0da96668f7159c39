// Per-point and per-cell arithmetic of the ground classification (simlod/terrain.hpp), shared
// by the CPU executors and the CUDA kernels so that both make the same decisions bit for bit.
// Compile device code with -fmad=false and host code with -ffp-contract=off: fused
// multiply-adds would round differently.
#pragma once

#include <cmath>
#include <cstdint>

#include "simlod/detail/float_bits.hpp"
#include "simlod/detail/hd.hpp"

namespace simlod::detail {

/// No point: larger than every key.
inline constexpr std::uint64_t kNoKey = ~std::uint64_t{0};

/// Orders floats as unsigned integers; -0 and +0 are one value (they compare equal, so their
/// points tie in z). NaN never reaches here.
SIMLOD_HD std::uint32_t orderable_float(float f) {
  std::uint32_t bits = bits_from_float(f);
  if (bits == 0x80000000u) bits = 0;
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

SIMLOD_HD float float_from_orderable(std::uint32_t u) {
  return float_from_bits((u & 0x80000000u) != 0 ? u & 0x7FFFFFFFu : ~u);
}

/// The key whose minimum is the lowest point: z first, then the lower index (ties).
SIMLOD_HD std::uint64_t ground_key(float z, std::uint32_t index) {
  return static_cast<std::uint64_t>(orderable_float(z)) << 32 | index;
}
SIMLOD_HD std::uint32_t key_index(std::uint64_t key) { return static_cast<std::uint32_t>(key); }
SIMLOD_HD float key_z(std::uint64_t key) {
  return float_from_orderable(static_cast<std::uint32_t>(key >> 32));
}

/// One axis of the window grid. Its index cells ("strips") lie between consecutive distinct
/// window edges (starts and ends), so every window is a whole range of strips and every strip
/// lies wholly inside or outside each window. `bucket[b]` is a strip near origin + b step, the
/// start of a short exact search.
struct GroundAxis {
  const double* edges = nullptr;  ///< strips + 1 ascending edges
  const std::uint32_t* bucket = nullptr;
  std::uint32_t strips = 0;
  std::uint32_t buckets = 0;
  double origin = 0.0;  ///< edges[0]
  double step = 1.0;    ///< o
};

/// The strip holding v (edges[s] <= v < edges[s + 1]), or a.strips when v lies outside every
/// window. Exact: the guess only picks where the search starts.
SIMLOD_HD std::uint32_t strip_of(const GroundAxis& a, double v) {
  if (!(v >= a.edges[0]) || !(v < a.edges[a.strips])) return a.strips;
  double g = (v - a.origin) / a.step;
  g = g < 0.0 ? 0.0 : g;
  std::uint32_t b =
      g >= static_cast<double>(a.buckets) ? a.buckets - 1 : static_cast<std::uint32_t>(g);
  std::uint32_t s = a.bucket[b];
  while (s > 0 && v < a.edges[s]) --s;
  while (v >= a.edges[s + 1]) ++s;
  return s;
}

/// The index cell (row-major over the strips) of (x, y), or ax.strips * ay.strips when it lies
/// outside every window.
SIMLOD_HD std::uint64_t index_cell(const GroundAxis& ax, const GroundAxis& ay, double x, double y) {
  const std::uint32_t sx = strip_of(ax, x);
  const std::uint32_t sy = strip_of(ay, y);
  if (sx == ax.strips || sy == ay.strips) return static_cast<std::uint64_t>(ax.strips) * ay.strips;
  return static_cast<std::uint64_t>(sy) * ax.strips + sx;
}

/// What one window holds: its point count and its lowest candidate (kNoKey: none) and that
/// candidate's cell. Cells flagged in `outlier` (may be null) count but offer no candidate.
struct WindowPick {
  std::uint64_t total = 0;
  std::uint64_t best = kNoKey;
  std::uint64_t cell = 0;
};
SIMLOD_HD WindowPick pick_window(const std::uint32_t* count, const std::uint64_t* lowest,
                                 const std::uint8_t* outlier, std::uint32_t strips_x,
                                 std::uint32_t x0, std::uint32_t x1, std::uint32_t y0,
                                 std::uint32_t y1) {
  WindowPick w;
  for (std::uint32_t y = y0; y < y1; ++y) {
    for (std::uint32_t x = x0; x < x1; ++x) {
      const std::uint64_t c = static_cast<std::uint64_t>(y) * strips_x + x;
      w.total += count[c];
      if (lowest[c] < w.best && (outlier == nullptr || outlier[c] == 0)) {
        w.best = lowest[c];
        w.cell = c;
      }
    }
  }
  return w;
}

/// True when the lowest point of cell (x, y) lies more than `depth` below the lowest point of
/// every neighbouring cell (of 8) that has points, and at least one has.
SIMLOD_HD bool low_outlier_cell(const std::uint64_t* lowest, std::uint32_t x, std::uint32_t y,
                                std::uint32_t strips_x, std::uint32_t strips_y, double depth) {
  const std::uint64_t own = lowest[static_cast<std::uint64_t>(y) * strips_x + x];
  if (own == kNoKey) return false;
  const double z = key_z(own);
  bool any = false;
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      const std::int64_t ny = static_cast<std::int64_t>(y) + dy;
      const std::int64_t nx = static_cast<std::int64_t>(x) + dx;
      if ((dx == 0 && dy == 0) || ny < 0 || nx < 0 || ny >= strips_y || nx >= strips_x) continue;
      const std::uint64_t n =
          lowest[static_cast<std::uint64_t>(ny) * strips_x + static_cast<std::uint64_t>(nx)];
      if (n == kNoKey) continue;
      if (!(z < static_cast<double>(key_z(n)) - depth)) return false;
      any = true;
    }
  }
  return any;
}

/// Cell of the gap-filling grid along one axis: floor((v - lo) / B), clamped to [0, n).
SIMLOD_HD std::uint32_t gap_cell_of(double v, double lo, double cell, std::uint32_t n) {
  const double g = std::floor((v - lo) / cell);
  if (!(g > 0.0)) return 0;
  return g >= static_cast<double>(n) ? n - 1 : static_cast<std::uint32_t>(g);
}

/// A DTM raster as simlod::terrain::Raster lays it out (row 0 north).
struct RasterView {
  const float* values = nullptr;
  std::uint32_t width = 0, height = 0;
  double x0 = 0.0, y0 = 0.0, cell = 1.0;
};

/// Bilinear height between the four nearest cell centres that have a value (weights
/// renormalised over those); NaN where none has weight.
SIMLOD_HD double raster_height(const RasterView& r, double x, double y) {
  const double u = (x - r.x0) / r.cell - 0.5;
  const double v = (r.y0 - y) / r.cell - 0.5;
  const double cu = std::floor(u);
  const double cv = std::floor(v);
  const double fu = u - cu;
  const double fv = v - cv;
  double sum = 0.0;
  double weight = 0.0;
  for (int dr = 0; dr < 2; ++dr) {
    for (int dc = 0; dc < 2; ++dc) {
      const double row = cv + dr;
      const double col = cu + dc;
      if (row < 0.0 || col < 0.0 || row >= r.height || col >= r.width) continue;
      const float h =
          r.values[static_cast<std::uint64_t>(row) * r.width + static_cast<std::uint64_t>(col)];
      if (h != h) continue;  // NaN: no data
      const double w = (dc != 0 ? fu : 1.0 - fu) * (dr != 0 ? fv : 1.0 - fv);
      sum += w * static_cast<double>(h);
      weight += w;
    }
  }
  return weight > 0.0 ? sum / weight : NAN;
}

/// The raster cell holding (x, y) (row-major), or width * height outside the raster.
SIMLOD_HD std::uint64_t raster_cell(const RasterView& r, double x, double y) {
  const double col = std::floor((x - r.x0) / r.cell);
  const double row = std::floor((r.y0 - y) / r.cell);
  if (!(col >= 0.0) || !(row >= 0.0) || col >= r.width || row >= r.height) {
    return static_cast<std::uint64_t>(r.width) * r.height;
  }
  return static_cast<std::uint64_t>(row) * r.width + static_cast<std::uint64_t>(col);
}

/// A height in thousandths of a unit, for sums that do not depend on the order of addition.
SIMLOD_HD std::int64_t height_milli(float z) {
  return static_cast<std::int64_t>(std::llround(static_cast<double>(z) * 1000.0));
}

/// The ground rule: |z - DTM| <= tolerance (false where the DTM has no value).
SIMLOD_HD bool is_ground(const RasterView& r, float x, float y, float z, double tolerance) {
  const double h = raster_height(r, x, y);
  if (h != h) return false;
  const double d = static_cast<double>(z) - h;
  return d <= tolerance && -d <= tolerance;
}

}  // namespace simlod::detail
