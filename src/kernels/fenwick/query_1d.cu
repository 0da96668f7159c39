// One-dimensional CUDA queries (kernels/fenwick/fenwick_passes.cuh). The block table goes into
// shared memory first: an entry's address then costs no dependent global load. A key's entries
// lie on distinct levels and none depends on another (fenwick_prefix_1d), so a thread loads up
// to four at once before it adds them. The reconstruction gives a warp 32 consecutive elements:
// each lane reads its own entry, and the entries it must subtract (k - 2^j, j < 5) are its
// neighbours' entries, passed by shuffles; only a lane ending a run of 32 or more reads more.
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/fenwick/fenwick_passes.cuh"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;
constexpr std::uint64_t kMaxBlocks = 4096;
/// Entries a thread has in flight at once.
constexpr unsigned kInFlight = 4;
/// Rows of 32 elements a warp reconstructs per step (independent loads).
constexpr unsigned kRows = 4;

__device__ void load_table(const FenwickLayout& l, std::uint64_t* table) {
  for (unsigned i = threadIdx.x; i <= l.levels[0]; i += blockDim.x) table[i] = l.first_word[i];
  __syncthreads();
}

/// The sum of the entries of the levels set in `mask` at k >> (t + 1); `top` receives the
/// entry of the highest such level. Any layout: 64-bit keys, entries up to 64 bits wide.
__device__ std::uint64_t levels_sum(const std::uint32_t* __restrict__ words,
                                    const std::uint64_t* table, std::uint32_t bits, std::uint64_t k,
                                    std::uint64_t mask, std::uint64_t& top) {
  std::uint64_t sum = 0;
  while (mask != 0) {
    std::uint32_t lo[kInFlight], hi[kInFlight], off[kInFlight], width[kInFlight];
    std::uint64_t w[kInFlight];
#pragma unroll
    for (unsigned u = 0; u < kInFlight; ++u) {
      width[u] = 0;
      if (mask != 0) {
        const std::uint32_t t = fenwick_trailing_zeros(mask);
        mask &= mask - 1;
        width[u] = bits + t;
        const std::uint64_t bit = table[t] * 32 + (k >> (t + 1)) * width[u];
        w[u] = bit >> 5;
        off[u] = static_cast<std::uint32_t>(bit & 31u);
        lo[u] = __ldg(words + w[u]);
        hi[u] = __ldg(words + w[u] + 1);
      }
    }
#pragma unroll
    for (unsigned u = 0; u < kInFlight; ++u) {
      if (width[u] == 0) continue;
      std::uint64_t v = ((std::uint64_t{hi[u]} << 32) | lo[u]) >> off[u];
      if (off[u] + width[u] > 64) v |= std::uint64_t{__ldg(words + w[u] + 2)} << (64 - off[u]);
      if (width[u] < 64) v &= (std::uint64_t{1} << width[u]) - 1;
      sum += v;
      top = v;
    }
  }
  return sum;
}

/// levels_sum for a narrow layout (fewer than 2^32 elements, entries at most 32 bits wide, so
/// keys, positions and entries fit 32 bits, and a 32-bit by 32-bit product gives an entry's
/// bit): half the instructions, which bound random queries (measured: the SMs issue at 84% of
/// their peak, memory at 57%).
__device__ std::uint64_t levels_sum_narrow(const std::uint32_t* __restrict__ words,
                                           const std::uint64_t* table, std::uint32_t bits,
                                           std::uint32_t k, std::uint32_t mask,
                                           std::uint32_t& top) {
  std::uint64_t sum = 0;
  while (mask != 0) {
    std::uint32_t lo[kInFlight], hi[kInFlight], off[kInFlight], width[kInFlight];
#pragma unroll
    for (unsigned u = 0; u < kInFlight; ++u) {
      width[u] = 0;
      if (mask != 0) {
        const std::uint32_t t = __ffs(static_cast<int>(mask)) - 1;
        mask &= mask - 1;
        width[u] = bits + t;
        const std::uint64_t bit = std::uint64_t{k >> 1 >> t} * width[u];
        const std::uint64_t w = table[t] + (bit >> 5);
        off[u] = static_cast<std::uint32_t>(bit) & 31u;
        lo[u] = __ldg(words + w);
        // The next word only when the entry reaches into it.
        hi[u] = off[u] + width[u] > 32 ? __ldg(words + w + 1) : 0u;
      }
    }
#pragma unroll
    for (unsigned u = 0; u < kInFlight; ++u) {
      if (width[u] == 0) continue;
      const std::uint32_t v =
          __funnelshift_r(lo[u], hi[u], off[u]) & (0xFFFFFFFFu >> (32 - width[u]));
      sum += v;
      top = v;
    }
  }
  return sum;
}

__global__ void __launch_bounds__(kBlock)
    keys_kernel(const std::uint32_t* __restrict__ words, FenwickLayout l, bool narrow,
                const std::uint64_t* __restrict__ keys, std::uint64_t* __restrict__ out,
                std::size_t n, bool prefix) {
  __shared__ std::uint64_t table[kFenwickMaxLevels + 1];
  load_table(l, table);
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint64_t k = keys[i];
    if (narrow) {
      const auto k32 = static_cast<std::uint32_t>(k);
      std::uint32_t top = 0;
      if (prefix) {
        out[i] = levels_sum_narrow(words, table, l.bits, k32, k32, top);
      } else {  // the entry of level t less those of levels 0 .. t - 1 (t < 32)
        const std::uint32_t t = fenwick_trailing_ones(k);
        const std::uint64_t all = levels_sum_narrow(words, table, l.bits, k32, (2u << t) - 1u, top);
        out[i] = std::uint64_t{top} - (all - top);
      }
      continue;
    }
    std::uint64_t top = 0;
    if (prefix) {
      out[i] = levels_sum(words, table, l.bits, k, k, top);
    } else {
      const std::uint32_t t = fenwick_trailing_ones(k);
      const std::uint64_t all =
          levels_sum(words, table, l.bits, k, (std::uint64_t{2} << t) - 1, top);
      out[i] = top - (all - top);
    }
  }
}

/// The low 32 bits of entry p of level t (all the reconstruction needs: elements fit 32 bits).
__device__ std::uint32_t entry_low(const std::uint32_t* __restrict__ words,
                                   const std::uint64_t* table, std::uint32_t bits, std::uint32_t t,
                                   std::uint64_t p) {
  const std::uint32_t width = bits + t;
  const std::uint64_t bit = table[t] * 32 + p * width;
  const std::uint64_t w = bit >> 5;
  const std::uint32_t v =
      __funnelshift_r(__ldg(words + w), __ldg(words + w + 1), static_cast<std::uint32_t>(bit));
  return width >= 32 ? v : v & ((1u << width) - 1u);
}

__global__ void __launch_bounds__(kBlock)
    values_kernel(const std::uint32_t* __restrict__ words, FenwickLayout l,
                  std::uint32_t* __restrict__ out) {
  __shared__ std::uint64_t table[kFenwickMaxLevels + 1];
  load_table(l, table);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * (blockDim.x / 32);
  const std::uint64_t steps = (l.total + 32 * kRows - 1) / (32 * kRows);
  for (std::uint64_t s = blockIdx.x * std::uint64_t{blockDim.x / 32} + threadIdx.x / 32; s < steps;
       s += warps) {
    std::uint64_t k[kRows];
    std::uint32_t t[kRows], e[kRows];
#pragma unroll
    for (unsigned r = 0; r < kRows; ++r) {
      k[r] = (s * kRows + r) * 32 + lane;
      t[r] = fenwick_trailing_ones(k[r]);
      e[r] = k[r] < l.total ? entry_low(words, table, l.bits, t[r], k[r] >> (t[r] + 1)) : 0;
    }
#pragma unroll
    for (unsigned r = 0; r < kRows; ++r) {
      std::uint32_t sub = 0;
#pragma unroll
      for (unsigned j = 0; j < 5; ++j) {
        const std::uint32_t v = __shfl_up_sync(0xFFFFFFFFu, e[r], 1u << j);
        if (j < t[r]) sub += v;
      }
      if (k[r] >= l.total) continue;  // after the shuffles, which every lane joins
      for (std::uint32_t j = 5; j < t[r]; ++j) {
        sub += entry_low(words, table, l.bits, j, k[r] >> (j + 1));
      }
      out[k[r]] = e[r] - sub;  // modulo 2^32: exact, elements fit
    }
  }
}

}  // namespace

void fenwick_keys_1d(const std::uint32_t* d_words, const FenwickLayout& l,
                     const std::uint64_t* d_keys, std::uint64_t* d_out, std::size_t n, bool prefix,
                     double& ms) {
  // Narrow: keys below 2^32 and entries of at most 32 bits (b + levels - 1 <= 32).
  const bool narrow = l.total < (std::uint64_t{1} << 32) && l.bits + l.levels[0] - 1 <= 32;
  // As much L1 as the SM has: the kernel's shared memory is its 34-entry table, and a random
  // key's entries on the middle levels are reused from L1 when it is large. Set on every call:
  // the attribute belongs to the current device.
  SIMLOD_CUDA_CHECK(
      cudaFuncSetAttribute(keys_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  KernelTimer timer;
  keys_kernel<<<blocks_for(n, kBlock, kMaxBlocks), kBlock>>>(d_words, l, narrow, d_keys, d_out, n,
                                                             prefix);
  SIMLOD_CUDA_CHECK_LAUNCH("fenwick keys_kernel");
  ms = timer.ms();
}

void fenwick_values_1d(const std::uint32_t* d_words, const FenwickLayout& l, std::uint32_t* d_out) {
  const std::uint64_t threads = (l.total + kRows - 1) / kRows;
  values_kernel<<<blocks_for(threads, kBlock, kMaxBlocks), kBlock>>>(d_words, l, d_out);
  SIMLOD_CUDA_CHECK_LAUNCH("fenwick values_kernel");
}

}  // namespace simlod::detail::cuda
