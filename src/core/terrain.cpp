// simlod::terrain: the facade. Checks, backend choice, and the seed search's phases in order
// over either executor (core/terrain_plan.hpp).
#include "simlod/terrain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/cpu/terrain/terrain.hpp"
#include "core/stopwatch.hpp"
#include "core/terrain_plan.hpp"
#include "kernels/terrain/terrain_entry.hpp"
#include "simlod/error.hpp"

namespace simlod::terrain {
namespace {

void check_inputs(std::span<const Point> points, std::span<const std::uint8_t> skip,
                  const char* what) {
  if (!skip.empty() && skip.size() != points.size()) {
    throw InvalidInput(fmt::format("{}: the skip mask has {} entries for {} points", what,
                                   skip.size(), points.size()));
  }
  if (points.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw InvalidInput(
        fmt::format("{}: {} points; at most 2^32 - 1 in one call", what, points.size()));
  }
}

std::unique_ptr<detail::SeedExecutor> make_executor(Backend backend, std::span<const Point> points,
                                                    std::span<const std::uint8_t> skip) {
#if SIMLOD_HAS_CUDA
  if (backend == Backend::Cuda) return detail::cuda::make_seed_executor(points, skip);
#else
  (void)backend;
#endif
  return detail::cpu::make_seed_executor(points, skip);
}

void check_raster(const Raster& dtm, const char* what) {
  if (dtm.width == 0 || dtm.height == 0 ||
      dtm.values.size() != static_cast<std::size_t>(dtm.width) * dtm.height || !(dtm.cell > 0.0)) {
    throw InvalidInput(fmt::format("{}: the DTM raster is {} x {} cells of {} with {} values", what,
                                   dtm.width, dtm.height, dtm.cell, dtm.values.size()));
  }
}

detail::RasterView view_of(const Raster& dtm) {
  return {dtm.values.data(), dtm.width, dtm.height, dtm.x0, dtm.y0, dtm.cell};
}

}  // namespace

std::vector<std::uint8_t> skip_mask(const PointAttributes& attributes) {
  const auto& cls = attributes.classification;
  const auto& flags = attributes.classification_flags;
  const std::size_t n = std::max(cls.size(), flags.size());
  if (n == 0) return {};
  std::vector<std::uint8_t> skip(n, 0);
  for (std::size_t i = 0; i < cls.size(); ++i) skip[i] = cls[i] == 7 || cls[i] == 18;
  for (std::size_t i = 0; i < flags.size(); ++i) skip[i] |= (flags[i] & 4) != 0;  // withheld
  return skip;
}

Seeds find_seeds(std::span<const Point> points, const GroundParams& params,
                 std::span<const std::uint8_t> skip) {
  const detail::Stopwatch watch;
  detail::check_ground_params(params);
  check_inputs(points, skip, "find_seeds");
  const Backend backend = resolve_backend(params.backend);
  Seeds out;
  SeedStats& s = out.stats;
  s.points = points.size();
  if (points.empty()) throw InvalidInput("find_seeds: no points");

  std::unique_ptr<detail::SeedExecutor> exec = make_executor(backend, points, skip);
  s.upload_ms = exec->upload_ms();
  const detail::GroundBox box = exec->bounds(s.bounds_ms);
  if (box.first_bad != ~std::uint64_t{0}) {
    const Point& p = points[box.first_bad];
    throw InvalidInput(fmt::format("find_seeds: point {} has a non-finite coordinate ({}, {}, {})",
                                   box.first_bad, p.x, p.y, p.z));
  }
  s.skipped = points.size() - box.kept;
  const detail::SeedPlan plan = detail::make_seed_plan(box, params);
  out.extent = {box.min_x, box.min_y, box.max_x, box.max_y};
  s.windows_x = plan.x.windows();
  s.windows_y = plan.y.windows();
  s.cells_x = plan.x.strips();
  s.cells_y = plan.y.strips();
  s.min_points = plan.min_points;
  s.density = plan.density;

  exec->index(plan, s.index_ms);
  if (plan.low_outlier > 0.0) {
    double ms = 0.0;
    s.low_outliers = exec->outliers(plan, ms);
    s.index_ms += ms;
  }
  detail::WindowResult w = exec->windows(plan, s.windows_ms);
  s.windows_used = w.windows_used;
  s.local_minima = w.local_minima;
  s.window_seeds = w.seeds.size();
  std::sort(w.seeds.begin(), w.seeds.end());
  std::vector<std::uint32_t> gap;
  if (plan.gap.enabled) gap = exec->gap(plan, w.seeds, s.gap_ms);
  s.gap_seeds = gap.size();
  out.indices.resize(w.seeds.size() + gap.size());
  std::merge(w.seeds.begin(), w.seeds.end(), gap.begin(), gap.end(), out.indices.begin());
  s.total_ms = watch.ms();
  return out;
}

std::vector<std::uint8_t> classify(std::span<const Point> points, const Raster& dtm,
                                   const GroundParams& params, std::span<const std::uint8_t> skip,
                                   double* ms) {
  detail::check_ground_params(params);
  check_inputs(points, skip, "classify");
  if (dtm.width == 0 || dtm.height == 0 ||
      dtm.values.size() != static_cast<std::size_t>(dtm.width) * dtm.height) {
    throw InvalidInput(fmt::format("classify: the DTM raster is {} x {} with {} values", dtm.width,
                                   dtm.height, dtm.values.size()));
  }
  const Backend backend = resolve_backend(params.backend);
  std::vector<std::uint8_t> out(points.size(), 0);
  const detail::Stopwatch watch;
  double kernel_ms = 0.0;
#if SIMLOD_HAS_CUDA
  if (backend == Backend::Cuda) {
    double upload_ms = 0.0;
    detail::cuda::classify(points, skip, view_of(dtm), params.tolerance, out, kernel_ms, upload_ms);
    if (ms != nullptr) *ms = kernel_ms;
    return out;
  }
#else
  (void)backend;
#endif
  detail::cpu::classify(points, skip, view_of(dtm), params.tolerance, out);
  kernel_ms = watch.ms();
  if (ms != nullptr) *ms = kernel_ms;
  return out;
}

Raster refine_dtm(std::span<const Point> points, const Raster& dtm,
                  std::span<const std::uint8_t> ground, const GroundParams& params,
                  std::uint64_t* refined, double* ms) {
  check_inputs(points, ground, "refine_dtm");
  check_raster(dtm, "refine_dtm");
  if (ground.size() != points.size()) {
    throw InvalidInput(
        fmt::format("refine_dtm: {} ground flags for {} points", ground.size(), points.size()));
  }
  const Backend backend = resolve_backend(params.backend);
  std::vector<std::int64_t> sums(dtm.values.size(), 0);
  std::vector<std::uint32_t> counts(dtm.values.size(), 0);
  const detail::Stopwatch watch;
  double sums_ms = 0.0;
#if SIMLOD_HAS_CUDA
  if (backend == Backend::Cuda) {
    detail::cuda::ground_sums(points, ground, view_of(dtm), sums, counts, sums_ms);
  }
#endif
  if (backend != Backend::Cuda) {
    detail::cpu::ground_sums(points, ground, view_of(dtm), sums, counts);
    sums_ms = watch.ms();
  }
  Raster out = dtm;
  std::uint64_t n = 0;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    if (counts[c] == 0) continue;
    out.values[c] = static_cast<float>(static_cast<double>(sums[c]) / counts[c] / 1000.0);
    ++n;
  }
  if (refined != nullptr) *refined = n;
  if (ms != nullptr) *ms = sums_ms;
  return out;
}

double dtm_height(const Raster& dtm, double x, double y) {
  return detail::raster_height(view_of(dtm), x, y);
}

GroundResult ground(std::span<const Point> points, const GroundParams& params,
                    std::span<const std::uint8_t> skip) {
  GroundResult r;
  r.seeds = find_seeds(points, params, skip);
  r.dtm = make_dtm(points, r.seeds, params, &r.dtm_stats);
  r.ground = classify(points, r.dtm, params, skip, &r.classify_ms);
  // Each pass refines the seeds' DTM with the ground points of the pass before: the refined
  // cells let more points near them count as ground.
  const Raster tin = r.dtm;
  for (std::uint32_t pass = 0; pass < params.refine; ++pass) {
    double sums_ms = 0.0, classify_ms = 0.0;
    r.dtm = refine_dtm(points, tin, r.ground, params, &r.dtm_stats.refined, &sums_ms);
    r.ground = classify(points, r.dtm, params, skip, &classify_ms);
    r.refine_ms += sums_ms;
    r.classify_ms += classify_ms;
  }
  r.ground_points = static_cast<std::uint64_t>(std::count(r.ground.begin(), r.ground.end(), 1));
  return r;
}

}  // namespace simlod::terrain
