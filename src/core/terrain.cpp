// simlod::terrain: the facade. Checks, backend choice, and the seed search's phases in order
// over either executor (core/terrain_plan.hpp).
#include "simlod/terrain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/cpu/terrain/terrain.hpp"
#include "core/stopwatch.hpp"
#include "core/terrain_plan.hpp"
#include "core/terrain_spread.hpp"
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

/// Where a call's passes run: the CPU over the host span, or CUDA over one device copy of the
/// points made for all of them.
struct Runner {
  Backend backend = Backend::Cpu;
  std::span<const Point> points;
  std::span<const std::uint8_t> skip;
  detail::cuda::DeviceCloudPtr cloud;  // CUDA only
  double upload_ms = 0.0;

  Runner(Backend requested, std::span<const Point> p, std::span<const std::uint8_t> s)
      : backend(resolve_backend(requested)), points(p), skip(s) {
#if SIMLOD_HAS_CUDA
    if (backend == Backend::Cuda) cloud = detail::cuda::upload_cloud(points, skip, upload_ms);
#endif
  }
  [[nodiscard]] bool cuda() const { return cloud != nullptr; }

  [[nodiscard]] std::unique_ptr<detail::SeedExecutor> seeds() const {
#if SIMLOD_HAS_CUDA
    if (cuda()) return detail::cuda::make_seed_executor(cloud);
#endif
    return detail::cpu::make_seed_executor(points, skip);
  }
  /// Ground flags against `dtm`; `ms` gets the time (device time on CUDA). With `to_host`
  /// false a CUDA runner keeps them on the device for the next ground_sums and returns none.
  [[nodiscard]] std::vector<std::uint8_t> classify(const Raster& dtm, double tolerance, double& ms,
                                                   bool to_host = true) const;
  /// The refinement's sums from `ground`, or (empty, CUDA) from the flags kept on the device.
  void ground_sums(std::span<const std::uint8_t> ground, const Raster& dtm,
                   std::span<std::int64_t> sums, std::span<std::uint32_t> counts, double& ms) const;
};

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

std::vector<std::uint8_t> Runner::classify(const Raster& dtm, double tolerance, double& ms,
                                           bool to_host) const {
#if SIMLOD_HAS_CUDA
  if (cuda()) {
    std::vector<std::uint8_t> out(to_host ? points.size() : 0, 0);
    detail::cuda::classify(*cloud, view_of(dtm), tolerance, out, ms);
    return out;
  }
#else
  (void)to_host;
#endif
  std::vector<std::uint8_t> out(points.size(), 0);
  const detail::Stopwatch watch;
  detail::cpu::classify(points, skip, view_of(dtm), tolerance, out);
  ms = watch.ms();
  return out;
}

void Runner::ground_sums(std::span<const std::uint8_t> ground, const Raster& dtm,
                         std::span<std::int64_t> sums, std::span<std::uint32_t> counts,
                         double& ms) const {
#if SIMLOD_HAS_CUDA
  if (cuda()) {
    detail::cuda::ground_sums(*cloud, ground, view_of(dtm), sums, counts, ms);
    return;
  }
#endif
  const detail::Stopwatch watch;
  detail::cpu::ground_sums(points, ground, view_of(dtm), sums, counts);
  ms = watch.ms();
}

Seeds seeds_with(const Runner& run, const GroundParams& params) {
  const detail::Stopwatch watch;
  Seeds out;
  SeedStats& s = out.stats;
  s.points = run.points.size();
  s.upload_ms = run.upload_ms;
  std::unique_ptr<detail::SeedExecutor> exec = run.seeds();
  const detail::GroundBox box = exec->bounds(s.bounds_ms);
  if (box.first_bad != ~std::uint64_t{0}) {
    const Point& p = run.points[box.first_bad];
    throw InvalidInput(fmt::format("find_seeds: point {} has a non-finite coordinate ({}, {}, {})",
                                   box.first_bad, p.x, p.y, p.z));
  }
  s.skipped = run.points.size() - box.kept;
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

Raster refine_with(const Runner& run, const Raster& dtm, std::span<const std::uint8_t> ground,
                   std::uint64_t* refined, double* ms) {
  std::vector<std::int64_t> sums(dtm.values.size(), 0);
  std::vector<std::uint32_t> counts(dtm.values.size(), 0);
  double sums_ms = 0.0;
  run.ground_sums(ground, dtm, sums, counts, sums_ms);
  Raster out = dtm;
  std::uint64_t n = 0;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    if (counts[c] == 0) continue;
    out.values[c] = static_cast<float>(static_cast<double>(sums[c]) / counts[c] / 1000.0);
    ++n;
  }
  detail::spread_corrections(out, dtm, counts);
  if (refined != nullptr) *refined = n;
  if (ms != nullptr) *ms = sums_ms;
  return out;
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
  if (points.empty()) throw InvalidInput("find_seeds: no points");
  Seeds out = seeds_with(Runner(params.backend, points, skip), params);
  out.stats.total_ms = watch.ms();
  return out;
}

std::vector<std::uint8_t> classify(std::span<const Point> points, const Raster& dtm,
                                   const GroundParams& params, std::span<const std::uint8_t> skip,
                                   double* ms) {
  detail::check_ground_params(params);
  check_inputs(points, skip, "classify");
  check_raster(dtm, "classify");
  double kernel_ms = 0.0;
  std::vector<std::uint8_t> out =
      Runner(params.backend, points, skip).classify(dtm, params.tolerance, kernel_ms);
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
  return refine_with(Runner(params.backend, points, {}), dtm, ground, refined, ms);
}

double dtm_height(const Raster& dtm, double x, double y) {
  return detail::raster_height(view_of(dtm), x, y);
}

GroundResult ground(std::span<const Point> points, const GroundParams& params,
                    std::span<const std::uint8_t> skip) {
  const detail::Stopwatch watch;
  detail::check_ground_params(params);
  check_inputs(points, skip, "ground");
  if (points.empty()) throw InvalidInput("ground: no points");
  const Runner run(params.backend, points, skip);  // one device copy for every pass
  GroundResult r;
  r.seeds = seeds_with(run, params);
  r.seeds.stats.total_ms = watch.ms();
  r.dtm = make_dtm(points, r.seeds, params, &r.dtm_stats);
  // The flags of every pass but the last stay on the device (CUDA) for the next sums.
  r.ground = run.classify(r.dtm, params.tolerance, r.classify_ms, params.refine == 0);
  // Each pass refines the seeds' DTM with the ground points of the pass before: the refined
  // cells let more points near them count as ground.
  const Raster tin = r.dtm;
  for (std::uint32_t pass = 0; pass < params.refine; ++pass) {
    double sums_ms = 0.0, classify_ms = 0.0;
    r.dtm = refine_with(run, tin, r.ground, &r.dtm_stats.refined, &sums_ms);
    r.ground = run.classify(r.dtm, params.tolerance, classify_ms, pass + 1 == params.refine);
    r.refine_ms += sums_ms;
    r.classify_ms += classify_ms;
  }
  r.ground_points = static_cast<std::uint64_t>(std::count(r.ground.begin(), r.ground.end(), 1));
  return r;
}

}  // namespace simlod::terrain
