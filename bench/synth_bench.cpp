// Synthetic scene generator throughput (points/s) in scan and Morton order, on all hardware
// threads and on one, plus the cost of setting a scene up (scene layout and tile plan).
//
//   SIMLOD_BENCH_POINTS  points per scene (default 10,000,000)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

#include "simlod/synth.hpp"

namespace {

using simlod::synth::Order;

constexpr std::size_t kBatchPoints = 1 << 20;
constexpr std::uint64_t kDefaultPoints = 10'000'000;

std::uint64_t bench_points() {
  const char* text = std::getenv("SIMLOD_BENCH_POINTS");
  if (text == nullptr || *text == '\0') return kDefaultPoints;
  const std::uint64_t n = std::strtoull(text, nullptr, 10);
  return n > 0 ? n : kDefaultPoints;
}

// threads == 0: all hardware threads.
void generate(benchmark::State& state, Order order, unsigned threads) {
  const std::uint64_t points = bench_points();
  const unsigned used = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<simlod::Point> batch(kBatchPoints);
  for (auto _ : state) {
    simlod::synth::Generator gen({.points = points, .seed = 1, .order = order, .threads = threads});
    while (gen.next(batch) > 0) benchmark::DoNotOptimize(batch.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(points * state.iterations()));
  state.SetBytesProcessed(
      static_cast<std::int64_t>(points * sizeof(simlod::Point) * state.iterations()));
  state.counters["points"] = static_cast<double>(points);
  state.counters["threads"] = used;
}

void setup(benchmark::State& state) {
  const std::uint64_t points = bench_points();
  for (auto _ : state) {
    simlod::synth::Generator gen({.points = points, .seed = 1});
    benchmark::DoNotOptimize(gen.bounds());
  }
  state.counters["points"] = static_cast<double>(points);
}

// A few fixed iterations: one pass over 10^7 points takes seconds on a small machine.
constexpr int kIterations = 3;

BENCHMARK_CAPTURE(generate, scan, Order::Scan, 0u)
    ->Iterations(kIterations)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(generate, morton, Order::Morton, 0u)
    ->Iterations(kIterations)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(generate, scan_1_thread, Order::Scan, 1u)
    ->Iterations(kIterations)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(generate, morton_1_thread, Order::Morton, 1u)
    ->Iterations(kIterations)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(setup)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
