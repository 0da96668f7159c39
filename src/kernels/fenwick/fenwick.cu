// FenwickIndex on CUDA (kernels/fenwick/fenwick_entry.hpp). The build scans the values once
// (CUB's exclusive sum into 64-bit prefix sums), then every output word is written by one
// thread, which computes the entries overlapping it from the prefix sums: no atomics, and the
// same bits as the CPU build.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/fenwick/fenwick_entry.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;

/// The level of word w (first_word[t] <= w < first_word[t + 1]).
__device__ std::uint32_t level_of_word(const FenwickLayout& l, std::uint64_t w) {
  std::uint32_t t = 0;
  while (t + 1 < l.levels && l.first_word[t + 1] <= w) ++t;
  return t;
}

/// Writes word w of the packed tree from the prefix sums p (p[i] = sum of values 0 .. i - 1).
__global__ void pack_kernel(const std::uint64_t* p, FenwickLayout l, std::uint32_t* words,
                            std::uint64_t total) {
  for (std::uint64_t w = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; w < total;
       w += std::uint64_t{gridDim.x} * blockDim.x) {
    if (w >= l.first_word[l.levels]) {
      words[w] = 0;  // padding
      continue;
    }
    const std::uint32_t t = level_of_word(l, w);
    const std::uint32_t width = l.bits + t;
    const std::uint64_t entries = fenwick_level_entries(l.n, t);
    const std::uint64_t lo = (w - l.first_word[t]) * 32;  // bits of the level
    const std::uint64_t hi = lo + 32;
    std::uint32_t out = 0;
    for (std::uint64_t e = lo / width; e < entries && e * width < hi; ++e) {
      const std::uint64_t k = (e << (t + 1)) | ((std::uint64_t{1} << t) - 1);
      const std::uint64_t value = p[k + 1] - p[k + 1 - (std::uint64_t{1} << t)];
      const std::int64_t shift =
          static_cast<std::int64_t>(e * width) - static_cast<std::int64_t>(lo);
      // Bits of the entry that fall into this word.
      if (shift >= 0) {
        out |= static_cast<std::uint32_t>(value << shift);
      } else {
        out |= static_cast<std::uint32_t>(value >> (-shift));
      }
    }
    // Bits beyond the level's last entry stay 0; an entry's value never exceeds its width.
    const std::uint64_t level_bits = entries * width;
    if (hi > level_bits) {
      const std::uint64_t keep = level_bits > lo ? level_bits - lo : 0;
      out &= keep >= 32 ? 0xFFFFFFFFu : ((1u << keep) - 1u);
    }
    words[w] = out;
  }
}

__global__ void widen_kernel(const std::uint32_t* values, std::uint64_t n, std::uint64_t* out) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    out[i] = values[i];
  }
}

/// The first index whose value is at least `limit` (atomicMin over the offenders).
__global__ void first_wide_kernel(const std::uint32_t* values, std::uint64_t n, std::uint64_t limit,
                                  unsigned long long* first) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (values[i] >= limit) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

__global__ void query_kernel(const std::uint32_t* words, FenwickLayout l, const std::uint64_t* ks,
                             std::uint64_t* out, std::size_t n, bool prefix) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = prefix ? fenwick_prefix(words, l, ks[i]) : fenwick_value(words, l, ks[i]);
  }
}

__global__ void values_kernel(const std::uint32_t* words, FenwickLayout l, std::uint32_t* out) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < l.n;
       k += std::uint64_t{gridDim.x} * blockDim.x) {
    out[k] = static_cast<std::uint32_t>(fenwick_value(words, l, k));
  }
}

__global__ void add_kernel(std::uint32_t* words, FenwickLayout l, std::uint64_t k,
                           std::int64_t delta) {
  for (std::uint64_t i = k; i < l.n; i |= i + 1) {
    fenwick_store(words, l, i, fenwick_entry(words, l, i) + static_cast<std::uint64_t>(delta));
  }
}

unsigned grid_for(std::uint64_t n) {
  int device = 0, sms = 0;
  SIMLOD_CUDA_CHECK(cudaGetDevice(&device));
  SIMLOD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::uint64_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<unsigned>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(blocks, static_cast<std::uint64_t>(sms) * 32)));
}

std::uint64_t total_words(const FenwickLayout& l) {
  return l.first_word[l.levels] + kFenwickPadWords;
}

/// Device time between its construction and elapsed_ms() (default stream).
class KernelTimer {
 public:
  KernelTimer() {
    SIMLOD_CUDA_CHECK(cudaEventCreate(&start_));
    SIMLOD_CUDA_CHECK(cudaEventCreate(&stop_));
    SIMLOD_CUDA_CHECK(cudaEventRecord(start_));
  }
  ~KernelTimer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;
  double elapsed_ms() {
    SIMLOD_CUDA_CHECK(cudaEventRecord(stop_));
    SIMLOD_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    SIMLOD_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

void* fenwick_build(const std::uint32_t* values, bool on_device, const FenwickLayout& l,
                    std::uint64_t& first_bad, double& ms) {
  const std::uint64_t n = l.n;
  DeviceMemory staged;
  const std::uint32_t* d_values = values;
  if (!on_device) {
    staged = make_device(n * sizeof(std::uint32_t), "the Fenwick tree's input");
    SIMLOD_CUDA_CHECK(
        cudaMemcpy(staged.get(), values, n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    d_values = static_cast<const std::uint32_t*>(staged.get());
  }
  first_bad = ~std::uint64_t{0};
  // Allocated before the timed part: the prefix sums, the scan's scratch and the tree.
  DeviceMemory wide = make_device((n + 1) * sizeof(std::uint64_t), "the Fenwick prefix sums");
  auto* d_wide = static_cast<std::uint64_t*>(wide.get());
  std::size_t temp_bytes = 0;
  SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_wide, d_wide, n + 1));
  DeviceMemory temp = make_device(std::max<std::size_t>(temp_bytes, 1), "the Fenwick scan");
  const std::uint64_t total = total_words(l);
  DeviceMemory words = make_device(total * sizeof(std::uint32_t), "the Fenwick tree");
  DeviceMemory first = make_device(sizeof(unsigned long long), "the Fenwick check");
  KernelTimer timer;
  if (l.bits < 32) {
    auto* d_first = static_cast<unsigned long long*>(first.get());
    SIMLOD_CUDA_CHECK(cudaMemset(d_first, 0xFF, sizeof(unsigned long long)));
    first_wide_kernel<<<grid_for(n), kBlock>>>(d_values, n, std::uint64_t{1} << l.bits, d_first);
    SIMLOD_CUDA_CHECK_LAUNCH("first_wide_kernel");
    unsigned long long host = 0;
    SIMLOD_CUDA_CHECK(cudaMemcpy(&host, d_first, sizeof(host), cudaMemcpyDeviceToHost));
    if (host != ~0ull) {
      first_bad = host;
      return nullptr;
    }
  }
  // 64-bit prefix sums p[0] = 0, p[i] = values 0 .. i - 1.
  widen_kernel<<<grid_for(n), kBlock>>>(d_values, n, d_wide);
  SIMLOD_CUDA_CHECK_LAUNCH("widen_kernel");
  SIMLOD_CUDA_CHECK(cudaMemset(d_wide + n, 0, sizeof(std::uint64_t)));
  SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, d_wide, d_wide, n + 1));
  pack_kernel<<<grid_for(total), kBlock>>>(d_wide, l, static_cast<std::uint32_t*>(words.get()),
                                           total);
  SIMLOD_CUDA_CHECK_LAUNCH("pack_kernel");
  ms = timer.elapsed_ms();
  return words.release();
}

void fenwick_free(void* words) noexcept { (void)cudaFree(words); }

void fenwick_query(const void* words, const FenwickLayout& l, const std::uint64_t* ks,
                   std::uint64_t* out, std::size_t n, bool prefix, double& ms) {
  if (n == 0) return;
  DeviceMemory keys = make_device(n * sizeof(std::uint64_t), "Fenwick query keys");
  DeviceMemory results = make_device(n * sizeof(std::uint64_t), "Fenwick query results");
  SIMLOD_CUDA_CHECK(cudaMemcpy(keys.get(), ks, n * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  KernelTimer timer;
  query_kernel<<<grid_for(n), kBlock>>>(static_cast<const std::uint32_t*>(words), l,
                                        static_cast<const std::uint64_t*>(keys.get()),
                                        static_cast<std::uint64_t*>(results.get()), n, prefix);
  SIMLOD_CUDA_CHECK_LAUNCH("query_kernel");
  ms = timer.elapsed_ms();
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out, results.get(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
}

void fenwick_values(const void* words, const FenwickLayout& l, std::uint32_t* out, double& ms) {
  DeviceMemory results = make_device(l.n * sizeof(std::uint32_t), "Fenwick values");
  KernelTimer timer;
  values_kernel<<<grid_for(l.n), kBlock>>>(static_cast<const std::uint32_t*>(words), l,
                                           static_cast<std::uint32_t*>(results.get()));
  SIMLOD_CUDA_CHECK_LAUNCH("values_kernel");
  ms = timer.elapsed_ms();
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out, results.get(), l.n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
}

void fenwick_add(void* words, const FenwickLayout& l, std::uint64_t k, std::int64_t delta) {
  add_kernel<<<1, 1>>>(static_cast<std::uint32_t*>(words), l, k, delta);
  SIMLOD_CUDA_CHECK_LAUNCH("add_kernel");
  SIMLOD_CUDA_CHECK(cudaDeviceSynchronize());
}

std::vector<std::uint32_t> fenwick_download(const void* words, std::uint64_t count) {
  std::vector<std::uint32_t> out(count);
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out.data(), words, count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace simlod::detail::cuda
