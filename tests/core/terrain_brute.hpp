// The Overlap Window Method by brute force, straight from the definitions in
// simlod/terrain.hpp: every window scans every point. The reference the seed search (both
// backends) must equal; and test inputs made to hit window edges and ties in z.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <span>
#include <vector>

#include "core/terrain_plan.hpp"
#include "simlod/point.hpp"
#include "simlod/terrain.hpp"

namespace simlod::test {

/// (z, index) order: the lower z, then the lower index.
inline bool lower(const std::span<const Point> p, std::uint32_t a, std::uint32_t b) {
  return p[a].z < p[b].z || (p[a].z == p[b].z && a < b);
}

inline std::vector<std::uint32_t> brute_seeds(std::span<const Point> pts,
                                              const terrain::GroundParams& params,
                                              std::span<const std::uint8_t> skip = {}) {
  const auto kept = [&](std::size_t i) { return skip.empty() || skip[i] == 0; };
  double lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (!kept(i)) continue;
    lo_x = std::min<double>(lo_x, pts[i].x);
    lo_y = std::min<double>(lo_y, pts[i].y);
    hi_x = std::max<double>(hi_x, pts[i].x);
    hi_y = std::max<double>(hi_y, pts[i].y);
    ++n;
  }
  const double density = static_cast<double>(n) / ((hi_x - lo_x) * (hi_y - lo_y));
  const std::uint64_t m =
      params.min_points
          ? *params.min_points
          : std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::floor(
                                           0.5 * density * params.window * params.window)));
  const detail::WindowEdges ex = detail::window_edges(lo_x, hi_x, params);
  const detail::WindowEdges ey = detail::window_edges(lo_y, hi_y, params);
  std::map<std::uint32_t, int> votes;
  for (std::uint32_t j = 0; j < ey.count; ++j) {
    for (std::uint32_t i = 0; i < ex.count; ++i) {
      std::uint64_t count = 0;
      std::int64_t best = -1;
      for (std::size_t k = 0; k < pts.size(); ++k) {
        if (!kept(k)) continue;
        const double x = pts[k].x, y = pts[k].y;
        if (x < ex.start(i) || x >= ex.end(i) || y < ey.start(j) || y >= ey.end(j)) continue;
        ++count;
        const auto kk = static_cast<std::uint32_t>(k);
        if (best < 0 || lower(pts, kk, static_cast<std::uint32_t>(best))) best = kk;
      }
      if (count >= m && best >= 0) ++votes[static_cast<std::uint32_t>(best)];
    }
  }
  std::vector<std::uint32_t> seeds;
  for (const auto& [index, v] : votes) {
    if (v >= 2) seeds.push_back(index);
  }
  if (params.gap_cell > 0.0) {
    const auto nx = static_cast<std::uint32_t>(std::floor((hi_x - lo_x) / params.gap_cell) + 1);
    const auto ny = static_cast<std::uint32_t>(std::floor((hi_y - lo_y) / params.gap_cell) + 1);
    const auto cell = [&](double v, double lo, std::uint32_t count) {
      const double g = std::floor((v - lo) / params.gap_cell);
      return g <= 0.0 ? 0u : std::min(count - 1, static_cast<std::uint32_t>(g));
    };
    std::vector<std::int64_t> lowest(std::size_t{nx} * ny, -1);
    std::vector<bool> has_seed(lowest.size(), false);
    const auto gap_of = [&](std::size_t k) {
      return std::size_t{cell(pts[k].y, lo_y, ny)} * nx + cell(pts[k].x, lo_x, nx);
    };
    for (std::size_t k = 0; k < pts.size(); ++k) {
      if (!kept(k)) continue;
      std::int64_t& b = lowest[gap_of(k)];
      if (b < 0 || lower(pts, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(b))) {
        b = static_cast<std::int64_t>(k);
      }
    }
    for (std::uint32_t s : seeds) has_seed[gap_of(s)] = true;
    for (std::size_t c = 0; c < lowest.size(); ++c) {
      if (lowest[c] >= 0 && !has_seed[c]) seeds.push_back(static_cast<std::uint32_t>(lowest[c]));
    }
    std::sort(seeds.begin(), seeds.end());
  }
  return seeds;
}

/// Seed lists equal; otherwise says which indices only one of them has.
inline ::testing::AssertionResult same_seeds(const std::vector<std::uint32_t>& got,
                                             const std::vector<std::uint32_t>& want) {
  if (got == want) return ::testing::AssertionSuccess();
  std::vector<std::uint32_t> extra, missing;
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  auto r = ::testing::AssertionFailure();
  r << got.size() << " seeds against " << want.size() << "; extra:";
  for (std::size_t i = 0; i < std::min<std::size_t>(extra.size(), 10); ++i) r << " " << extra[i];
  r << "; missing:";
  for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 10); ++i)
    r << " " << missing[i];
  return r;
}

/// A rough terrain with boxes ("buildings") on it: coordinates quantised to `quantum` in x and
/// y (so many points lie exactly on window edges) and to 0.1 in z (ties), in [0, extent)^2.
inline std::vector<Point> terrain_points(std::size_t n, double extent, double quantum,
                                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, extent);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Point> pts(n);
  for (Point& p : pts) {
    const double x = quantum > 0.0 ? std::floor(u(rng) / quantum) * quantum : u(rng);
    const double y = quantum > 0.0 ? std::floor(u(rng) / quantum) * quantum : u(rng);
    double z = 2.0 * std::sin(x * 0.05) + 1.5 * std::cos(y * 0.07) + 0.2 * unit(rng);
    const bool building = std::fmod(x, 40.0) < 15.0 && std::fmod(y, 50.0) < 12.0;
    if (building) z += 8.0;
    p = {static_cast<float>(x), static_cast<float>(y),
         static_cast<float>(std::round(z * 10.0) / 10.0), 0xFFFFFFFFu};
  }
  return pts;
}

}  // namespace simlod::test
