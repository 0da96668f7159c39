// End to end: a file (or the synthetic generator) streamed into the octree while a frame loop
// renders it at 1920x1080, as simlod-demo does: each frame update(10 ms) then rasterize().
//
//   SIMLOD_BENCH_POINTS      points of the SIM and LAS files (default 10,000,000)
//   SIMLOD_BENCH_LAZ_POINTS  points of the LAZ file (default: SIMLOD_BENCH_POINTS; writing LAZ
//                            is single-threaded and slow)
//   SIMLOD_BENCH_DIR         where the files live (bench_files.hpp)
//   SIMLOD_BENCH_LOADERS     loader threads of the file cases (default: the Streamer's)
//
// "warm": the file is in the page cache (read once before); "cold": its pages are dropped
// before each run (fdatasync + posix_fadvise DONTNEED, no root needed). Counters:
// items_per_second = points/s, bytes_per_second = file bytes/s, open_ms (Streamer::open),
// first_insert_ms (from the start of Streamer::open to the start of the first update() that
// inserted a batch), first_frame_ms (to the end of the first rasterize() that drew points),
// update_avg_ms / update_max_ms (per update() that inserted something), render_avg_ms; per batch
// batch_host_ms (update() time), batch_device_update_ms and batch_device_wait_ms (CUDA events:
// the update alone, and the wait for the batch's points), and inserting_busy (the share of the
// run the inserting thread spent in update()).
// The read_only_* cases run the loaders alone (a consumer that drops batches unread would
// need internals; instead every loader-thread count reads the file with PointReader::seek
// as the loaders do), to show what reading and parsing allow. read_upload/sim adds what the
// loaders do with a CUDA octree: each thread reads its batches piece by piece into a
// DeviceBatch (two in turn), which copies every piece to the device and checks the batch
// there; no octree: the ceiling of moving the points, for the stream to be measured against.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "bench_env.hpp"
#include "bench_files.hpp"
#include "common/views.hpp"
#include "simlod/simlod.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using simlod::FileFormat;

std::uint64_t points_for(FileFormat format) {
  const std::uint64_t n = simlod::bench::env_points("SIMLOD_BENCH_POINTS", 10'000'000);
  return format == FileFormat::Laz ? simlod::bench::env_points("SIMLOD_BENCH_LAZ_POINTS", n) : n;
}

void drop_from_page_cache(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  (void)::fdatasync(fd);
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

void warm_page_cache(const fs::path& path) {
  std::vector<char> buffer(std::size_t{64} << 20);
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  while (::read(fd, buffer.data(), buffer.size()) > 0) {
  }
  ::close(fd);
}

struct RunResult {
  double seconds = 0, first_frame_ms = -1, update_sum = 0, update_max = 0, render_sum = 0;
  double open_ms = 0, first_insert_ms = -1;  ///< Streamer::open(); start to the first insert
  double device_upload_sum = 0, device_update_sum = 0;  ///< CUDA events, over all batches
  std::uint64_t points = 0, updates = 0, renders = 0, batches = 0;
};

/// One streaming run with a 1080p frame loop; `open` creates the Streamer.
template <typename Open>
RunResult stream_once(Open open, simlod::Framebuffer& fb) {
  RunResult r;
  const auto start = Clock::now();
  simlod::Streamer streamer = open();
  r.open_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  const simlod::Bounds& cube = streamer.octree().cube();
  const simlod::View view = simlod::examples::overview_view(
      simlod::examples::relative_box(cube, cube.min), fb.width(), fb.height());
  for (;;) {
    const bool done = streamer.done();
    const auto before_update = Clock::now();
    const simlod::UpdateStats u = streamer.update(std::chrono::milliseconds{10});
    if (u.batches > 0 && r.first_insert_ms < 0) {
      r.first_insert_ms = std::chrono::duration<double, std::milli>(before_update - start).count();
    }
    if (u.batches > 0) {
      const double ms = static_cast<double>(u.duration.count()) / 1000.0;
      r.update_sum += ms;
      r.update_max = std::max(r.update_max, ms);
      r.updates += 1;
      r.batches += u.batches;
      r.device_upload_sum += u.device_upload_ms;
      r.device_update_sum += u.device_update_ms;
    }
    const simlod::RenderStats rs = simlod::rasterize(streamer.octree(), view, fb);
    r.render_sum += rs.total_ms;
    r.renders += 1;
    if (r.first_frame_ms < 0 && rs.points + rs.voxels > 0) {
      r.first_frame_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }
    if (done) break;
    if (u.batches == 0) streamer.wait(std::chrono::microseconds{500});
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.points = streamer.progress().points_inserted;
  return r;
}

void report(benchmark::State& state, const std::vector<RunResult>& runs, std::uint64_t bytes) {
  // Counters are per run; Google Benchmark's median aggregates them over repetitions.
  const RunResult& r = runs.back();
  state.SetIterationTime(r.seconds);
  state.counters["items_per_second"] = static_cast<double>(r.points) / r.seconds;
  state.counters["bytes_per_second"] = static_cast<double>(bytes) / r.seconds;
  state.counters["first_frame_ms"] = r.first_frame_ms;
  state.counters["open_ms"] = r.open_ms;
  state.counters["first_insert_ms"] = r.first_insert_ms;
  state.counters["update_avg_ms"] = r.updates ? r.update_sum / static_cast<double>(r.updates) : 0;
  state.counters["update_max_ms"] = r.update_max;
  state.counters["render_avg_ms"] = r.renders ? r.render_sum / static_cast<double>(r.renders) : 0;
  state.counters["frames"] = static_cast<double>(r.renders);
  // Where the inserting thread's time goes, per batch: its update() time, the device's update
  // alone, and the device's wait for the batch's points (the loaders' copies, or the upload).
  const auto per_batch = [&](double ms) {
    return r.batches ? ms / static_cast<double>(r.batches) : 0;
  };
  state.counters["batch_host_ms"] = per_batch(r.update_sum);
  state.counters["batch_device_update_ms"] = per_batch(r.device_update_sum);
  state.counters["batch_device_wait_ms"] = per_batch(r.device_upload_sum);
  state.counters["inserting_busy"] = r.update_sum / (r.seconds * 1000.0);
}

/// Set up once, as a viewer does at start-up: the device, a 1080p framebuffer and the
/// stream's page-locked buffers.
simlod::Framebuffer& framebuffer() {
  static simlod::Framebuffer fb(1920, 1080, simlod::resolve_backend(simlod::Backend::Auto));
  static const bool prepared = [] {
    simlod::Streamer::prepare();
    return true;
  }();
  (void)prepared;
  return fb;
}

void stream_file(benchmark::State& state, FileFormat format, bool cold) {
  if (format == FileFormat::Laz && !simlod::laz_supported()) {
    state.SkipWithError("this build has no LAZ support");
    return;
  }
  fs::path path;
  try {
    path = simlod::bench::scene_file(format, points_for(format));
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("cannot prepare the benchmark file: ") + e.what()).c_str());
    return;
  }
  const std::uint64_t bytes = fs::file_size(path);
  simlod::Framebuffer& fb = framebuffer();
  std::vector<RunResult> runs;
  for (auto _ : state) {
    if (cold) {
      drop_from_page_cache(path);
    } else {
      warm_page_cache(path);
    }
    simlod::StreamConfig config;
    config.loader_threads =
        static_cast<unsigned>(simlod::bench::env_points("SIMLOD_BENCH_LOADERS", 0));
    runs.push_back(stream_once([&] { return simlod::Streamer::open({path}, config); }, fb));
    report(state, runs, bytes);
  }
}

void stream_synthetic(benchmark::State& state) {
  const std::uint64_t n = points_for(FileFormat::Sim);
  simlod::Framebuffer& fb = framebuffer();
  std::vector<RunResult> runs;
  for (auto _ : state) {
    runs.push_back(
        stream_once([&] { return simlod::Streamer::synthetic({.points = n, .seed = 1}); }, fb));
    report(state, runs, n * sizeof(simlod::Point));
  }
}

/// The loaders' reading alone: `threads` readers (range 0) take 1M-point batches (chunk-aligned
/// for LAZ) in turn, seek and read, as the Streamer's loaders do, with no octree behind them.
/// Range 1: 0 reads each batch whole into a batch-sized buffer; otherwise in pieces of that
/// many points into one piece-sized buffer per thread that stays in the core's cache (as the
/// loaders read into a device batch's staging pieces): the fastest reading this host allows.
void read_only(benchmark::State& state, FileFormat format) {
  if (format == FileFormat::Laz && !simlod::laz_supported()) {
    state.SkipWithError("this build has no LAZ support");
    return;
  }
  const fs::path path = simlod::bench::scene_file(format, points_for(format));
  const auto threads = static_cast<unsigned>(state.range(0));
  const auto piece = static_cast<std::uint64_t>(state.range(1));
  const simlod::FileInfo info = simlod::read_info(path);
  const std::uint64_t step = info.seek_step > 1 ? info.seek_step : 1;
  const std::uint64_t batch = std::max<std::uint64_t>(1, (std::uint64_t{1} << 20) / step) * step;
  warm_page_cache(path);
  for (auto _ : state) {
    std::atomic<std::uint64_t> next{0};
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        simlod::ReaderOptions options;
        options.threads = 1;
        auto reader = simlod::open_reader(path, options);
        std::vector<simlod::Point> buffer(piece == 0 ? batch : piece);
        for (std::uint64_t first = next.fetch_add(batch); first < info.point_count;
             first = next.fetch_add(batch)) {
          reader->seek(first);
          const std::uint64_t n = std::min(batch, info.point_count - first);
          for (std::uint64_t at = 0; at < n; at += buffer.size()) {
            const std::size_t m = std::min<std::uint64_t>(buffer.size(), n - at);
            benchmark::DoNotOptimize(reader->read(std::span(buffer).first(m)));
          }
        }
      });
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(info.point_count * state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(fs::file_size(path) * state.iterations()));
}

/// Reading and uploading without an octree (range 0: threads): the loaders' work for a CUDA
/// octree with the inserting thread's part reduced to collecting each batch's device check.
void read_upload(benchmark::State& state) {
  if (simlod::cuda_device_count() == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  const fs::path path = simlod::bench::scene_file(FileFormat::Sim, points_for(FileFormat::Sim));
  const auto threads = static_cast<unsigned>(state.range(0));
  const simlod::FileInfo info = simlod::read_info(path);
  const simlod::Bounds cube = simlod::Octree::root_cube(info.bounds);
  const std::uint64_t batch = std::uint64_t{1} << 20;
  std::vector<std::array<simlod::DeviceBatch, 2>> batches(threads);
  for (auto& pair : batches) {
    for (simlod::DeviceBatch& b : pair) b = simlod::DeviceBatch(batch);
  }
  warm_page_cache(path);
  for (auto _ : state) {
    std::atomic<std::uint64_t> next{0};
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        simlod::ReaderOptions options;
        options.threads = 1;
        auto reader = simlod::open_reader(path, options);
        int k = 0;
        for (std::uint64_t first = next.fetch_add(batch); first < info.point_count;
             first = next.fetch_add(batch), k ^= 1) {
          simlod::DeviceBatch& b = batches[t][static_cast<std::size_t>(k)];
          if (b.size() != 0) {  // the batch before the last: collect its check, then refill
            benchmark::DoNotOptimize(b.check(cube));
            b.clear();
          }
          reader->seek(first);
          const std::uint64_t n = std::min(batch, info.point_count - first);
          for (std::uint64_t done = 0; done < n;) {
            const std::span<simlod::Point> piece = b.piece();
            const std::size_t m =
                reader->read(piece.first(std::min<std::uint64_t>(piece.size(), n - done)));
            b.commit(m);
            done += m;
          }
          b.check_async(cube);
        }
        for (simlod::DeviceBatch& b : batches[t]) {
          if (b.size() != 0) benchmark::DoNotOptimize(b.check(cube));
          b.clear();
        }
      });
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(info.point_count * state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(fs::file_size(path) * state.iterations()));
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// Where the time before the first picture goes: creating the octree (device reserve),
/// pinning ring buffers, the first batch, the first update. The pinning cases empty the pool
/// of page-locked memory first (PinnedBatch::release_pool), so that they pin afresh, and free
/// what they pinned inside the timed region.
void startup(benchmark::State& state) {
  using simlod::PinnedBatch;
  const fs::path path = simlod::bench::scene_file(FileFormat::Sim, points_for(FileFormat::Sim));
  const simlod::Bounds cube = simlod::read_info(path).bounds;
  const std::size_t slot_points = std::size_t{1} << 20;
  std::vector<simlod::Point> first(1 << 14);
  {
    auto reader = simlod::open_reader(path);
    (void)reader->read(first);
  }
  /// Creates an octree, inserts 16k points and returns {create ms, first update ms}.
  auto first_update = [&] {
    auto t = Clock::now();
    simlod::Octree tree = simlod::Octree::create(cube);
    const double create = ms_since(t);
    tree.insert(first);
    t = Clock::now();
    tree.update();
    return std::pair{create, ms_since(t)};
  };
  for (auto _ : state) {
    const auto [create, update] = first_update();
    state.counters["create_octree_ms"] = create;
    state.counters["first_update_fresh_ms"] = update;
    const auto [create2, update2] = first_update();
    state.counters["create_octree_again_ms"] = create2;
    state.counters["first_update_again_ms"] = update2;
    PinnedBatch::release_pool();
    {
      std::jthread pinning([&] {
        std::vector<PinnedBatch> ring;
        for (int i = 0; i < 34; ++i) ring.emplace_back(slot_points);
      });
      std::this_thread::sleep_for(std::chrono::milliseconds{5});
      state.counters["first_update_while_pinning_ms"] = first_update().second;
    }
    PinnedBatch::release_pool();
    auto t = Clock::now();
    { PinnedBatch one(slot_points); }
    PinnedBatch::release_pool();
    state.counters["pin_16MB_ms"] = ms_since(t);
    t = Clock::now();
    {
      std::vector<PinnedBatch> ring(34);
      std::vector<std::jthread> pool;
      for (unsigned k = 0; k < 16; ++k) {
        pool.emplace_back([&, k] {
          for (std::size_t i = k; i < ring.size(); i += 16) ring[i] = PinnedBatch(slot_points);
        });
      }
    }
    PinnedBatch::release_pool();
    state.counters["pin_34x16MB_16_threads_ms"] = ms_since(t);
    warm_page_cache(path);
    t = Clock::now();
    simlod::Streamer::prepare();
    state.counters["prepare_ms"] = ms_since(t);
    t = Clock::now();
    simlod::Streamer streamer = simlod::Streamer::open({path});
    state.counters["open_ms"] = ms_since(t);
    while (!streamer.wait(std::chrono::milliseconds{1})) {
    }
    state.counters["first_batch_ready_ms"] = ms_since(t);
    const auto u = streamer.update(std::chrono::milliseconds{10});
    state.counters["first_update_ms"] = static_cast<double>(u.duration.count()) / 1000.0;
    state.counters["first_update_batches"] = static_cast<double>(u.batches);
    state.counters["to_first_update_end_ms"] = ms_since(t);
  }
}
BENCHMARK(startup)->Iterations(1)->Repetitions(3)->Unit(benchmark::kMillisecond);

template <typename B>
void stream_options(B* b, int repetitions) {
  b->UseManualTime()
      ->Iterations(1)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond);
}

#define SIMLOD_STREAM_CASE(name, format, cold, reps)                      \
  BENCHMARK_CAPTURE(stream_file, name, format, cold)->Apply([](auto* b) { \
    stream_options(b, reps);                                              \
  })

SIMLOD_STREAM_CASE(sim_warm, FileFormat::Sim, false, 5);
SIMLOD_STREAM_CASE(sim_cold, FileFormat::Sim, true, 3);
SIMLOD_STREAM_CASE(las_warm, FileFormat::Las, false, 5);
SIMLOD_STREAM_CASE(las_cold, FileFormat::Las, true, 3);
SIMLOD_STREAM_CASE(laz_warm, FileFormat::Laz, false, 3);
SIMLOD_STREAM_CASE(laz_cold, FileFormat::Laz, true, 1);
BENCHMARK(stream_synthetic)->Apply([](auto* b) { stream_options(b, 1); });

BENCHMARK_CAPTURE(read_only, sim, FileFormat::Sim)
    ->Args({1, 0})
    ->Args({4, 0})
    ->Args({16, 0})
    ->Args({14, 1 << 16})
    ->Args({16, 1 << 16})
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(read_upload)
    ->Arg(14)
    ->Arg(16)
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_only, las, FileFormat::Las)
    ->Args({1, 0})
    ->Args({4, 0})
    ->Args({16, 0})
    ->Args({14, 1 << 16})
    ->Args({16, 1 << 16})
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_only, laz, FileFormat::Laz)
    ->Args({16, 0})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
