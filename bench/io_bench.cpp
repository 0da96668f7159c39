// Read throughput of the point-cloud readers: LAS, LAZ (one decoder thread and all of them)
// and SIM, on a synthetic scene written once per size and format.
//
//   SIMLOD_BENCH_POINTS  points per file (default 10,000,000; 1,000,000 for a quick run)
//   SIMLOD_BENCH_DIR     where the files live (default <temp>/simlod-bench); files of the right
//                        point count are reused, so only the first run pays for writing them
//
// Files are read from the page cache after the first iteration: this measures decoding, not
// the disk. Counters: items_per_second = points/s, bytes_per_second = file bytes/s.
#include <benchmark/benchmark.h>

#include <exception>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench_env.hpp"
#include "bench_files.hpp"
#include "simlod/io.hpp"

namespace {

namespace fs = std::filesystem;
using simlod::FileFormat;

constexpr std::size_t kBatchPoints = 1 << 20;

void read_file(benchmark::State& state, FileFormat format, unsigned threads) {
  if (format == FileFormat::Laz && !simlod::laz_supported()) {
    state.SkipWithError("this build has no LAZ support (LASzip was not found)");
    return;
  }
  fs::path path;
  try {
    // SIMLOD_BENCH_IO_POINTS first: scripts/bench --gpu reads 10^7-point files here while the
    // octree runs at 10^8 (writing a 10^8-point LAZ file alone takes minutes).
    const std::uint64_t n = simlod::bench::env_points(
        "SIMLOD_BENCH_IO_POINTS", simlod::bench::env_points("SIMLOD_BENCH_POINTS", 10'000'000));
    path = simlod::bench::scene_file(format, n);
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("cannot prepare the benchmark file: ") + e.what()).c_str());
    return;
  }
  const std::uint64_t bytes = fs::file_size(path);
  simlod::ReaderOptions options;
  options.threads = threads;
  std::vector<simlod::Point> batch(kBatchPoints);
  std::uint64_t points = 0;
  for (auto _ : state) {
    auto reader = simlod::open_reader(path, options);
    while (const std::size_t n = reader->read(batch)) {
      benchmark::DoNotOptimize(batch.data());
      points += n;
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(points));
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
  state.counters["points"] = static_cast<double>(points / state.iterations());
  if (format == FileFormat::Laz) {
    state.counters["threads"] = threads != 0 ? threads : std::thread::hardware_concurrency();
  }
}

// Several fixed iterations: the slowest case (LAZ on one thread) takes seconds per pass.
constexpr int kIterations = 5;

BENCHMARK_CAPTURE(read_file, las, FileFormat::Las, 0u)
    ->Iterations(kIterations)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_file, laz_1_thread, FileFormat::Laz, 1u)
    ->Iterations(kIterations)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_file, laz_all_threads, FileFormat::Laz, 0u)
    ->Iterations(kIterations)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_file, sim, FileFormat::Sim, 0u)
    ->Iterations(kIterations)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
