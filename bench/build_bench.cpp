// Bulk build throughput (Octree::build, CudaLOD's use case): a synthetic scene in scan, Morton
// and random order. CUDA runs build from a DeviceBatch that already holds the points, as
// CudaLOD times its kernels (no I/O, no upload), and report the device time of the split and
// of the voxelization from CUDA events (BuildStats); CPU runs time the build on the host.
//
//   SIMLOD_BENCH_POINTS           points of the CUDA runs (default 100,000,000)
//   SIMLOD_BENCH_LARGE_POINTS     points of the cuda_build/scan_large run (default 500,000,000;
//                                 0 leaves it out)
//   SIMLOD_BENCH_CPU_POINTS       points of the CPU runs (default 10,000,000)
//
// Runs named *_random_colour / *_average_colour / *_weighted_colour build with
// Sampling::Random / Average / Weighted; *_channels_ic keep intensity and classification
// (made up per point) through Octree::build(points, attributes, ...) from host memory.
// B_per_pt_channels: the channels' memory per input point. *_quantized runs store leaf points
// as PointEncoding::Quantized16 (10 bytes a point).
//
// Counters: build_MPps (points / (split + voxelize)), split_ms, voxelize_ms, total_ms (the
// whole build() call), memory per input point of the finished tree (B_per_pt_tree), of the
// builder's scratch (B_per_pt_scratch) and of that the voxel colours' accumulators
// (B_per_pt_filter), nodes and depth; then Octree::compact() of the tree (compact_ms,
// B_per_pt_compact). Median of 5 after a warm-up build.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "bench_env.hpp"
#include "bench_scene.hpp"
#include "simlod/attributes.hpp"
#include "simlod/backend.hpp"
#include "simlod/device_batch.hpp"
#include "simlod/octree.hpp"

namespace {

using simlod::Point;
using simlod::bench::env_points;
using simlod::bench::Order;
using simlod::bench::scene;

constexpr int kRepetitions = 5;

/// The build's counters, then the tree finished by Octree::compact() (default chunk capacity;
/// host clock: compact_ms; B_per_pt_compact: the compacted tree per input point).
void report(benchmark::State& state, simlod::Octree& tree, std::uint64_t n) {
  const simlod::OctreeStats s = tree.stats();
  const simlod::BuildStats& b = s.build;
  const double ms = b.split_ms + b.voxelize_ms;
  state.SetIterationTime(ms / 1000.0);
  const auto per_point = [&](std::uint64_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(n);
  };
  state.counters["build_MPps"] = static_cast<double>(n) / (ms * 1000.0);
  state.counters["split_ms"] = b.split_ms;
  state.counters["voxelize_ms"] = b.voxelize_ms;
  state.counters["total_ms"] = b.total_ms;
  state.counters["B_per_pt_tree"] =
      per_point(s.bytes_points + s.bytes_voxels + s.bytes_grids + s.bytes_nodes);
  state.counters["B_per_pt_scratch"] = per_point(b.scratch_bytes);
  state.counters["B_per_pt_filter"] = per_point(b.filter_bytes);
  std::uint64_t channels = 0;
  for (const std::uint64_t bytes : s.bytes_channels) channels += bytes;
  state.counters["B_per_pt_channels"] = per_point(channels);
  state.counters["points"] = static_cast<double>(n);
  state.counters["nodes"] = static_cast<double>(s.nodes);
  state.counters["depth"] = s.depth;
  const auto start = std::chrono::steady_clock::now();
  tree.compact();
  state.counters["compact_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const simlod::OctreeStats c = tree.stats();
  state.counters["B_per_pt_compact"] =
      per_point(c.bytes_points + c.bytes_voxels + c.bytes_grids + c.bytes_nodes);
}

void cuda_build(benchmark::State& state, Order order, bool large,
                simlod::Sampling sampling = simlod::Sampling::FirstCome,
                simlod::PointEncoding encoding = simlod::PointEncoding::Float32) {
  if (simlod::cuda_device_count() == 0) {
    state.SkipWithError(("no CUDA device: " + simlod::cuda_unavailable_reason()).c_str());
    return;
  }
  const std::uint64_t n = large ? env_points("SIMLOD_BENCH_LARGE_POINTS", 500'000'000)
                                : env_points("SIMLOD_BENCH_POINTS", 100'000'000);
  const auto& s = scene(n, order);
  simlod::OctreeConfig config;
  config.backend = simlod::Backend::Cuda;
  config.sampling = sampling;
  config.point_encoding = encoding;
  auto batch = std::make_unique<simlod::DeviceBatch>(n, config.device);
  for (std::size_t at = 0; at < n;) {
    const auto piece = batch->piece();
    const std::size_t k = std::min(piece.size(), n - at);
    std::copy_n(s.points.begin() + static_cast<std::ptrdiff_t>(at), k, piece.begin());
    batch->commit(k);
    at += k;
  }
  if (batch->check(simlod::Octree::root_cube(s.bounds))) {
    state.SkipWithError("the scene has a bad point");
    return;
  }
  (void)simlod::Octree::build(*batch, s.bounds, config);  // warm-up: module load, first touch
  for (auto _ : state) {
    simlod::Octree tree = simlod::Octree::build(*batch, s.bounds, config);
    report(state, tree, n);
  }
}

constexpr simlod::AttributeMask kIc = simlod::attribute_bit(simlod::Attribute::Intensity) |
                                      simlod::attribute_bit(simlod::Attribute::Classification);

/// Made-up intensity and classification of n points (kIc), none when `channels` is 0.
simlod::PointAttributes ic_attributes(simlod::AttributeMask channels, std::uint64_t n) {
  simlod::PointAttributes attributes;
  if (channels == 0) return attributes;
  attributes.resize(channels, n);
  for (std::uint64_t i = 0; i < n; ++i) {
    attributes.intensity[i] = static_cast<std::uint16_t>(i * 2654435761u >> 16);
    attributes.classification[i] = static_cast<std::uint8_t>(1 + i / 4096 % 18);
  }
  return attributes;
}

/// A build from host points and (with channels) attributes: CPU builds time the host; CUDA
/// builds (a DeviceBatch carries no attributes) hold the upload in total_ms, while split_ms and
/// voxelize_ms are device time, after a warm-up build.
void host_build(benchmark::State& state, simlod::Backend backend, Order order,
                simlod::Sampling sampling, simlod::AttributeMask channels) {
  const bool cuda = backend == simlod::Backend::Cuda;
  if (cuda && simlod::cuda_device_count() == 0) {
    state.SkipWithError(("no CUDA device: " + simlod::cuda_unavailable_reason()).c_str());
    return;
  }
  const std::uint64_t n = cuda ? env_points("SIMLOD_BENCH_POINTS", 100'000'000)
                               : env_points("SIMLOD_BENCH_CPU_POINTS", 10'000'000);
  const auto& s = scene(n, order);
  simlod::OctreeConfig config;
  config.backend = backend;
  config.sampling = sampling;
  config.channels = channels;
  const simlod::PointAttributes attributes = ic_attributes(channels, n);
  const auto build = [&] {
    return channels != 0 ? simlod::Octree::build(s.points, attributes, s.bounds, config)
                         : simlod::Octree::build(s.points, s.bounds, config);
  };
  if (cuda) (void)build();  // warm-up: module load, first touch
  for (auto _ : state) {
    simlod::Octree tree = build();
    report(state, tree, n);
  }
}

void cuda_build_host(benchmark::State& state, Order order, simlod::Sampling sampling,
                     simlod::AttributeMask channels) {
  host_build(state, simlod::Backend::Cuda, order, sampling, channels);
}

void cpu_build(benchmark::State& state, Order order,
               simlod::Sampling sampling = simlod::Sampling::FirstCome,
               simlod::AttributeMask channels = 0) {
  host_build(state, simlod::Backend::Cpu, order, sampling, channels);
}

#define SIMLOD_BUILD_BENCH(...) SIMLOD_MANUAL_BENCH(kRepetitions, __VA_ARGS__)

SIMLOD_BUILD_BENCH(cuda_build, scan, Order::Scan, false);
SIMLOD_BUILD_BENCH(cuda_build, morton, Order::Morton, false);
SIMLOD_BUILD_BENCH(cuda_build, random, Order::Random, false);
SIMLOD_BUILD_BENCH(cuda_build, scan_large, Order::Scan, true);
SIMLOD_BUILD_BENCH(cuda_build, scan_random_colour, Order::Scan, false, simlod::Sampling::Random);
SIMLOD_BUILD_BENCH(cuda_build, scan_average_colour, Order::Scan, false, simlod::Sampling::Average);
SIMLOD_BUILD_BENCH(cuda_build, scan_weighted_colour, Order::Scan, false,
                   simlod::Sampling::Weighted);
SIMLOD_BUILD_BENCH(cuda_build, random_weighted_colour, Order::Random, false,
                   simlod::Sampling::Weighted);
SIMLOD_BUILD_BENCH(cuda_build, scan_large_weighted_colour, Order::Scan, true,
                   simlod::Sampling::Weighted);
SIMLOD_BUILD_BENCH(cuda_build, random_random_colour, Order::Random, false,
                   simlod::Sampling::Random);
SIMLOD_BUILD_BENCH(cuda_build, random_average_colour, Order::Random, false,
                   simlod::Sampling::Average);
SIMLOD_BUILD_BENCH(cuda_build, scan_large_random_colour, Order::Scan, true,
                   simlod::Sampling::Random);
SIMLOD_BUILD_BENCH(cuda_build, scan_large_average_colour, Order::Scan, true,
                   simlod::Sampling::Average);
SIMLOD_BUILD_BENCH(cuda_build, scan_quantized, Order::Scan, false, simlod::Sampling::FirstCome,
                   simlod::PointEncoding::Quantized16);
SIMLOD_BUILD_BENCH(cuda_build, scan_large_quantized, Order::Scan, true, simlod::Sampling::FirstCome,
                   simlod::PointEncoding::Quantized16);
SIMLOD_BUILD_BENCH(cuda_build_host, scan, Order::Scan, simlod::Sampling::FirstCome, 0);
SIMLOD_BUILD_BENCH(cuda_build_host, scan_channels_ic, Order::Scan, simlod::Sampling::FirstCome,
                   kIc);
SIMLOD_BUILD_BENCH(cuda_build_host, scan_random_channels_ic, Order::Scan, simlod::Sampling::Random,
                   kIc);
SIMLOD_BUILD_BENCH(cpu_build, scan, Order::Scan);
SIMLOD_BUILD_BENCH(cpu_build, random, Order::Random);
SIMLOD_BUILD_BENCH(cpu_build, scan_random_colour, Order::Scan, simlod::Sampling::Random);
SIMLOD_BUILD_BENCH(cpu_build, scan_average_colour, Order::Scan, simlod::Sampling::Average);
SIMLOD_BUILD_BENCH(cpu_build, scan_weighted_colour, Order::Scan, simlod::Sampling::Weighted);
SIMLOD_BUILD_BENCH(cpu_build, scan_channels_ic, Order::Scan, simlod::Sampling::FirstCome, kIc);
SIMLOD_BUILD_BENCH(cpu_build, scan_random_channels_ic, Order::Scan, simlod::Sampling::Random, kIc);

}  // namespace

BENCHMARK_MAIN();
