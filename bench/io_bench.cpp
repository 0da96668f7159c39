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

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "simlod/io.hpp"
#include "simlod/synth.hpp"

namespace {

namespace fs = std::filesystem;
using simlod::FileFormat;

constexpr std::size_t kBatchPoints = 1 << 20;
constexpr std::uint64_t kDefaultPoints = 10'000'000;
constexpr std::uint64_t kSceneSeed = 1;

std::uint64_t bench_points() {
  const char* text = std::getenv("SIMLOD_BENCH_POINTS");
  if (text == nullptr || *text == '\0') return kDefaultPoints;
  const std::uint64_t n = std::strtoull(text, nullptr, 10);
  return n > 0 ? n : kDefaultPoints;
}

fs::path bench_dir() {
  const char* text = std::getenv("SIMLOD_BENCH_DIR");
  if (text != nullptr && *text != '\0') return text;
  return fs::temp_directory_path() / "simlod-bench";
}

const char* extension(FileFormat format) {
  switch (format) {
    case FileFormat::Las: return ".las";
    case FileFormat::Laz: return ".laz";
    case FileFormat::Sim: return ".sim";
    case FileFormat::Ply: return ".ply";
  }
  return "";
}

bool usable(const fs::path& path, std::uint64_t points) {
  try {
    return fs::exists(path) && simlod::read_info(path).point_count == points;
  } catch (const std::exception&) {
    return false;  // unreadable or from an older format: write it again
  }
}

// The scene in scan order, as a survey delivers it, written through the public writer API.
// Written under a temporary name and renamed, so an interrupted run leaves no half file.
void write_scene(const fs::path& path, std::uint64_t points) {
  fs::create_directories(path.parent_path());
  // The extension stays last: writers pick the format from it.
  fs::path partial = path;
  partial.replace_filename(path.stem().string() + ".partial" + path.extension().string());
  {
    simlod::synth::Generator gen(
        {.points = points, .seed = kSceneSeed, .order = simlod::synth::Order::Scan});
    auto writer = simlod::create_writer(partial);
    std::vector<simlod::Point> batch(kBatchPoints);
    while (const std::size_t n = gen.next(batch)) writer->write(std::span(batch).first(n));
    writer->close();
  }
  fs::rename(partial, path);
}

/// The benchmark file for `format`, created on first use.
const fs::path& scene_file(FileFormat format) {
  static std::mutex mutex;
  static std::map<FileFormat, fs::path> files;
  const std::lock_guard lock(mutex);
  if (auto it = files.find(format); it != files.end()) return it->second;
  const std::uint64_t points = bench_points();
  const fs::path path = bench_dir() / ("scene-" + std::to_string(points) + "-seed" +
                                       std::to_string(kSceneSeed) + extension(format));
  if (!usable(path, points)) write_scene(path, points);
  return files.emplace(format, path).first->second;
}

void read_file(benchmark::State& state, FileFormat format, unsigned threads) {
  if (format == FileFormat::Laz && !simlod::laz_supported()) {
    state.SkipWithError("this build has no LAZ support (LASzip was not found)");
    return;
  }
  fs::path path;
  try {
    path = scene_file(format);
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
