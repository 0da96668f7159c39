// Settings of the benchmark programs from environment variables.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>

/// Registers `fn` captured as `name` with its arguments: one iteration per repetition timed
/// by the benchmark itself (SetIterationTime), `reps` repetitions, aggregates only, in ms.
#define SIMLOD_MANUAL_BENCH(reps, fn, name, ...) \
  BENCHMARK_CAPTURE(fn, name, __VA_ARGS__)       \
      ->Iterations(1)                            \
      ->Repetitions(reps)                        \
      ->UseManualTime()                          \
      ->ReportAggregatesOnly(true)               \
      ->Unit(benchmark::kMillisecond)

namespace simlod::bench {

/// The positive integer in environment variable `name`, or `fallback` when it is unset, empty
/// or not a positive number.
inline std::uint64_t env_points(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  const std::uint64_t n = std::strtoull(text, nullptr, 10);
  return n > 0 ? n : fallback;
}

}  // namespace simlod::bench
