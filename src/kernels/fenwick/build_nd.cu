// The two- and three-dimensional CUDA build (kernels/fenwick/fenwick_passes.cuh): the 64-bit
// prefix sums P of the values (scans along each axis), then every output word is written by one
// thread, which computes the entries overlapping it from P by inclusion and exclusion: no
// atomics, and the same bits as the CPU build.
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/fenwick/fenwick_passes.cuh"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;
/// A grid-stride pass needs no more blocks than fill the device (132 SMs x 32 on the GPU test
/// machine).
constexpr std::uint64_t kMaxBlocks = 4096;

/// Extents of the prefix-sum array: n + 1 along the axes used, 1 along the others.
struct PrefixShape {
  std::uint64_t m[3] = {1, 1, 1};
  __host__ __device__ std::uint64_t index(std::uint64_t a, std::uint64_t b, std::uint64_t c) const {
    return a + m[0] * (b + m[1] * c);
  }
  [[nodiscard]] __host__ __device__ std::uint64_t size() const { return m[0] * m[1] * m[2]; }
};

PrefixShape shape_of(const FenwickLayout& l) {
  PrefixShape s;
  for (std::uint32_t a = 0; a < l.dims; ++a) s.m[a] = l.n[a] + 1;
  return s;
}

/// The block (level combination) that holds word w.
__device__ std::uint64_t combo_of_word(const FenwickLayout& l, std::uint64_t w) {
  std::uint64_t lo = 0, hi = fenwick_combos(l);  // table[lo] <= w < table[hi]
  while (hi - lo > 1) {
    const std::uint64_t mid = (lo + hi) / 2;
    if (l.first_word[mid] <= w) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// The sum over the box whose sides run over [lo[a], hi[a]) (axes used), from P.
__device__ std::uint64_t box_from_prefix(const std::uint64_t* p, const PrefixShape& s,
                                         std::uint32_t dims, const std::uint64_t* lo,
                                         const std::uint64_t* hi) {
  return fenwick_box(dims, lo, hi,
                     [&](const std::uint64_t* c) { return p[s.index(c[0], c[1], c[2])]; });
}

/// Writes word w of the packed tree from the prefix sums p.
__global__ void pack_kernel(const std::uint64_t* p, PrefixShape s, FenwickLayout l,
                            std::uint32_t* words, std::uint64_t total) {
  const std::uint64_t data_words = l.first_word[fenwick_combos(l)];
  for (std::uint64_t w = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; w < total;
       w += std::uint64_t{gridDim.x} * blockDim.x) {
    if (w >= data_words) {
      words[w] = 0;  // padding
      continue;
    }
    const std::uint64_t c = combo_of_word(l, w);
    const std::uint32_t t[3] = {
        static_cast<std::uint32_t>(c / (std::uint64_t{l.levels[1]} * l.levels[2])),
        static_cast<std::uint32_t>((c / l.levels[2]) % l.levels[1]),
        static_cast<std::uint32_t>(c % l.levels[2])};
    const std::uint32_t width = l.bits + t[0] + t[1] + t[2];
    const std::uint64_t e[3] = {fenwick_level_entries(l.n[0], t[0]),
                                fenwick_level_entries(l.n[1], t[1]),
                                fenwick_level_entries(l.n[2], t[2])};
    const std::uint64_t entries = e[0] * e[1] * e[2];
    const std::uint64_t lo_bit = (w - l.first_word[c]) * 32;
    const std::uint64_t hi_bit = lo_bit + 32;
    std::uint32_t out = 0;
    for (std::uint64_t pos = lo_bit / width; pos < entries && pos * width < hi_bit; ++pos) {
      const std::uint64_t pa[3] = {pos % e[0], (pos / e[0]) % e[1], pos / (e[0] * e[1])};
      std::uint64_t lo[3], hi[3];
      for (std::uint32_t a = 0; a < 3; ++a) {
        const std::uint64_t k = (pa[a] << (t[a] + 1)) | ((std::uint64_t{1} << t[a]) - 1);
        hi[a] = k + 1;
        lo[a] = k + 1 - (std::uint64_t{1} << t[a]);
      }
      const std::uint64_t value = box_from_prefix(p, s, l.dims, lo, hi);
      const std::int64_t shift =
          static_cast<std::int64_t>(pos * width) - static_cast<std::int64_t>(lo_bit);
      out |= shift >= 0 ? static_cast<std::uint32_t>(value << shift)
                        : static_cast<std::uint32_t>(value >> (-shift));
    }
    const std::uint64_t block_bits = entries * width;
    if (hi_bit > block_bits) {
      const std::uint64_t keep = block_bits > lo_bit ? block_bits - lo_bit : 0;
      out &= keep >= 32 ? 0xFFFFFFFFu : ((1u << keep) - 1u);
    }
    words[w] = out;
  }
}

/// P[x + 1, y + 1, z + 1] = value (x, y, z) along the axes used; the rest of P is zeroed
/// before.
__global__ void widen_kernel(const std::uint32_t* values, FenwickLayout l, PrefixShape s,
                             std::uint64_t* p) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < l.total;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t x = i % l.n[0], y = (i / l.n[0]) % l.n[1], z = i / (l.n[0] * l.n[1]);
    p[s.index(x + 1, l.dims > 1 ? y + 1 : 0, l.dims > 2 ? z + 1 : 0)] = values[i];
  }
}

/// Inclusive sums along `axis`, one thread per line.
__global__ void scan_lines_kernel(std::uint64_t* p, PrefixShape s, std::uint32_t axis) {
  const std::uint64_t len = s.m[axis];
  const std::uint64_t lines = s.size() / len;
  for (std::uint64_t line = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; line < lines;
       line += std::uint64_t{gridDim.x} * blockDim.x) {
    // The line's other two coordinates, in axis order.
    std::uint64_t c[3] = {0, 0, 0};
    std::uint64_t rest = line;
    for (std::uint32_t a = 0; a < 3; ++a) {
      if (a == axis) continue;
      c[a] = rest % s.m[a];
      rest /= s.m[a];
    }
    std::uint64_t sum = 0;
    for (std::uint64_t i = 0; i < len; ++i) {
      c[axis] = i;
      std::uint64_t& v = p[s.index(c[0], c[1], c[2])];
      sum += v;
      v = sum;
    }
  }
}

__global__ void first_wide_kernel(const std::uint32_t* values, std::uint64_t n, std::uint64_t limit,
                                  unsigned long long* first) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (values[i] >= limit) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

unsigned grid_for(std::uint64_t n) { return blocks_for(n, kBlock, kMaxBlocks); }

}  // namespace

/// The 2D/3D build into `words`: check, prefix sums, pack. False when a value is too wide
/// (`first_bad` names it).
bool fenwick_build_nd(const std::uint32_t* d_values, const FenwickLayout& l, std::uint32_t* words,
                      std::uint64_t words_total, std::uint64_t& first_bad, double& ms) {
  const std::uint64_t n = l.total;
  const PrefixShape s = shape_of(l);
  DeviceMemory prefix = make_device(s.size() * sizeof(std::uint64_t), "the Fenwick prefix sums");
  auto* d_p = static_cast<std::uint64_t*>(prefix.get());
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
      return false;
    }
  }
  SIMLOD_CUDA_CHECK(cudaMemset(d_p, 0, s.size() * sizeof(std::uint64_t)));
  widen_kernel<<<grid_for(n), kBlock>>>(d_values, l, s, d_p);
  SIMLOD_CUDA_CHECK_LAUNCH("widen_kernel");
  for (std::uint32_t a = 0; a < l.dims; ++a) {
    scan_lines_kernel<<<grid_for(s.size() / s.m[a]), kBlock>>>(d_p, s, a);
    SIMLOD_CUDA_CHECK_LAUNCH("scan_lines_kernel");
  }
  pack_kernel<<<grid_for(words_total), kBlock>>>(d_p, s, l, words, words_total);
  SIMLOD_CUDA_CHECK_LAUNCH("pack_kernel");
  ms = timer.ms();
  return true;
}

}  // namespace simlod::detail::cuda
