// RankBitmap on CUDA (kernels/fenwick/rank_bitmap_entry.hpp): a warp ballots 32 values into a
// word, a thread per 128-bit block counts its bits, and CUB's exclusive sum turns the counts
// into the counts before each block. The same words and counts as the CPU build.
#include <cub/device/device_scan.cuh>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/fenwick/rank_bitmap_entry.hpp"
#include "simlod/detail/rank_bitmap_math.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;
constexpr std::uint64_t kMaxBlocks = 4096;

/// Word i / 32 from values i .. i + 31 (zero past n); values above 1 lower `first_bad`.
__global__ void ballot_kernel(const std::uint32_t* __restrict__ values, std::uint64_t n,
                              std::uint32_t* __restrict__ words, std::uint64_t bits,
                              unsigned long long* first_bad) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < bits;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t v = i < n ? values[i] : 0;
    if (v > 1) atomicMin(first_bad, static_cast<unsigned long long>(i));
    const std::uint32_t word = __ballot_sync(0xFFFFFFFFu, v != 0);
    if ((threadIdx.x & 31u) == 0) words[i >> 5] = word;
  }
}

__global__ void block_count_kernel(const std::uint32_t* __restrict__ words,
                                   std::uint32_t* __restrict__ counts, std::uint64_t blocks) {
  for (std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; j < blocks;
       j += std::uint64_t{gridDim.x} * blockDim.x) {
    const uint4 q = reinterpret_cast<const uint4*>(words)[j];
    counts[j] = __popc(q.x) + __popc(q.y) + __popc(q.z) + __popc(q.w);
  }
}

__global__ void rank_kernel(RankBitmapView v, const std::uint64_t* __restrict__ keys,
                            std::uint64_t* __restrict__ out, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = detail::bitmap_rank(v, keys[i]);
  }
}

__global__ void values_kernel(RankBitmapView v, std::uint32_t* __restrict__ out) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < v.n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    out[i] = detail::bitmap_get(v, i);
  }
}

RankBitmapView view_of(const void* bitmap, std::uint64_t n) {
  const auto* words = static_cast<const std::uint32_t*>(bitmap);
  return {words, words + bitmap_words(n), n};
}

}  // namespace

void* bitmap_build(const std::uint32_t* values, std::uint64_t n, std::uint64_t& first_bad,
                   double& ms) {
  const std::uint64_t nw = bitmap_words(n), blocks = nw / 4;
  DeviceMemory input = make_device(n * sizeof(std::uint32_t), "the rank bitmap's input");
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(input.get(), values, n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  DeviceMemory out = make_device((nw + blocks) * sizeof(std::uint32_t), "the rank bitmap");
  auto* words = static_cast<std::uint32_t*>(out.get());
  std::uint32_t* counts = words + nw;
  std::size_t temp_bytes = 0;
  SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, counts, blocks));
  DeviceMemory temp = make_device(temp_bytes, "the rank bitmap's scan");
  DeviceMemory first = make_device(sizeof(unsigned long long), "the rank bitmap's check");
  auto* d_first = static_cast<unsigned long long*>(first.get());
  KernelTimer timer;
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(d_first, 0xFF, sizeof(unsigned long long)));
  ballot_kernel<<<blocks_for(nw * 32, kBlock, kMaxBlocks), kBlock>>>(
      static_cast<const std::uint32_t*>(input.get()), n, words, nw * 32, d_first);
  SIMLOD_CUDA_CHECK_LAUNCH("bitmap ballot_kernel");
  block_count_kernel<<<blocks_for(blocks, kBlock, kMaxBlocks), kBlock>>>(words, counts, blocks);
  SIMLOD_CUDA_CHECK_LAUNCH("bitmap block_count_kernel");
  SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, counts, counts, blocks));
  ms = timer.ms();
  unsigned long long bad = 0;
  SIMLOD_CUDA_CHECK(cudaMemcpy(&bad, d_first, sizeof(bad), cudaMemcpyDeviceToHost));
  first_bad = bad;
  return bad == ~0ull ? out.release() : nullptr;
}

void bitmap_rank(const void* bitmap, std::uint64_t n, const std::uint64_t* keys, std::uint64_t* out,
                 std::size_t count, double& ms) {
  if (count == 0) return;
  DeviceMemory d_keys = make_device(count * sizeof(std::uint64_t), "rank bitmap query keys");
  DeviceMemory d_out = make_device(count * sizeof(std::uint64_t), "rank bitmap query results");
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(d_keys.get(), keys, count * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  KernelTimer timer;
  rank_kernel<<<blocks_for(count, kBlock, kMaxBlocks), kBlock>>>(
      view_of(bitmap, n), static_cast<const std::uint64_t*>(d_keys.get()),
      static_cast<std::uint64_t*>(d_out.get()), count);
  SIMLOD_CUDA_CHECK_LAUNCH("bitmap rank_kernel");
  ms = timer.ms();
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out, d_out.get(), count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
}

void bitmap_values(const void* bitmap, std::uint64_t n, std::uint32_t* out, double& ms) {
  DeviceMemory d_out = make_device(n * sizeof(std::uint32_t), "rank bitmap values");
  KernelTimer timer;
  values_kernel<<<blocks_for(n, kBlock, kMaxBlocks), kBlock>>>(
      view_of(bitmap, n), static_cast<std::uint32_t*>(d_out.get()));
  SIMLOD_CUDA_CHECK_LAUNCH("bitmap values_kernel");
  ms = timer.ms();
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(out, d_out.get(), n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
}

}  // namespace simlod::detail::cuda
