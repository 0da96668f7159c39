// The seed search's plan (terrain_plan.hpp): window edges, strips, buckets, the gap grid.
#include "core/terrain_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

// Index cells and gap cells beyond this are refused: 12-16 bytes each on the device.
constexpr std::uint64_t kMaxCells = std::uint64_t{1} << 30;
constexpr std::uint64_t kMaxWindowsPerAxis = std::uint64_t{1} << 28;

AxisPlan make_axis(const WindowEdges& e) {
  AxisPlan a;
  a.edges.reserve(e.k != 0 ? e.count + e.k : 2 * std::size_t{e.count});
  for (std::uint64_t i = 0; i < e.count; ++i) a.edges.push_back(e.start(i));
  for (std::uint64_t i = 0; i < e.count; ++i) a.edges.push_back(e.end(i));
  std::sort(a.edges.begin(), a.edges.end());
  a.edges.erase(std::unique(a.edges.begin(), a.edges.end()), a.edges.end());
  a.window_lo.resize(e.count);
  a.window_hi.resize(e.count);
  const auto index_of = [&](double v) {
    return static_cast<std::uint32_t>(std::lower_bound(a.edges.begin(), a.edges.end(), v) -
                                      a.edges.begin());
  };
  for (std::uint64_t i = 0; i < e.count; ++i) {
    a.window_lo[i] = index_of(e.start(i));
    a.window_hi[i] = index_of(e.end(i));
  }
  a.origin = a.edges.front();
  a.step = e.step;
  const auto buckets =
      static_cast<std::uint64_t>(std::floor((a.edges.back() - a.origin) / a.step)) + 2;
  a.bucket.resize(buckets);
  for (std::uint64_t b = 0; b < buckets; ++b) {
    const double v = a.origin + static_cast<double>(b) * a.step;
    const auto s = std::upper_bound(a.edges.begin(), a.edges.end(), v) - a.edges.begin() - 1;
    a.bucket[b] = static_cast<std::uint32_t>(std::clamp<std::ptrdiff_t>(s, 0, a.strips() - 1));
  }
  return a;
}

}  // namespace

void check_ground_params(const terrain::GroundParams& p) {
  const auto bad = [](const char* what, double v, const char* expected) {
    throw InvalidInput(fmt::format("ground: {} is {}; expected {}", what, v, expected));
  };
  if (!std::isfinite(p.window) || p.window <= 0.0) bad("window", p.window, "a value > 0");
  if (!std::isfinite(p.overlap) || p.overlap < 0.0 || p.overlap >= 1.0) {
    bad("overlap", p.overlap, "a value in [0, 1)");
  }
  if (!std::isfinite(p.gap_cell) || p.gap_cell < 0.0) bad("gap_cell", p.gap_cell, ">= 0 (0: off)");
  if (!std::isfinite(p.dtm_cell) || p.dtm_cell <= 0.0) bad("dtm_cell", p.dtm_cell, "a value > 0");
  if (!std::isfinite(p.tolerance) || p.tolerance < 0.0) bad("tolerance", p.tolerance, ">= 0");
  if (!std::isfinite(p.low_outlier) || p.low_outlier < 0.0) {
    bad("low_outlier", p.low_outlier, ">= 0 (0: off)");
  }
  if (p.min_points && *p.min_points == 0) {
    throw InvalidInput("ground: min_points is 0; expected at least 1 (or unset for the default)");
  }
}

WindowEdges window_edges(double lo, double hi, const terrain::GroundParams& p) {
  WindowEdges e;
  e.window = p.window;
  e.step = (1.0 - p.overlap) * p.window;
  e.origin = lo - p.window * p.overlap;
  const double n = std::round((hi - lo + 2.0 * p.window * p.overlap) / e.step) - 1.0;
  if (n < 1.0) {
    throw InvalidInput(fmt::format(
        "ground: the points span {} in one axis, too little for one window of {} stepping by {}",
        hi - lo, p.window, e.step));
  }
  if (n > static_cast<double>(kMaxWindowsPerAxis)) {
    throw InvalidInput(fmt::format(
        "ground: {} windows per axis (extent {} / step {}); at most {}: raise the window", n,
        hi - lo, e.step, kMaxWindowsPerAxis));
  }
  e.count = static_cast<std::uint32_t>(n);
  const double ratio = p.window / e.step;
  const double k = std::round(ratio);
  if (k >= 1.0 && std::abs(ratio - k) <= 1e-9 * ratio) e.k = static_cast<std::uint64_t>(k);
  return e;
}

SeedPlan make_seed_plan(const GroundBox& box, const terrain::GroundParams& p) {
  const double ex = static_cast<double>(box.max_x) - box.min_x;
  const double ey = static_cast<double>(box.max_y) - box.min_y;
  if (box.kept == 0) throw InvalidInput("ground: no points (after skipping noise and withheld)");
  if (!(ex > 0.0) || !(ey > 0.0)) {
    throw InvalidInput(fmt::format(
        "ground: the {} points span no area in xy (x extent {}, y extent {}): all lie on one "
        "line or at one spot",
        box.kept, ex, ey));
  }
  SeedPlan plan;
  plan.density = static_cast<double>(box.kept) / (ex * ey);
  plan.min_points =
      p.min_points
          ? *p.min_points
          : static_cast<std::uint64_t>(std::floor(0.5 * plan.density * p.window * p.window));
  plan.min_points = std::max<std::uint64_t>(plan.min_points, 1);
  if (box.kept < plan.min_points) {
    throw InvalidInput(
        fmt::format("ground: {} points over {} x {}, fewer than one window needs (m = {} for "
                    "window {}){}",
                    box.kept, ex, ey, plan.min_points, p.window,
                    p.min_points ? ""
                                 : ": the points cover less than half a window; choose a "
                                   "smaller window"));
  }
  const WindowEdges wx = window_edges(box.min_x, box.max_x, p);
  const WindowEdges wy = window_edges(box.min_y, box.max_y, p);
  const std::uint64_t strips_x = wx.k != 0 ? wx.count + wx.k - 1 : 2 * std::uint64_t{wx.count};
  const std::uint64_t strips_y = wy.k != 0 ? wy.count + wy.k - 1 : 2 * std::uint64_t{wy.count};
  if (strips_x * strips_y > kMaxCells) {
    throw InvalidInput(fmt::format(
        "ground: {} x {} index cells for windows of {} stepping by {} over {} x {}; at most {}: "
        "raise the window or the overlap's step",
        strips_x, strips_y, p.window, wx.step, ex, ey, kMaxCells));
  }
  plan.x = make_axis(wx);
  plan.y = make_axis(wy);
  plan.low_outlier = p.low_outlier;
  if (p.gap_cell > 0.0) {
    GapPlan& g = plan.gap;
    const double nx = std::floor(ex / p.gap_cell) + 1.0;
    const double ny = std::floor(ey / p.gap_cell) + 1.0;
    if (nx * ny > static_cast<double>(kMaxCells)) {
      throw InvalidInput(
          fmt::format("ground: {} x {} gap cells of {} over {} x {}; at most {}: raise gap_cell",
                      nx, ny, p.gap_cell, ex, ey, kMaxCells));
    }
    g = {true,       static_cast<double>(box.min_x), static_cast<double>(box.min_y),
         p.gap_cell, static_cast<std::uint32_t>(nx), static_cast<std::uint32_t>(ny)};
  }
  return plan;
}

}  // namespace simlod::detail
