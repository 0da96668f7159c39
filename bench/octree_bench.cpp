// Octree update throughput (SimLOD's incremental builder): a synthetic scene, generated once
// into host memory in scan, Morton and random order (the scan order shuffled), inserted in batches
// of 1M points into a fresh octree per repetition. CUDA runs insert each batch with
// Octree::insert_now() and report the update alone from its CUDA events (UpdateStats::
// device_update_ms; the upload, device_upload_ms, is reported apart); CPU runs queue each batch
// (insert(), untimed: validation and the copy) and time update() on the host clock.
//
//   SIMLOD_BENCH_POINTS      points of the CUDA runs (default 100,000,000)
//   SIMLOD_BENCH_CPU_POINTS  points of the CPU runs (default 10,000,000)
//
// cuda_update/morton_backed backs an 8 GiB reserve with memory at create()
// (OctreeConfig::back_memory_at_create): the update without the memory growth steps.
//
// *_colour runs keep filtered voxel colours (OctreeConfig::sampling); the weighted runs include
// Octree::finalize() after the last batch (finalize_ms; on CUDA the bulk builder builds the
// tree again, timed on the host clock).
//
// *_quantized runs store leaf points as PointEncoding::Quantized16 (10 bytes a point; CUDA and
// CPU).
//
// *_channels_* runs keep attribute channels (OctreeConfig::channels): ic = intensity and
// classification (a 4-byte record per sample), all = every attribute (32 bytes); the
// attributes are made up per point and inserted with insert_now(points, attributes) (CUDA; the
// records' copy counts in upload_ms) or insert(points, attributes) (CPU, untimed).
//
// After the timed batches every run finishes its tree with Octree::compact() (default chunk
// capacity; host clock: compact_ms) and reports the memory per input point of the compacted
// tree (B_per_pt_compact_*).
//
// Counters: update_MPps (points / summed update time), avg/max_update_ms per batch,
// upload_ms (per batch) and upload_GBps, memory per input point by category (B_per_pt_*),
// nodes and depth of the finished tree. Repetitions report mean, median and spread.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench_env.hpp"
#include "bench_scene.hpp"
#include "simlod/backend.hpp"
#include "simlod/octree.hpp"
#include "simlod/synth.hpp"

namespace {

using simlod::bench::env_points;

using simlod::Point;
using simlod::bench::Order;
using simlod::bench::scene;
using simlod::bench::Scene;

constexpr std::size_t kBatchPoints = 1'000'000;  // SimLOD's batch size
constexpr int kRepetitions = 3;

constexpr simlod::AttributeMask kIc = simlod::attribute_bit(simlod::Attribute::Intensity) |
                                      simlod::attribute_bit(simlod::Attribute::Classification);
constexpr simlod::AttributeMask kAll = simlod::kAllAttributes;

/// Made-up attributes of `mask` for each batch of kBatchPoints of `n` points.
std::vector<simlod::PointAttributes> batch_attributes(std::uint64_t n, simlod::AttributeMask mask) {
  std::vector<simlod::PointAttributes> out;
  if (mask == 0) return out;
  for (std::uint64_t at = 0; at < n; at += kBatchPoints) {
    const std::size_t k = std::min<std::uint64_t>(kBatchPoints, n - at);
    simlod::PointAttributes& a = out.emplace_back();
    a.resize(mask, k);
    for (std::size_t j = 0; j < k; ++j) {
      const std::uint64_t i = at + j;
      a.intensity[j] = static_cast<std::uint16_t>(i * 40503u);
      a.classification[j] = static_cast<std::uint8_t>(i % 20);
      if (mask != kAll) continue;
      a.return_number[j] = static_cast<std::uint8_t>(1 + i % 3);
      a.number_of_returns[j] = 3;
      a.gps_time[j] = static_cast<double>(i) * 1e-3;
      a.scan_angle[j] = static_cast<float>(i % 60);
      a.point_source_id[j] = static_cast<std::uint16_t>(i >> 20);
      a.nir[j] = static_cast<std::uint16_t>(i);
    }
  }
  return out;
}

/// Memory per input point by category: B_per_pt_<prefix>points, ...voxels, ...grids, ...nodes
/// and ...total.
void report_memory(benchmark::State& state, const simlod::OctreeStats& s, std::uint64_t points,
                   const std::string& prefix) {
  const auto per_point = [&](std::uint64_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(points);
  };
  state.counters["B_per_pt_" + prefix + "points"] = per_point(s.bytes_points);
  state.counters["B_per_pt_" + prefix + "voxels"] = per_point(s.bytes_voxels);
  state.counters["B_per_pt_" + prefix + "grids"] = per_point(s.bytes_grids);
  state.counters["B_per_pt_" + prefix + "nodes"] = per_point(s.bytes_nodes);
  state.counters["B_per_pt_" + prefix + "total"] =
      per_point(s.bytes_points + s.bytes_voxels + s.bytes_grids + s.bytes_nodes);
  state.counters["B_per_pt_" + prefix + "reserved"] = per_point(s.bytes_reserved);
}

void report_tree(benchmark::State& state, const simlod::OctreeStats& s, std::uint64_t points) {
  const auto per_point = [&](std::uint64_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(points);
  };
  report_memory(state, s, points, "");
  state.counters["B_per_pt_filter"] = per_point(s.bytes_filter);
  std::uint64_t channels = 0;
  for (const std::uint64_t bytes : s.bytes_channels) channels += bytes;
  state.counters["B_per_pt_channels"] = per_point(channels);  // within points + voxels
  state.counters["nodes"] = static_cast<double>(s.nodes);
  state.counters["depth"] = s.depth;
}

/// Finishes `tree` with Octree::compact() and reports its time and the memory per point after.
void report_compact(benchmark::State& state, simlod::Octree& tree, std::uint64_t points) {
  const auto start = std::chrono::steady_clock::now();
  tree.compact();
  state.counters["compact_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  report_memory(state, tree.stats(), points, "compact_");
}

void report_batches(benchmark::State& state, std::uint64_t points, double total_ms, double max_ms,
                    std::size_t batches) {
  state.SetIterationTime(total_ms / 1000.0);
  state.counters["update_MPps"] = static_cast<double>(points) / (total_ms * 1000.0);
  state.counters["avg_update_ms"] = total_ms / static_cast<double>(batches);
  state.counters["max_update_ms"] = max_ms;
  state.counters["points"] = static_cast<double>(points);
}

/// `backed`: OctreeConfig::back_memory_at_create, so that no batch waits for memory to be
/// backed (the price of taking device memory as the tree grows, measured apart). `sampling`:
/// the voxel colours (Random and Average keep the voxel index exact batch by batch).
void cuda_update(benchmark::State& state, Order order, bool backed = false,
                 simlod::Sampling sampling = simlod::Sampling::FirstCome,
                 simlod::AttributeMask channels = 0,
                 simlod::PointEncoding encoding = simlod::PointEncoding::Float32) {
  if (simlod::cuda_device_count() == 0) {
    state.SkipWithError(("no CUDA device: " + simlod::cuda_unavailable_reason()).c_str());
    return;
  }
  const std::uint64_t n = env_points("SIMLOD_BENCH_POINTS", 100'000'000);
  const Scene& s = scene(n, order);
  simlod::OctreeConfig config;
  config.backend = simlod::Backend::Cuda;
  config.sampling = sampling;
  config.channels = channels;
  config.point_encoding = encoding;
  const std::vector<simlod::PointAttributes> attributes = batch_attributes(n, channels);
  if (backed) {  // the tree of 10^8 points holds about 3 GB: a reserve that fits it
    config.memory_bytes = std::uint64_t{8} << 30;
    config.back_memory_at_create = true;
  }
  const std::span<const Point> all(s.points);
  auto batch = [&](std::size_t i) {
    return all.subspan(i, std::min(kBatchPoints, all.size() - i));
  };
  auto insert = [&](simlod::Octree& tree, std::size_t i) {
    return channels == 0 ? tree.insert_now(batch(i))
                         : tree.insert_now(batch(i), attributes[i / kBatchPoints]);
  };
  {  // Warm-up: module load, first touch of the arena, the host's pinned pages.
    simlod::Octree warm = simlod::Octree::create(s.bounds, config);
    for (std::size_t i = 0; i < std::min<std::size_t>(all.size(), 3 * kBatchPoints);
         i += kBatchPoints) {
      (void)insert(warm, i);
    }
  }
  for (auto _ : state) {
    simlod::Octree tree = simlod::Octree::create(s.bounds, config);
    double total = 0.0, worst = 0.0, upload = 0.0;
    std::size_t batches = 0;
    for (std::size_t i = 0; i < all.size(); i += kBatchPoints, ++batches) {
      const simlod::UpdateStats t = insert(tree, i);
      total += t.device_update_ms;
      worst = std::max(worst, t.device_update_ms);
      upload += t.device_upload_ms;
    }
    const auto start = std::chrono::steady_clock::now();
    tree.finalize();  // Weighted: the colours, by building the tree again (a host-timed call)
    const double finalize_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    report_batches(state, n, total + finalize_ms, worst, batches);
    state.counters["finalize_ms"] = finalize_ms;
    if (const simlod::BuildStats f = tree.stats().finalize; f.points != 0) {
      state.counters["fin_split_ms"] = f.split_ms;  // the rebuild's kernels (CUDA events)
      state.counters["fin_voxelize_ms"] = f.voxelize_ms;
    }
    state.counters["upload_ms"] = upload / static_cast<double>(batches);
    const simlod::OctreeStats stats = tree.stats();
    state.counters["grow_steps"] = static_cast<double>(stats.memory_grow_steps);
    state.counters["grow_ms"] = stats.memory_grow_ms;
    state.counters["upload_GBps"] = static_cast<double>(n * sizeof(Point)) / (upload * 1e6);
    report_tree(state, stats, n);
    report_compact(state, tree, n);
  }
}

/// `sampling` Weighted: the time includes Octree::finalize() after the last batch (its
/// colours do not decompose per batch), reported apart as finalize_ms.
void cpu_update(benchmark::State& state, Order order,
                simlod::Sampling sampling = simlod::Sampling::FirstCome,
                simlod::AttributeMask channels = 0,
                simlod::PointEncoding encoding = simlod::PointEncoding::Float32) {
  using Clock = std::chrono::steady_clock;
  const std::uint64_t n = env_points("SIMLOD_BENCH_CPU_POINTS", 10'000'000);
  const Scene& s = scene(n, order);
  simlod::OctreeConfig config;
  config.backend = simlod::Backend::Cpu;
  config.sampling = sampling;
  config.channels = channels;
  config.point_encoding = encoding;
  const std::vector<simlod::PointAttributes> attributes = batch_attributes(n, channels);
  const std::span<const Point> all(s.points);
  for (auto _ : state) {
    simlod::Octree tree = simlod::Octree::create(s.bounds, config);
    double total = 0.0, worst = 0.0;
    std::size_t batches = 0;
    for (std::size_t i = 0; i < all.size(); i += kBatchPoints, ++batches) {
      const auto piece = all.subspan(i, std::min(kBatchPoints, all.size() - i));
      if (channels == 0) {
        tree.insert(piece);
      } else {
        tree.insert(piece, attributes[i / kBatchPoints]);
      }
      const auto start = Clock::now();
      (void)tree.update();
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      total += ms;
      worst = std::max(worst, ms);
    }
    const auto start = Clock::now();
    tree.finalize();
    const double finalize_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    report_batches(state, n, total + finalize_ms, worst, batches);
    state.counters["finalize_ms"] = finalize_ms;
    report_tree(state, tree.stats(), n);
    report_compact(state, tree, n);
  }
}

#define SIMLOD_OCTREE_BENCH(...) SIMLOD_MANUAL_BENCH(kRepetitions, __VA_ARGS__)

SIMLOD_OCTREE_BENCH(cuda_update, morton, Order::Morton);
SIMLOD_OCTREE_BENCH(cuda_update, scan, Order::Scan);
SIMLOD_OCTREE_BENCH(cuda_update, random, Order::Random);
SIMLOD_OCTREE_BENCH(cuda_update, morton_backed, Order::Morton, true);
SIMLOD_OCTREE_BENCH(cuda_update, scan_random_colour, Order::Scan, false, simlod::Sampling::Random);
SIMLOD_OCTREE_BENCH(cuda_update, scan_average_colour, Order::Scan, false,
                    simlod::Sampling::Average);
SIMLOD_OCTREE_BENCH(cuda_update, random_average_colour, Order::Random, false,
                    simlod::Sampling::Average);
SIMLOD_OCTREE_BENCH(cuda_update, scan_weighted_colour, Order::Scan, false,
                    simlod::Sampling::Weighted);
SIMLOD_OCTREE_BENCH(cuda_update, scan_channels_ic, Order::Scan, false, simlod::Sampling::FirstCome,
                    kIc);
SIMLOD_OCTREE_BENCH(cuda_update, scan_channels_all, Order::Scan, false, simlod::Sampling::FirstCome,
                    kAll);
SIMLOD_OCTREE_BENCH(cuda_update, scan_random_channels_ic, Order::Scan, false,
                    simlod::Sampling::Random, kIc);
SIMLOD_OCTREE_BENCH(cuda_update, scan_random_channels_all, Order::Scan, false,
                    simlod::Sampling::Random, kAll);
SIMLOD_OCTREE_BENCH(cuda_update, scan_average_channels_ic, Order::Scan, false,
                    simlod::Sampling::Average, kIc);
SIMLOD_OCTREE_BENCH(cuda_update, scan_average_channels_all, Order::Scan, false,
                    simlod::Sampling::Average, kAll);
SIMLOD_OCTREE_BENCH(cuda_update, scan_quantized, Order::Scan, false, simlod::Sampling::FirstCome, 0,
                    simlod::PointEncoding::Quantized16);
SIMLOD_OCTREE_BENCH(cuda_update, scan_random_channels_ic_quantized, Order::Scan, false,
                    simlod::Sampling::Random, kIc, simlod::PointEncoding::Quantized16);
SIMLOD_OCTREE_BENCH(cpu_update, morton, Order::Morton);
SIMLOD_OCTREE_BENCH(cpu_update, scan, Order::Scan);
SIMLOD_OCTREE_BENCH(cpu_update, random, Order::Random);
SIMLOD_OCTREE_BENCH(cpu_update, scan_random_colour, Order::Scan, simlod::Sampling::Random);
SIMLOD_OCTREE_BENCH(cpu_update, scan_average_colour, Order::Scan, simlod::Sampling::Average);
SIMLOD_OCTREE_BENCH(cpu_update, scan_weighted_colour, Order::Scan, simlod::Sampling::Weighted);
SIMLOD_OCTREE_BENCH(cpu_update, scan_channels_ic, Order::Scan, simlod::Sampling::FirstCome, kIc);
SIMLOD_OCTREE_BENCH(cpu_update, scan_random_channels_ic, Order::Scan, simlod::Sampling::Random,
                    kIc);
SIMLOD_OCTREE_BENCH(cpu_update, scan_average_channels_ic, Order::Scan, simlod::Sampling::Average,
                    kIc);
SIMLOD_OCTREE_BENCH(cpu_update, scan_quantized, Order::Scan, simlod::Sampling::FirstCome, 0,
                    simlod::PointEncoding::Quantized16);

}  // namespace

BENCHMARK_MAIN();
