// FenwickIndex: build rate, point queries in order (the paper's reconstruction) and in random
// order, and prefix (rank) queries, for 1-bit elements at log2 N = 22 and 28 (the paper's
// workload) on CUDA, and N = 2^22 on the CPU; the same for the plain alternative, RankBitmap
// (bits plus a count per 128-bit block); and, as the yardstick of the build, a device-to-device
// copy of 2^28 4-byte values on the same GPU (GB_per_s counts the bytes read and written). Times
// are the index's own (last_ms: CUDA events around the kernels, copies to and from the host not
// counted; the CPU's wall clock). Each benchmark does one warm-up call, then 7 repetitions; the
// tables report medians.
//
// Counters: Gelements_per_s (build: elements / time), GB_per_s (build: input bytes / time),
// Gqueries_per_s, bits_per_element (the tree's size).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "bench_env.hpp"
#include "simlod/fenwick.hpp"
#include "simlod/rank_bitmap.hpp"

#if SIMLOD_BENCH_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using simlod::Backend;
using simlod::FenwickIndex;
using simlod::RankBitmap;

/// Random bits (half set), made once per size.
const std::vector<std::uint32_t>& bits_of(std::uint32_t log2n) {
  static std::map<std::uint32_t, std::vector<std::uint32_t>> cache;
  auto& v = cache[log2n];
  if (v.empty()) {
    std::mt19937_64 rng(log2n);
    v.resize(std::size_t{1} << log2n);
    for (std::size_t i = 0; i < v.size(); i += 64) {
      const std::uint64_t r = rng();
      for (std::size_t j = 0; j < 64 && i + j < v.size(); ++j) {
        v[i + j] = static_cast<std::uint32_t>((r >> j) & 1u);
      }
    }
  }
  return v;
}

/// The index of `log2n` bits on `backend`, built once.
FenwickIndex& index_of(Backend backend, std::uint32_t log2n) {
  static std::map<std::pair<int, std::uint32_t>, std::unique_ptr<FenwickIndex>> cache;
  auto& slot = cache[{static_cast<int>(backend), log2n}];
  if (!slot) slot = std::make_unique<FenwickIndex>(FenwickIndex::build(bits_of(log2n), 1, backend));
  return *slot;
}

RankBitmap& bitmap_of(Backend backend, std::uint32_t log2n) {
  static std::map<std::pair<int, std::uint32_t>, std::unique_ptr<RankBitmap>> cache;
  auto& slot = cache[{static_cast<int>(backend), log2n}];
  if (!slot) slot = std::make_unique<RankBitmap>(RankBitmap::build(bits_of(log2n), backend));
  return *slot;
}

/// False (the benchmark skipped) where a CUDA case has no device.
bool runnable(benchmark::State& state, Backend backend) {
  if (backend == Backend::Cuda && simlod::cuda_device_count() == 0) {
    state.SkipWithError(("no CUDA device: " + simlod::cuda_unavailable_reason()).c_str());
    return false;
  }
  return true;
}

std::vector<std::uint64_t> random_keys(std::uint64_t n, std::uint64_t below) {
  std::mt19937_64 rng(n ^ below);
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = rng() % below;
  return keys;
}

void build(benchmark::State& state, Backend backend, std::uint32_t log2n) {
  if (!runnable(state, backend)) return;
  const auto& v = bits_of(log2n);
  (void)FenwickIndex::build(v, 1, backend);  // warm-up
  double bits = 0;
  for (auto _ : state) {
    const FenwickIndex f = FenwickIndex::build(v, 1, backend);
    state.SetIterationTime(f.last_ms() / 1e3);
    bits = 8.0 * static_cast<double>(f.bytes()) / static_cast<double>(v.size());
  }
  state.counters["Gelements_per_s"] = benchmark::Counter(
      static_cast<double>(v.size()) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GB_per_s"] = benchmark::Counter(4.0 * static_cast<double>(v.size()) / 1e9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bits_per_element"] = bits;
}

/// Every element in order: one thread per element, each about two entry reads.
void values_in_order(benchmark::State& state, Backend backend, std::uint32_t log2n) {
  if (!runnable(state, backend)) return;
  const FenwickIndex& f = index_of(backend, log2n);
  std::vector<std::uint32_t> out(f.size());
  f.values(out);  // warm-up
  for (auto _ : state) {
    f.values(out);
    state.SetIterationTime(f.last_ms() / 1e3);
  }
  if (out != bits_of(log2n)) state.SkipWithError("the reconstruction differs from the input");
  state.counters["Gqueries_per_s"] = benchmark::Counter(
      static_cast<double>(f.size()) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

/// Point queries (prefix = false) or prefix / rank queries (true) at random keys, in the order
/// drawn or sorted (`sorted`: a batch of positions in ascending order, such as the ranks of a
/// sorted list of items).
void random_queries(benchmark::State& state, Backend backend, std::uint32_t log2n, bool prefix,
                    bool sorted = false) {
  if (!runnable(state, backend)) return;
  const FenwickIndex& f = index_of(backend, log2n);
  const std::uint64_t n = std::min<std::uint64_t>(f.size(), std::uint64_t{1} << 24);
  auto keys = random_keys(n, f.size());
  if (sorted) std::sort(keys.begin(), keys.end());
  std::vector<std::uint64_t> out(n);
  prefix ? f.prefix(keys, out) : f.value(keys, out);  // warm-up
  for (auto _ : state) {
    prefix ? f.prefix(keys, out) : f.value(keys, out);
    state.SetIterationTime(f.last_ms() / 1e3);
  }
  state.counters["Gqueries_per_s"] = benchmark::Counter(
      static_cast<double>(n) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void bitmap_build(benchmark::State& state, Backend backend, std::uint32_t log2n) {
  if (!runnable(state, backend)) return;
  const auto& v = bits_of(log2n);
  (void)RankBitmap::build(v, backend);  // warm-up
  double bits = 0;
  for (auto _ : state) {
    const RankBitmap b = RankBitmap::build(v, backend);
    state.SetIterationTime(b.last_ms() / 1e3);
    bits = 8.0 * static_cast<double>(b.bytes()) / static_cast<double>(v.size());
  }
  state.counters["Gelements_per_s"] = benchmark::Counter(
      static_cast<double>(v.size()) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GB_per_s"] = benchmark::Counter(4.0 * static_cast<double>(v.size()) / 1e9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bits_per_element"] = bits;
}

void bitmap_in_order(benchmark::State& state, Backend backend, std::uint32_t log2n) {
  if (!runnable(state, backend)) return;
  const RankBitmap& b = bitmap_of(backend, log2n);
  std::vector<std::uint32_t> out(b.size());
  b.values(out);  // warm-up
  for (auto _ : state) {
    b.values(out);
    state.SetIterationTime(b.last_ms() / 1e3);
  }
  if (out != bits_of(log2n)) state.SkipWithError("the bits read back differ from the input");
  state.counters["Gqueries_per_s"] = benchmark::Counter(
      static_cast<double>(b.size()) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void bitmap_rank(benchmark::State& state, Backend backend, std::uint32_t log2n) {
  if (!runnable(state, backend)) return;
  const RankBitmap& b = bitmap_of(backend, log2n);
  const std::uint64_t n = std::min<std::uint64_t>(b.size(), std::uint64_t{1} << 24);
  const auto keys = random_keys(n, b.size());
  std::vector<std::uint64_t> out(n);
  b.rank(keys, out);  // warm-up
  for (auto _ : state) {
    b.rank(keys, out);
    state.SetIterationTime(b.last_ms() / 1e3);
  }
  state.counters["Gqueries_per_s"] = benchmark::Counter(
      static_cast<double>(n) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

/// A device-to-device copy of 2^log2n 4-byte values (cudaMemcpy, CUDA events).
void device_copy(benchmark::State& state, std::uint32_t log2n) {
  if (!runnable(state, Backend::Cuda)) return;
#if SIMLOD_BENCH_HAS_CUDA
  const std::size_t bytes = std::size_t{4} << log2n;
  void *from = nullptr, *to = nullptr;
  if (cudaMalloc(&from, bytes) != cudaSuccess || cudaMalloc(&to, bytes) != cudaSuccess) {
    state.SkipWithError("no device memory for the copy");
    cudaFree(from);
    return;
  }
  cudaMemset(from, 1, bytes);
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice);  // warm-up
  for (auto _ : state) {
    cudaEventRecord(start);
    cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms / 1e3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(from);
  cudaFree(to);
  state.counters["GB_per_s"] = benchmark::Counter(2.0 * static_cast<double>(bytes) / 1e9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
#else
  (void)log2n;
  state.SkipWithError("built without CUDA");
#endif
}

}  // namespace

SIMLOD_MANUAL_BENCH(7, device_copy, Cuda_log28, 28);
SIMLOD_MANUAL_BENCH(7, build, Cuda_log22, Backend::Cuda, 22);
SIMLOD_MANUAL_BENCH(7, build, Cuda_log28, Backend::Cuda, 28);
SIMLOD_MANUAL_BENCH(7, values_in_order, Cuda_log22, Backend::Cuda, 22);
SIMLOD_MANUAL_BENCH(7, values_in_order, Cuda_log28, Backend::Cuda, 28);
SIMLOD_MANUAL_BENCH(7, random_queries, Cuda_value_log22, Backend::Cuda, 22, false);
SIMLOD_MANUAL_BENCH(7, random_queries, Cuda_value_log28, Backend::Cuda, 28, false);
SIMLOD_MANUAL_BENCH(7, random_queries, Cuda_rank_log22, Backend::Cuda, 22, true);
SIMLOD_MANUAL_BENCH(7, random_queries, Cuda_rank_log28, Backend::Cuda, 28, true);
SIMLOD_MANUAL_BENCH(7, random_queries, Cuda_rank_sorted_log22, Backend::Cuda, 22, true, true);
SIMLOD_MANUAL_BENCH(7, random_queries, Cuda_rank_sorted_log28, Backend::Cuda, 28, true, true);
SIMLOD_MANUAL_BENCH(7, build, Cpu_log22, Backend::Cpu, 22);
SIMLOD_MANUAL_BENCH(7, values_in_order, Cpu_log22, Backend::Cpu, 22);
SIMLOD_MANUAL_BENCH(7, random_queries, Cpu_value_log22, Backend::Cpu, 22, false);
SIMLOD_MANUAL_BENCH(7, random_queries, Cpu_rank_log22, Backend::Cpu, 22, true);

SIMLOD_MANUAL_BENCH(7, bitmap_build, Cuda_log22, Backend::Cuda, 22);
SIMLOD_MANUAL_BENCH(7, bitmap_build, Cuda_log28, Backend::Cuda, 28);
SIMLOD_MANUAL_BENCH(7, bitmap_in_order, Cuda_log28, Backend::Cuda, 28);
SIMLOD_MANUAL_BENCH(7, bitmap_rank, Cuda_log22, Backend::Cuda, 22);
SIMLOD_MANUAL_BENCH(7, bitmap_rank, Cuda_log28, Backend::Cuda, 28);
SIMLOD_MANUAL_BENCH(7, bitmap_build, Cpu_log22, Backend::Cpu, 22);
SIMLOD_MANUAL_BENCH(7, bitmap_rank, Cpu_log22, Backend::Cpu, 22);

BENCHMARK_MAIN();
