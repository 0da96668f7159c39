// Ground classification (simlod::terrain): the seed search of the Overlap Window Method and the
// classifier, on synthetic stand-ins for the data sets of Munoz et al. (2024, Table 1: the same
// point count, xy extent and so density; the synthetic scene stretched to the extent) and on
// 10^8 points of the synthetic scene. CUDA phases are device times from CUDA events with the
// points already copied (the copy is reported apart, as upload_ms), CPU phases wall clock.
//
//   SIMLOD_BENCH_POINTS       points of the 10^8 run (default 100,000,000)
//   SIMLOD_BENCH_CPU_POINTS   points of the CPU run of the synthetic scene (default 20,000,000)
//   SIMLOD_BENCH_STANDINS=0   leaves the four stand-ins out; below 10^8 SIMLOD_BENCH_POINTS
//                             they keep their extents with points scaled down alike (smoke runs)
//
// Counters: index_ms, windows_ms (windows and seeds), gap_ms, bounds_ms, upload_ms,
// seeds_MPps = points / (index + windows + gap) (the paper's rate is points / (tree + windows),
// without gap filling), seeds; for the scene also terrain::ground() once (ground_ms, wall
// clock: one copy of the points, seeds, DTM, classification and refinement) with dtm_ms
// (triangulation + raster, host), classify_ms and refine_ms (all passes), ground_upload_ms.
// Median of 5 after a warm-up run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_env.hpp"
#include "simlod/backend.hpp"
#include "simlod/synth.hpp"
#include "simlod/terrain.hpp"

namespace {

using simlod::Point;
using simlod::bench::env_points;

constexpr int kRepetitions = 5;

struct StandIn {
  const char* name;
  std::uint64_t points;
  double dx, dy;
};
// Munoz et al. 2024, Table 1.
constexpr StandIn kStandIns[] = {{"alcoy", 20'380'212, 1413.08, 1904.30},
                                 {"arzua", 40'706'503, 999.99, 999.99},
                                 {"brion_forestal", 42'384'876, 700.55, 505.45},
                                 {"brion_urban", 48'024'480, 730.54, 538.35}};

/// The synthetic scene of n points, stretched to dx x dy (0: kept as generated, 1000 m).
const std::vector<Point>& cloud(std::uint64_t n, double dx, double dy) {
  static std::vector<Point> points;
  static std::uint64_t held_n = 0;
  static double held_dx = -1.0, held_dy = -1.0;
  if (held_n == n && held_dx == dx && held_dy == dy) return points;
  simlod::synth::Generator gen({.points = n, .seed = 1});
  points.assign(n, Point{});
  std::size_t got = 0;
  while (got < n) got += gen.next(std::span(points).subspan(got));
  if (dx > 0.0) {
    const double ext = gen.bounds().size()[0];
    const double ey = gen.bounds().size()[1];
    for (Point& p : points) {
      p.x = static_cast<float>(p.x * dx / ext);
      p.y = static_cast<float>(p.y * dy / ey);
    }
  }
  held_n = n;
  held_dx = dx;
  held_dy = dy;
  return points;
}

void seeds(benchmark::State& state, simlod::Backend backend, std::uint64_t n, double dx, double dy,
           bool full) {
  if (backend == simlod::Backend::Cuda && simlod::cuda_device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  const std::vector<Point>& pts = cloud(n, dx, dy);
  simlod::terrain::GroundParams params;
  params.backend = backend;
  (void)simlod::terrain::find_seeds(pts, params);  // warm-up
  for (auto _ : state) {
    const simlod::terrain::Seeds s = simlod::terrain::find_seeds(pts, params);
    const simlod::terrain::SeedStats& t = s.stats;
    const double ms = t.index_ms + t.windows_ms + t.gap_ms;
    state.SetIterationTime(ms / 1000.0);
    state.counters["index_ms"] = t.index_ms;
    state.counters["windows_ms"] = t.windows_ms;
    state.counters["gap_ms"] = t.gap_ms;
    state.counters["bounds_ms"] = t.bounds_ms;
    state.counters["upload_ms"] = t.upload_ms;
    state.counters["total_ms"] = t.total_ms;
    state.counters["seeds_MPps"] = static_cast<double>(n) / (ms * 1000.0);
    state.counters["seeds"] = static_cast<double>(s.indices.size());
    state.counters["windows"] = static_cast<double>(t.windows_x) * t.windows_y;
    state.counters["points"] = static_cast<double>(n);
    if (full && simlod::terrain::dtm_available()) {
      // The whole pipeline once per repetition: one copy of the points, the seeds, the DTM
      // (host), the classification and its refinement passes.
      const auto start = std::chrono::steady_clock::now();
      const simlod::terrain::GroundResult g = simlod::terrain::ground(pts, params);
      state.counters["ground_ms"] =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      state.counters["dtm_ms"] = g.dtm_stats.triangulate_ms + g.dtm_stats.raster_ms;
      state.counters["classify_ms"] = g.classify_ms;
      state.counters["refine_ms"] = g.refine_ms;
      state.counters["ground_upload_ms"] = g.seeds.stats.upload_ms;
    }
  }
}

void register_all() {
  const std::uint64_t big = env_points("SIMLOD_BENCH_POINTS", 100'000'000);
  const std::uint64_t cpu = env_points("SIMLOD_BENCH_CPU_POINTS", 20'000'000);
  const char* standins_env = std::getenv("SIMLOD_BENCH_STANDINS");
  const bool standins = standins_env == nullptr || std::string(standins_env) != "0";
  const auto add = [](const std::string& name, simlod::Backend b, std::uint64_t n, double dx,
                      double dy, bool full) {
    benchmark::RegisterBenchmark(name.c_str(), seeds, b, n, dx, dy, full)
        ->Iterations(1)
        ->Repetitions(kRepetitions)
        ->UseManualTime()
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  };
  const double scale = std::min(1.0, static_cast<double>(big) / 1e8);
  if (standins) {
    for (const StandIn& s : kStandIns) {
      const auto n = std::max<std::uint64_t>(
          1000, static_cast<std::uint64_t>(static_cast<double>(s.points) * scale));
      add(std::string("cuda_seeds/") + s.name, simlod::Backend::Cuda, n, s.dx, s.dy, false);
      add(std::string("cpu_seeds/") + s.name, simlod::Backend::Cpu, n, s.dx, s.dy, false);
    }
  }
  add("cuda_seeds/scene", simlod::Backend::Cuda, big, 0.0, 0.0, true);
  add("cpu_seeds/scene", simlod::Backend::Cpu, cpu, 0.0, 0.0, true);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
