// The voxel index of the CUDA store: growth and the fold pass (kernels/update/voxel_index.cuh).
#include <bit>
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/voxel_index.cuh"
#include "simlod/detail/channels.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr std::uint32_t kAverageWords = 5;  // a ColourSum
// Random with channels: key, tail (digest << 32 | point), lock (GPUs before sm_90), padding:
// the first two 16-byte aligned for the 16-byte compare-and-swap.
constexpr std::uint32_t kWinnerWords = 4;

std::uint64_t slots_for(std::uint64_t capacity) {
  return capacity == 0 ? 0 : std::bit_ceil(2 * capacity);
}

/// Byte offsets of the arrays in one allocation (8-byte arrays first).
struct IndexLayout {
  std::uint64_t keys, samples, acc, dirty, list, slots, counts, total;
  IndexLayout(std::uint64_t capacity, std::uint32_t words) {
    keys = 0;
    samples = keys + capacity * 8;
    acc = samples + capacity * 8;
    dirty = acc + capacity * 8 * words;
    list = dirty + capacity * 4;
    slots = list + capacity * 4;
    counts = slots + slots_for(capacity) * 4;
    total = counts + 8;
  }
};

__global__ void relink_kernel(IndexView x, std::uint32_t size) {
  for (std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < size;
       e += gridDim.x * blockDim.x) {
    index_link(x, e, x.keys[e]);
  }
}

__global__ void __launch_bounds__(kPointBlock) fold_kernel(BatchView v, std::uint32_t old_grids) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < v.points();
       i += gridDim.x * blockDim.x) {
    const std::uint32_t digest =
        v.index.record_bytes != 0
            ? record_digest(reinterpret_cast<const std::uint8_t*>(v.record(i)), v.record_bytes)
            : 0u;
    fold_point(v, v.point(i), i, digest, i < v.batch_points ? 0 : old_grids);
  }
}

/// Random with channels: copies the record of each listed entry's winner (a point of this
/// pass: a listed entry won in this pass) into its voxel.
__global__ void winner_records_kernel(BatchView v) {
  const IndexView& x = v.index;
  const std::uint32_t n = x.counts[1];
  const std::uint32_t words = x.record_bytes / 4;
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
       k < std::uint64_t{n} * words; k += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t e = x.list[k / words];
    const auto point = static_cast<std::uint32_t>(x.acc[std::uint64_t{e} * x.words + 1]);
    const auto* from = reinterpret_cast<const std::uint32_t*>(v.record(point));
    auto* to = reinterpret_cast<std::uint32_t*>(v.sample_record(x.samples[e]));
    to[k % words] = from[k % words];
  }
}

/// Writes the colours of the listed entries into their voxels.
__global__ void colour_kernel(IndexView x) {
  const std::uint32_t n = x.counts[1];
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += gridDim.x * blockDim.x) {
    const std::uint32_t e = x.list[k];
    const unsigned long long* acc = x.acc + std::uint64_t{e} * x.words;
    std::uint32_t rgba = static_cast<std::uint32_t>(acc[0]);
    if (x.words == kAverageWords) rgba = ColourSum{acc[0], acc[1], acc[2], acc[3], acc[4]}.rgba();
    reinterpret_cast<std::uint32_t*>(x.samples[e])[3] = rgba;
    x.dirty[e] = 0;
  }
}

}  // namespace

VoxelIndexStore::VoxelIndexStore(const OctreeConfig& config) {
  view_.seed = config.sampling_seed;
  if (config.sampling == Sampling::Random) {
    view_.random = 1;
    view_.words = 1;
    if (config.channels != 0) {
      view_.words = kWinnerWords;
      view_.record_bytes = channel_layout(config.channels).record_bytes;
    }
  }
  if (config.sampling == Sampling::Average) view_.words = kAverageWords;
}

std::uint64_t VoxelIndexStore::bytes_for(std::uint64_t capacity) const {
  return view_.words == 0 || capacity == 0 ? 0 : IndexLayout(capacity, view_.words).total;
}

void VoxelIndexStore::reserve(std::uint64_t entries, std::uint64_t size, cudaStream_t stream) {
  if (view_.words == 0 || entries <= capacity_) return;
  const std::uint64_t capacity = std::max(entries, 2 * capacity_);  // doubling
  if (capacity >= kNil) {
    throw CapacityError("the voxel index would need " + std::to_string(capacity) +
                        " entries, more than it can number");
  }
  const IndexLayout at(capacity, view_.words);
  DeviceMemory memory = make_device(at.total, "the voxel index");  // CapacityError: unchanged
  auto* base = static_cast<std::byte*>(memory.get());
  IndexView x = view_;
  x.keys = reinterpret_cast<unsigned long long*>(base + at.keys);
  x.samples = reinterpret_cast<Point**>(base + at.samples);
  x.acc = reinterpret_cast<unsigned long long*>(base + at.acc);
  x.dirty = reinterpret_cast<std::uint32_t*>(base + at.dirty);
  x.list = reinterpret_cast<std::uint32_t*>(base + at.list);
  x.slots = reinterpret_cast<std::uint32_t*>(base + at.slots);
  x.counts = reinterpret_cast<std::uint32_t*>(base + at.counts);
  x.slot_mask = slots_for(capacity) - 1;
  x.capacity = static_cast<std::uint32_t>(capacity);
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(x.dirty, 0, capacity * 4, stream));
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(x.slots, 0xFF, slots_for(capacity) * 4, stream));
  const std::uint32_t counts[2] = {static_cast<std::uint32_t>(size), 0};
  SIMLOD_CUDA_CHECK(
      cudaMemcpyAsync(x.counts, counts, sizeof(counts), cudaMemcpyHostToDevice, stream));
  if (size > 0) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(x.keys, view_.keys, size * 8, cudaMemcpyDeviceToDevice, stream));
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(x.samples, view_.samples, size * 8, cudaMemcpyDeviceToDevice, stream));
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(x.acc, view_.acc, size * 8 * view_.words,
                                      cudaMemcpyDeviceToDevice, stream));
    relink_kernel<<<blocks_for(size, kPointBlock), kPointBlock, 0, stream>>>(
        x, static_cast<std::uint32_t>(size));
    SIMLOD_CUDA_CHECK_LAUNCH("relink_kernel");
  }
  // The old arrays go once the copies that read them are done (counts[] is a host array).
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream));
  memory_ = std::move(memory);
  view_ = x;
  capacity_ = capacity;
}

void launch_fold(const BatchView& v, std::uint32_t old_grids, cudaStream_t stream) {
  if (v.index.words == 0 || v.index.capacity == 0) return;  // no index, or no voxel yet
  fold_kernel<<<blocks_for(v.points(), kPointBlock), kPointBlock, 0, stream>>>(v, old_grids);
  SIMLOD_CUDA_CHECK_LAUNCH("fold_kernel");
  if (v.index.record_bytes != 0) {
    winner_records_kernel<<<blocks_for(v.points(), kPointBlock), kPointBlock, 0, stream>>>(v);
    SIMLOD_CUDA_CHECK_LAUNCH("winner_records_kernel");
  }
  launch_write_colours(v.index, v.points(), stream);
}

void launch_write_colours(const IndexView& x, std::uint64_t work, cudaStream_t stream) {
  colour_kernel<<<blocks_for(work, kPointBlock), kPointBlock, 0, stream>>>(x);
  SIMLOD_CUDA_CHECK_LAUNCH("colour_kernel");
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(x.counts + 1, 0, 4, stream));
}

}  // namespace simlod::detail::cuda
