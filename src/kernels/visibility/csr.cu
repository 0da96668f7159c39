// The V-map's lists per node (a CSR) on CUDA, from the links of every level (links.cu): each
// link (a, b) becomes two keys a << 32 | b and b << 32 | a, a CUB radix sort orders them by node
// and then target, and a pass finds where each node's run begins. The lists are those of
// cpu::links_csr: each node's targets ascending.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/visibility/map_passes.cuh"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;
constexpr std::uint64_t kMaxBlocks = 4096;

__global__ void keys_kernel(const uint2* __restrict__ links, std::uint64_t count,
                            std::uint64_t* __restrict__ keys) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k < count;
       k += std::uint64_t{gridDim.x} * blockDim.x) {
    const uint2 l = links[k];
    keys[2 * k] = std::uint64_t{l.x} << 32 | l.y;
    keys[2 * k + 1] = std::uint64_t{l.y} << 32 | l.x;
  }
}

/// offsets[n] = the first sorted key of node n or above; targets[k] = key k's target.
__global__ void runs_kernel(const std::uint64_t* __restrict__ keys, std::uint64_t count,
                            std::uint64_t nodes, std::uint64_t* __restrict__ offsets,
                            std::uint32_t* __restrict__ targets) {
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; k <= count;
       k += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t from = k == 0 ? 0 : (keys[k - 1] >> 32) + 1;
    const std::uint64_t to = k == count ? nodes : keys[k] >> 32;
    for (std::uint64_t n = from; n <= to && n <= nodes; ++n) offsets[n] = k;
    if (k < count) targets[k] = static_cast<std::uint32_t>(keys[k]);
  }
}

unsigned bits_for(std::uint64_t v) {
  unsigned b = 1;
  while (b < 32 && (std::uint64_t{1} << b) <= v) ++b;
  return b;
}

}  // namespace

cpu::VisLinks links_csr(std::uint64_t nodes, const std::vector<LevelLinks>& levels,
                        std::vector<std::uint64_t> per_level, double& ms) {
  cpu::VisLinks out;
  out.per_level = std::move(per_level);
  std::uint64_t links = 0;
  for (const LevelLinks& l : levels) links += l.count;
  const std::uint64_t keys = 2 * links;
  out.offsets.assign(nodes + 1, 0);
  out.targets.resize(keys);
  if (keys == 0) return out;
  DeviceMemory key_a = make_device(keys * 8, "the links' sort keys");
  DeviceMemory key_b = make_device(keys * 8, "the links' sort keys");
  cub::DoubleBuffer<std::uint64_t> sorted(static_cast<std::uint64_t*>(key_a.get()),
                                          static_cast<std::uint64_t*>(key_b.get()));
  const int end_bit = 32 + static_cast<int>(bits_for(nodes));
  std::size_t temp_bytes = 0;
  SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, sorted, keys, 0, end_bit));
  DeviceMemory temp = make_device(std::max<std::size_t>(temp_bytes, 1), "the links' sort");
  DeviceMemory offsets = make_device((nodes + 1) * 8, "the link offsets");
  DeviceMemory targets = make_device(keys * 4, "the link lists");
  KernelTimer timer;
  std::uint64_t at = 0;
  for (const LevelLinks& l : levels) {
    if (l.count == 0) continue;
    keys_kernel<<<blocks_for(l.count, kBlock, kMaxBlocks), kBlock>>>(
        static_cast<const uint2*>(l.links.get()), l.count, sorted.Current() + 2 * at);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility keys_kernel");
    at += l.count;
  }
  SIMLOD_CUDA_CHECK(
      cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, sorted, keys, 0, end_bit));
  runs_kernel<<<blocks_for(keys + 1, kBlock, kMaxBlocks), kBlock>>>(
      sorted.Current(), keys, nodes, static_cast<std::uint64_t*>(offsets.get()),
      static_cast<std::uint32_t*>(targets.get()));
  SIMLOD_CUDA_CHECK_LAUNCH("visibility runs_kernel");
  ms += timer.ms();
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out.offsets.data(), offsets.get(), (nodes + 1) * 8, cudaMemcpyDeviceToHost));
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out.targets.data(), targets.get(), keys * 4, cudaMemcpyDeviceToHost));
  return out;
}

}  // namespace simlod::detail::cuda
