// The V-map's links on CUDA (kernels/visibility/map_passes.cuh; the rules in
// core/cpu/visibility/links.cpp). The level lists come from the host; per level one thread per
// node pair ANDs the bits of its child pairs (a warp ballots 32 pairs into a word), then the
// pairs of the level below that become links are counted and written out (a count pass, one
// atomic per warp, then a fill pass into exactly that room); csr.cu sorts them into lists.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/upload.cuh"
#include "kernels/visibility/map_passes.cuh"
#include "kernels/visibility/pair_index.cuh"
#include "kernels/visibility/visibility_entry.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;
constexpr std::uint64_t kMaxBlocks = 4096;

__device__ bool bit_of(const std::uint32_t* bits, std::uint64_t index) {
  return ((bits[index >> 5] >> (index & 31u)) & 1u) != 0;
}

/// The loop of the pair kernels: a warp takes 32 consecutive pair indices of n entries at a
/// time (a grid-stride loop); bit(idx) gives a lane's bit (called for idx < pairs only), and
/// word(base, lane, set, ballot) gets the lane's bit and the warp's 32 bits (every lane calls
/// it, so it may use warp collectives).
template <class Bit, class Word>
__device__ void for_each_pair_word(std::uint64_t n, Bit&& bit, Word&& word) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t pairs = pair_count(n);
  const std::uint64_t warps = std::uint64_t{gridDim.x} * (blockDim.x / 32);
  for (std::uint64_t base = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x - lane;
       base < pairs; base += warps * 32) {
    const bool set = base + lane < pairs && bit(base + lane);
    word(base, lane, set, __ballot_sync(0xFFFFFFFFu, set));
  }
}

/// Lane 0 stores the warp's 32 bits: word base / 32 of `out`.
struct StoreWord {
  std::uint32_t* out;
  __device__ void operator()(std::uint64_t base, unsigned lane, bool, std::uint32_t bits) const {
    if (lane == 0) out[base >> 5] = bits;
  }
};

/// Level D's bits from the leaf matrix: entry e is leaf leaf_of[e].
__global__ void bottom_kernel(const std::uint32_t* __restrict__ leaf_of, std::uint64_t n,
                              std::uint64_t leaves, const std::uint32_t* __restrict__ matrix,
                              std::uint32_t* __restrict__ out) {
  for_each_pair_word(
      n,
      [&](std::uint64_t idx) {
        std::uint64_t i = 0, j = 0;
        unrank_pair(idx, n, i, j);
        const std::uint64_t a = leaf_of[i], b = leaf_of[j];
        return bit_of(matrix, pair_index(a < b ? a : b, a < b ? b : a, leaves));
      },
      StoreWord{out});
}

/// FV of level l from level l + 1: pair (i, j) is set when every pair of their child ranges is.
__global__ void above_kernel(const std::uint32_t* __restrict__ begin, std::uint64_t n,
                             const std::uint32_t* __restrict__ below, std::uint64_t nl,
                             std::uint32_t* __restrict__ out) {
  for_each_pair_word(
      n,
      [&](std::uint64_t idx) {
        std::uint64_t i = 0, j = 0;
        unrank_pair(idx, n, i, j);
        bool all = true;
        for (std::uint64_t x = begin[i]; all && x < begin[i + 1]; ++x) {
          for (std::uint64_t y = begin[j]; all && y < begin[j + 1]; ++y) {
            all = bit_of(below, pair_index(x, y, nl));
          }
        }
        return all;
      },
      StoreWord{out});
}

/// Pairs of the lower level that are links: set, and their parents one entry or an unset pair.
/// `out` null: count them into *count; else write node pairs from *count on.
__global__ void links_kernel(const std::uint32_t* __restrict__ nodes,
                             const std::uint32_t* __restrict__ parent, std::uint64_t nl,
                             const std::uint32_t* __restrict__ below, std::uint64_t nu,
                             const std::uint32_t* __restrict__ above, unsigned long long* count,
                             uint2* out) {
  std::uint64_t x = 0, y = 0;  // the lane's pair, for the write
  for_each_pair_word(
      nl,
      [&](std::uint64_t idx) {
        if (!bit_of(below, idx)) return false;
        unrank_pair(idx, nl, x, y);
        const std::uint32_t px = parent[x], py = parent[y];
        return px == py || !bit_of(above, pair_index(px, py, nu));
      },
      [&](std::uint64_t, unsigned lane, bool link, std::uint32_t ballot) {
        unsigned long long first = 0;
        if (lane == 0 && ballot != 0)
          first = atomicAdd(count, static_cast<unsigned long long>(__popc(ballot)));
        first = __shfl_sync(0xFFFFFFFFu, first, 0);
        if (link && out != nullptr) {
          out[first + __popc(ballot & ((1u << lane) - 1u))] = make_uint2(nodes[x], nodes[y]);
        }
      });
}

unsigned grid(std::uint64_t pairs) { return blocks_for(pairs, kBlock, kMaxBlocks); }

}  // namespace

DeviceMemory pair_bits(std::uint64_t n, const char* what) {
  const std::uint64_t words = (pair_count(n) + 31) / 32 + 1;
  DeviceMemory d = make_device(words * 4, what);
  SIMLOD_CUDA_CHECK(cudaMemset(d.get(), 0, words * 4));
  return d;
}

DeviceMemory climb(std::span<const cpu::VisLevel> levels, DeviceMemory below,
                   std::vector<LevelLinks>& found, std::span<std::uint64_t> per_level, double& ms) {
  DeviceMemory counter = make_device(sizeof(unsigned long long), "the link count");
  for (std::size_t l = levels.size() - 1; l-- > 0;) {
    const cpu::VisLevel& up = levels[l];
    const cpu::VisLevel& low = levels[l + 1];
    const std::uint64_t nu = up.nodes.size(), nl = low.nodes.size();
    DeviceMemory above = pair_bits(nu, "a level's pair bits");
    DeviceMemory begin = upload(up.begin, "a level's child ranges");
    DeviceMemory nodes = upload(low.nodes, "a level's nodes");
    DeviceMemory parent = upload(low.parent, "a level's parents");
    SIMLOD_CUDA_CHECK(cudaMemset(counter.get(), 0, sizeof(unsigned long long)));
    const auto* d_below = static_cast<const std::uint32_t*>(below.get());
    const auto* d_above = static_cast<const std::uint32_t*>(above.get());
    auto* d_count = static_cast<unsigned long long*>(counter.get());
    KernelTimer timer;
    if (nu > 1) {
      above_kernel<<<grid(pair_count(nu)), kBlock>>>(static_cast<const std::uint32_t*>(begin.get()),
                                                     nu, d_below, nl,
                                                     static_cast<std::uint32_t*>(above.get()));
      SIMLOD_CUDA_CHECK_LAUNCH("visibility above_kernel");
    }
    const std::uint64_t low_pairs = pair_count(nl);
    if (low_pairs > 0) {
      links_kernel<<<grid(low_pairs), kBlock>>>(static_cast<const std::uint32_t*>(nodes.get()),
                                                static_cast<const std::uint32_t*>(parent.get()), nl,
                                                d_below, nu, d_above, d_count, nullptr);
      SIMLOD_CUDA_CHECK_LAUNCH("visibility links_kernel (count)");
    }
    ms += timer.ms();
    unsigned long long count = 0;
    SIMLOD_CUDA_CHECK(cudaMemcpy(&count, d_count, sizeof(count), cudaMemcpyDeviceToHost));
    if (count > 0) {
      DeviceMemory out = make_device(count * sizeof(uint2), "a level's links");
      SIMLOD_CUDA_CHECK(cudaMemset(d_count, 0, sizeof(unsigned long long)));
      KernelTimer fill;
      links_kernel<<<grid(low_pairs), kBlock>>>(static_cast<const std::uint32_t*>(nodes.get()),
                                                static_cast<const std::uint32_t*>(parent.get()), nl,
                                                d_below, nu, d_above, d_count,
                                                static_cast<uint2*>(out.get()));
      SIMLOD_CUDA_CHECK_LAUNCH("visibility links_kernel (fill)");
      ms += fill.ms();
      found.push_back({std::move(out), count});
      per_level[l + 1] += count;
    }
    below = std::move(above);
  }
  return below;
}

cpu::VisLinks build_links(const cpu::VisTree& tree, const std::uint32_t* d_matrix, double& ms) {
  const std::vector<cpu::VisLevel> levels = cpu::vis_levels(tree);
  const std::uint32_t depth = tree.depth;
  const std::uint64_t leaves = tree.leaves.size();
  std::vector<std::uint32_t> leaf_of;
  for (const std::uint32_t node : levels[depth].nodes) leaf_of.push_back(tree.nodes[node].leaf);
  DeviceMemory d_leaf_of = upload(leaf_of, "the deepest level's leaves");
  const std::uint64_t nb = leaf_of.size();
  DeviceMemory below = pair_bits(nb, "a level's pair bits");
  std::vector<LevelLinks> found;
  std::vector<std::uint64_t> per_level(depth + 1, 0);
  ms = 0.0;
  KernelTimer first;
  if (nb > 1) {
    bottom_kernel<<<grid(pair_count(nb)), kBlock>>>(
        static_cast<const std::uint32_t*>(d_leaf_of.get()), nb, leaves, d_matrix,
        static_cast<std::uint32_t*>(below.get()));
    SIMLOD_CUDA_CHECK_LAUNCH("visibility bottom_kernel");
  }
  ms += first.ms();
  (void)climb(levels, std::move(below), found, per_level, ms);
  return links_csr(tree.nodes.size(), found, std::move(per_level), ms);
}

}  // namespace simlod::detail::cuda
