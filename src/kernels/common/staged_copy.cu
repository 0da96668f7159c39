// Host-to-device copies through pinned staging buffers (staged_copy.cuh).
#include <algorithm>
#include <array>
#include <cstring>

#include "core/thread_pool.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/staged_copy.cuh"
#include "kernels/entry.hpp"

namespace simlod::detail::cuda {
namespace {

/// Bytes per staging buffer (two of them): large enough that a piece's pool loop and its
/// transfer dwarf their fixed costs, small enough to pin quickly.
constexpr std::size_t kStageBytes = std::size_t{32} << 20;
/// Pool blocks of a piece's copy.
constexpr std::size_t kCopyGrain = std::size_t{1} << 20;

}  // namespace

void copy_to_device_staged(void* to, const void* from, std::size_t bytes, cudaStream_t stream) {
  auto straight = [&] {
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyHostToDevice, stream));
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  if (bytes <= kStageBytes) return straight();
  std::array<PinnedMemory, 2> stage{PinnedMemory(allocate_pinned(kStageBytes)),
                                    PinnedMemory(allocate_pinned(kStageBytes))};
  if (stage[0].get() == nullptr || stage[1].get() == nullptr) return straight();  // none pinned
  std::array<EventHandle, 2> sent{make_event(cudaEventDisableTiming),
                                  make_event(cudaEventDisableTiming)};
  ThreadPool& pool = ThreadPool::shared();
  const auto* src = static_cast<const std::byte*>(from);
  auto* dst = static_cast<std::byte*>(to);
  for (std::size_t at = 0, piece = 0; at < bytes; at += kStageBytes, ++piece) {
    const std::size_t n = std::min(kStageBytes, bytes - at);
    const std::size_t k = piece % 2;
    auto* buffer = static_cast<std::byte*>(stage[k].get());
    if (piece >= 2) SIMLOD_CUDA_CHECK(cudaEventSynchronize(sent[k].get()));  // buffer k is free
    pool.parallel_for(n, kCopyGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
      std::memcpy(buffer + lo, src + at + lo, hi - lo);
    });
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(dst + at, buffer, n, cudaMemcpyHostToDevice, stream));
    SIMLOD_CUDA_CHECK(cudaEventRecord(sent[k].get(), stream));
  }
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace simlod::detail::cuda
