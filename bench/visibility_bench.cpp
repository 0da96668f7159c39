// VisibilityMap: leaf pairs per second and the build's phases, CUDA and the CPU backend, on
// the box with an occluding cube (exact normals, ~10^5 points), the synthetic town (10^5 and
// 10^6 points, estimated normals) and, with SIMLOD_TEST_DATA, the Stanford bunny in the box
// (estimated normals), at octree heights 6-10. Times are the map's own: pairs_ms and links_ms
// (CUDA events on CUDA, the wall clock on the CPU), octree_ms and total_ms (wall clock). CUDA:
// one warm-up, then 3 repetitions (the tables report medians); the CPU: height 6 once.
//
// SIMLOD_BENCH_POINTS below 10^5 (the smoke runs) shrinks every scene to about that many points.
//
// normals/<backend>/town_1e6: estimate_normals of the town's 10^6 points (k = 16, propagated).
// cuda_blocked_64MiB/town_1e6/height_8: that map built in blocks (matrix_bytes 64 MiB). The
// town 10^6 at heights 9-10 (253,213 and 285,257 leaves: 4.0 and 5.1 GB matrices) is built in
// blocks under the default 2 GiB budget.
//
// Counters: leaf_pairs_per_s (all unordered leaf pairs / pairs_ms), facing_pairs_per_s (the
// pairs left after the facing test, each walked for occluders / pairs_ms), leaves, links.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "bench_env.hpp"
#include "core/visibility_scenes.hpp"
#include "simlod/io.hpp"
#include "simlod/normals.hpp"
#include "simlod/synth.hpp"
#include "simlod/visibility.hpp"

namespace {

using simlod::Backend;
using simlod::Normal;
using simlod::Point;

/// The scenes' point budget: SIMLOD_BENCH_POINTS when below 10^5, else none.
std::uint64_t budget() {
  static const std::uint64_t b = simlod::bench::env_points("SIMLOD_BENCH_POINTS", 1'000'000'000);
  return b < 100'000 ? b : 1'000'000'000;
}

struct Cloud {
  std::vector<Point> points;
  std::vector<Normal> normals;
};

/// The synthetic town's points and the normals' parameters (a viewpoint high above it).
struct TownPoints {
  std::vector<Point> points;
  simlod::NormalParams params;
};

/// The synthetic town of n points (relative to its low corner).
const TownPoints& town_points(std::uint64_t n) {
  static std::map<std::uint64_t, TownPoints> cache;
  TownPoints& t = cache[n];
  if (t.points.empty()) {
    simlod::synth::Generator gen({.points = n, .seed = 1});
    const simlod::Bounds b = gen.bounds();
    t.points.resize(n);
    std::size_t got = 0;
    while (got < n) got += gen.next(std::span(t.points).subspan(got));
    for (Point& p : t.points) {
      p.x -= static_cast<float>(b.min[0]);
      p.y -= static_cast<float>(b.min[1]);
      p.z -= static_cast<float>(b.min[2]);
    }
    t.params.viewpoint = std::array<double, 3>{b.size()[0] / 2, b.size()[1] / 2, 10 * b.size()[2]};
  }
  return t;
}

/// The town of n points with normals propagated from above it.
const Cloud& town(std::uint64_t wanted) {
  const std::uint64_t n = std::min(wanted, budget());
  static std::map<std::uint64_t, Cloud> cache;
  Cloud& c = cache[n];
  if (c.points.empty()) {
    const TownPoints& t = town_points(n);
    c.points = t.points;
    c.normals = simlod::estimate_normals(c.points, t.params);
  }
  return c;
}

/// estimate_normals (k = 16, propagated) of the town on one backend: the whole call.
void normals(benchmark::State& state, std::uint64_t wanted, Backend backend) {
  if (backend == Backend::Cuda && simlod::cuda_device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  const TownPoints& t = town_points(std::min(wanted, budget()));
  simlod::NormalParams params = t.params;
  params.backend = backend;
  if (backend == Backend::Cuda) (void)simlod::estimate_normals(t.points, params);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<Normal> n = simlod::estimate_normals(t.points, params);
    benchmark::DoNotOptimize(n.data());
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.counters["points"] = static_cast<double>(t.points.size());
}

const Cloud& box() {
  static Cloud c;
  if (c.points.empty()) {
    const bool small = budget() < 100'000;
    const simlod::test::VisScene s =
        simlod::test::box_scene(small ? 1.0 / 20 : 1.0 / 140, 0.13, small ? 1.0 / 40 : 1.0 / 280);
    c.points = s.points;
    c.normals = s.normals;
  }
  return c;
}

/// The bunny (scaled to 0.4 of the box, on its floor) inside the box's walls; empty without
/// the test data.
const Cloud& bunny_box() {
  static Cloud c;
  static bool tried = false;
  if (!tried) {
    tried = true;
    const char* dir = std::getenv("SIMLOD_TEST_DATA");
    if (dir == nullptr || *dir == '\0') return c;
    auto reader = simlod::open_reader(std::filesystem::path(dir) / "bun_zipper.ply");
    std::vector<Point> bunny(reader->info().point_count);
    std::size_t got = 0;
    while (got < bunny.size()) got += reader->read(std::span(bunny).subspan(got));
    const simlod::Bounds b = reader->info().bounds;
    const double scale = 0.4 / std::max({b.size()[0], b.size()[1], b.size()[2]});
    const bool small = budget() < 100'000;
    simlod::test::VisScene s = simlod::test::box_scene(small ? 1.0 / 20 : 1.0 / 80, 0.13);
    const std::size_t step = small ? std::max<std::size_t>(1, bunny.size() / budget()) * 4 : 1;
    for (std::size_t i = 0; i < bunny.size(); i += step) {
      const Point& p = bunny[i];
      s.points.push_back({static_cast<float>(0.3 + (p.x - b.min[0]) * scale),
                          static_cast<float>(0.3 + (p.z - b.min[2]) * scale),  // y up in the scan
                          static_cast<float>(0.02 + (p.y - b.min[1]) * scale), p.rgba});
    }
    c.points = s.points;
    simlod::NormalParams params;
    params.viewpoint = std::array<double, 3>{0.9, 0.9, 0.9};
    c.normals = simlod::estimate_normals(c.points, params);
  }
  return c;
}

void build(benchmark::State& state, const Cloud& (*cloud)(), std::uint32_t height, Backend backend,
           std::uint64_t matrix_bytes) {
  if (backend == Backend::Cuda && simlod::cuda_device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  const Cloud& c = cloud();
  if (c.points.empty()) {
    state.SkipWithError("SIMLOD_TEST_DATA is not set (the bunny)");
    return;
  }
  const simlod::VisibilityConfig config{height, 8, 1, backend, matrix_bytes};
  if (backend == Backend::Cuda) (void)simlod::VisibilityMap::build(c.points, c.normals, config);
  for (auto _ : state) {
    const simlod::VisibilityMap map = simlod::VisibilityMap::build(c.points, c.normals, config);
    const simlod::VisibilityStats& s = map.stats();
    state.SetIterationTime(s.total_ms / 1e3);
    state.counters["points"] = static_cast<double>(s.points);
    state.counters["leaves"] = static_cast<double>(s.leaves);
    state.counters["leaf_pairs"] = static_cast<double>(s.leaf_pairs);
    state.counters["facing_pairs"] = static_cast<double>(s.facing_pairs);
    state.counters["visible_pairs"] = static_cast<double>(s.visible_pairs);
    state.counters["links"] = static_cast<double>(s.links);
    state.counters["octree_ms"] = s.octree_ms;
    state.counters["pairs_ms"] = s.pairs_ms;
    state.counters["links_ms"] = s.links_ms;
    state.counters["leaf_pairs_per_s"] = static_cast<double>(s.leaf_pairs) / (s.pairs_ms / 1e3);
    state.counters["facing_pairs_per_s"] = static_cast<double>(s.facing_pairs) / (s.pairs_ms / 1e3);
    state.counters["MB"] = static_cast<double>(s.bytes) / 1e6;
  }
}

const Cloud& town_1e5() { return town(100'000); }
const Cloud& town_1e6() { return town(1'000'000); }

void register_all() {
  struct Case {
    const char* name;
    const Cloud& (*cloud)();
    bool cpu;                  ///< the CPU runs height 6 too (one repetition: about 10^8 pairs)
    std::uint32_t max_height;  ///< CUDA runs heights 6 .. this
  };
  const Case cases[] = {{"box", box, true, 10},
                        {"bunny_box", bunny_box, true, 10},
                        {"town_1e5", town_1e5, true, 10},
                        {"town_1e6", town_1e6, false, 10}};
  const auto add = [](const std::string& name, const Cloud& (*cloud)(), std::uint32_t h, Backend b,
                      int repetitions, std::uint64_t matrix_bytes = std::uint64_t{2} << 30) {
    benchmark::RegisterBenchmark(name.c_str(), build, cloud, h, b, matrix_bytes)
        ->Iterations(1)
        ->Repetitions(repetitions)
        ->UseManualTime()
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  };
  for (const Backend b : {Backend::Cuda, Backend::Cpu}) {
    benchmark::RegisterBenchmark(
        b == Backend::Cuda ? "normals/cuda/town_1e6" : "normals/cpu/town_1e6", normals, 1'000'000,
        b)
        ->Iterations(1)
        ->Repetitions(b == Backend::Cuda ? 3 : 1)
        ->UseManualTime()
        ->ReportAggregatesOnly(true)
        ->Unit(benchmark::kMillisecond);
  }
  for (const Case& c : cases) {
    for (std::uint32_t h = 6; h <= c.max_height; ++h) {
      add(std::string("cuda/") + c.name + "/height_" + std::to_string(h), c.cloud, h, Backend::Cuda,
          3);
    }
    if (c.cpu) add(std::string("cpu/") + c.name + "/height_6", c.cloud, 6, Backend::Cpu, 1);
  }
  // A blocked build: the town 10^6 at height 8 (a 565 MB matrix) within 64 MiB tiles.
  add("cuda_blocked_64MiB/town_1e6/height_8", town_1e6, 8, Backend::Cuda, 3,
      std::uint64_t{64} << 20);
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
