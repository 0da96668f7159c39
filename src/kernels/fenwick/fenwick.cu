// FenwickIndex on CUDA (kernels/fenwick/fenwick_entry.hpp): the executors and the general
// (2D/3D) queries. The builds and the one-dimensional fast paths are the passes of
// kernels/fenwick/fenwick_passes.cuh.
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/fenwick/fenwick_entry.hpp"
#include "kernels/fenwick/fenwick_passes.cuh"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;
/// A grid-stride pass needs no more blocks than fill the device (132 SMs x 32 on the GPU test
/// machine).
constexpr std::uint64_t kMaxBlocks = 4096;

__device__ std::uint64_t box_query(const std::uint32_t* words, const FenwickLayout& l,
                                   const std::uint64_t* lo, const std::uint64_t* hi) {
  return fenwick_box(l.dims, lo, hi,
                     [&](const std::uint64_t* c) { return fenwick_prefix(words, l, c); });
}

__global__ void query_kernel(const std::uint32_t* words, FenwickLayout l,
                             const std::uint64_t* coords, std::uint64_t* out, std::size_t n,
                             FenwickQuery kind) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    switch (kind) {
      case FenwickQuery::Prefix1:
      case FenwickQuery::Value1: break;  // fenwick_keys_1d
      case FenwickQuery::Prefix: out[i] = fenwick_prefix(words, l, coords + 3 * i); break;
      case FenwickQuery::Value: out[i] = fenwick_value(words, l, coords + 3 * i); break;
      case FenwickQuery::Box:
        out[i] = box_query(words, l, coords + 6 * i, coords + 6 * i + 3);
        break;
    }
  }
}

__global__ void values_kernel(const std::uint32_t* words, FenwickLayout l, std::uint32_t* out) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < l.total;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t k[3] = {i % l.n[0], (i / l.n[0]) % l.n[1], i / (l.n[0] * l.n[1])};
    out[i] = static_cast<std::uint32_t>(fenwick_value(words, l, k));
  }
}

__global__ void add_kernel(std::uint32_t* words, FenwickLayout l, std::uint64_t k0,
                           std::uint64_t k1, std::uint64_t k2, std::int64_t delta) {
  const std::uint64_t k[3] = {k0, k1, k2};
  fenwick_add(words, l, k, delta);
}

/// Blocks of a grid-stride pass over n items (enough to fill the device, no more).
unsigned grid_for(std::uint64_t n) { return blocks_for(n, kBlock, kMaxBlocks); }

}  // namespace

std::uint64_t* fenwick_upload_table(const std::vector<std::uint64_t>& table) {
  DeviceMemory d = make_device(table.size() * sizeof(std::uint64_t), "the Fenwick block table");
  SIMLOD_CUDA_CHECK(cudaMemcpy(d.get(), table.data(), table.size() * sizeof(std::uint64_t),
                               cudaMemcpyHostToDevice));
  return static_cast<std::uint64_t*>(d.release());
}

namespace {

/// The block table, read back from the device (fenwick_combos(l) + 1 entries).
std::vector<std::uint64_t> host_table(const FenwickLayout& l) {
  std::vector<std::uint64_t> table(fenwick_combos(l) + 1);
  SIMLOD_CUDA_CHECK(cudaMemcpy(table.data(), l.first_word, table.size() * sizeof(std::uint64_t),
                               cudaMemcpyDeviceToHost));
  return table;
}

/// The 1D build into `words` (fenwick_build_1d): one pass over the values, the check with it.
bool build_1d(const std::uint32_t* d_values, const FenwickLayout& l,
              const std::vector<std::uint64_t>& table, std::uint32_t* words,
              std::uint64_t words_total, std::uint64_t& first_bad, double& ms) {
  DeviceMemory sums =
      make_device(fenwick_tile_scratch(l.total) * sizeof(std::uint64_t), "the Fenwick tile sums");
  DeviceMemory first = make_device(sizeof(unsigned long long), "the Fenwick check");
  auto* d_first = static_cast<unsigned long long*>(first.get());
  KernelTimer timer;
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(words, 0, words_total * sizeof(std::uint32_t)));
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(d_first, 0xFF, sizeof(unsigned long long)));
  fenwick_build_1d(d_values, l, table.data(), words, d_first,
                   static_cast<std::uint64_t*>(sums.get()));
  ms = timer.ms();
  unsigned long long host = 0;
  SIMLOD_CUDA_CHECK(cudaMemcpy(&host, d_first, sizeof(host), cudaMemcpyDeviceToHost));
  first_bad = host;
  return host == ~0ull;
}

}  // namespace

void* fenwick_build(const std::uint32_t* values, bool on_device, const FenwickLayout& l,
                    std::uint64_t& first_bad, double& ms) {
  DeviceMemory staged;
  const std::uint32_t* d_values = values;
  if (!on_device) {
    staged = make_device(l.total * sizeof(std::uint32_t), "the Fenwick tree's input");
    SIMLOD_CUDA_CHECK(
        cudaMemcpy(staged.get(), values, l.total * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    d_values = static_cast<const std::uint32_t*>(staged.get());
  }
  first_bad = ~std::uint64_t{0};
  const std::vector<std::uint64_t> table = host_table(l);
  // Whole 16-byte blocks: the one-dimensional queries load an entry's aligned 16 bytes.
  const std::uint64_t words_total = (table.back() + kFenwickPadWords + 3) / 4 * 4;
  DeviceMemory words = make_device(words_total * sizeof(std::uint32_t), "the Fenwick tree");
  auto* d_words = static_cast<std::uint32_t*>(words.get());
  const bool ok = l.dims == 1 ? build_1d(d_values, l, table, d_words, words_total, first_bad, ms)
                              : fenwick_build_nd(d_values, l, d_words, words_total, first_bad, ms);
  return ok ? words.release() : nullptr;
}

void fenwick_free(void* p) noexcept { (void)cudaFree(p); }

void fenwick_query(const void* words, const FenwickLayout& l, const std::uint64_t* coords,
                   std::uint64_t* out, std::size_t n, FenwickQuery kind, double& ms) {
  if (n == 0) return;
  const std::size_t per = kind == FenwickQuery::Box                                     ? 6
                          : kind == FenwickQuery::Prefix || kind == FenwickQuery::Value ? 3
                                                                                        : 1;
  DeviceMemory keys = make_device(n * per * sizeof(std::uint64_t), "Fenwick query keys");
  DeviceMemory results = make_device(n * sizeof(std::uint64_t), "Fenwick query results");
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(keys.get(), coords, n * per * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  if (kind == FenwickQuery::Prefix1 || kind == FenwickQuery::Value1) {
    fenwick_keys_1d(
        static_cast<const std::uint32_t*>(words), l, static_cast<const std::uint64_t*>(keys.get()),
        static_cast<std::uint64_t*>(results.get()), n, kind == FenwickQuery::Prefix1, ms);
  } else {
    KernelTimer timer;
    query_kernel<<<grid_for(n), kBlock>>>(static_cast<const std::uint32_t*>(words), l,
                                          static_cast<const std::uint64_t*>(keys.get()),
                                          static_cast<std::uint64_t*>(results.get()), n, kind);
    SIMLOD_CUDA_CHECK_LAUNCH("query_kernel");
    ms = timer.ms();
  }
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out, results.get(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
}

void fenwick_values(const void* words, const FenwickLayout& l, std::uint32_t* out, double& ms) {
  DeviceMemory results = make_device(l.total * sizeof(std::uint32_t), "Fenwick values");
  KernelTimer timer;
  if (l.dims == 1) {
    fenwick_values_1d(static_cast<const std::uint32_t*>(words), l,
                      static_cast<std::uint32_t*>(results.get()));
  } else {
    values_kernel<<<grid_for(l.total), kBlock>>>(static_cast<const std::uint32_t*>(words), l,
                                                 static_cast<std::uint32_t*>(results.get()));
    SIMLOD_CUDA_CHECK_LAUNCH("values_kernel");
  }
  ms = timer.ms();
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out, results.get(), l.total * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
}

void fenwick_add(void* words, const FenwickLayout& l, const std::uint64_t* k, std::int64_t delta) {
  add_kernel<<<1, 1>>>(static_cast<std::uint32_t*>(words), l, k[0], k[1], k[2], delta);
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
