// The voxel index of the CUDA store: growth and the fold pass (kernels/update/voxel_index.cuh).
#include <algorithm>
#include <bit>
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/voxel_index.cuh"
#include "simlod/detail/channels.hpp"
#include "simlod/detail/voxel_codec.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr std::uint32_t kAverageWords = 5;  // a ColourSum
// Random with channels: key, tail (digest << 32 | point), lock (GPUs before sm_90), padding:
// the first two 16-byte aligned for the 16-byte compare-and-swap.
constexpr std::uint32_t kWinnerWords = 4;
// Average's class counts: the first table (16 bytes a slot, half of them used at most).
constexpr std::uint64_t kFirstTallySlots = std::uint64_t{1} << 16;

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
    const RecordExtras ex =
        point_extras(v.index, v.index.record_bytes != 0 ? v.record(i) : nullptr);
    fold_point(v, v.stored_q(i), v.point(i).rgba, i, ex, i < v.batch_points ? 0 : old_grids);
  }
}

/// Empties every slot of the class counts: key kTallyEmpty, count 0 (one 16-byte store each).
__global__ void tally_clear_kernel(IndexView x, std::uint64_t slots) {
  auto* slot = reinterpret_cast<ulonglong2*>(x.tally);
  for (std::uint64_t s = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; s < slots;
       s += std::uint64_t{gridDim.x} * blockDim.x) {
    slot[s] = make_ulonglong2(kTallyEmpty, 0ull);
  }
}

/// Moves every class count of the old slots into the new table (all keys distinct).
__global__ void tally_rehash_kernel(const unsigned long long* old, std::uint64_t slots,
                                    IndexView x) {
  for (std::uint64_t s = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; s < slots;
       s += std::uint64_t{gridDim.x} * blockDim.x) {
    const unsigned long long key = old[2 * s];
    if (key == kTallyEmpty) continue;
    std::uint64_t t = index_hash(key) & x.tally_mask;
    while (atomicCAS(x.tally + 2 * t, kTallyEmpty, key) != kTallyEmpty) t = (t + 1) & x.tally_mask;
    x.tally[2 * t + 1] = old[2 * s + 1];
  }
}

/// With channels: copies the record of each listed entry's winner into its voxel, where the
/// winner is a point of this pass (Random: every listed entry's; Average: the tail's point
/// number is kNil when the winner came in an earlier pass).
__global__ void winner_records_kernel(BatchView v) {
  const IndexView& x = v.index;
  const std::uint32_t n = x.counts[1];
  const std::uint32_t words = x.record_bytes / 4;
  for (std::uint64_t k = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
       k < std::uint64_t{n} * words; k += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint32_t e = x.list[k / words];
    const auto point = static_cast<std::uint32_t>(x.acc[std::uint64_t{e} * x.words + x.winner + 1]);
    if (point == kNil) continue;
    const auto* from = reinterpret_cast<const std::uint32_t*>(v.record(point));
    auto* to = reinterpret_cast<std::uint32_t*>(v.voxel_record(x.voxel_words[e]));
    to[k % words] = from[k % words];
  }
}

/// Average with channels: the means and the mode into the records of the listed entries'
/// voxels (after their winners' records), and the winners marked as not of the next pass.
__global__ void average_fields_kernel(BatchView v) {
  const IndexView& x = v.index;
  const std::uint32_t n = x.counts[1];
  for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n;
       k += gridDim.x * blockDim.x) {
    const std::uint32_t e = x.list[k];
    unsigned long long* acc = x.acc + std::uint64_t{e} * x.words;
    write_average_fields(reinterpret_cast<std::uint8_t*>(v.voxel_record(x.voxel_words[e])),
                         x.layout, acc[kAverageIntensityWord], acc[kAverageNirWord], acc[4],
                         acc[kAverageModeWord]);
    acc[kAverageWinnerWord + 1] |= 0xFFFFFFFFull;  // kNil: the digest stays
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
    if (x.random == 0) rgba = ColourSum{acc[0], acc[1], acc[2], acc[3], acc[4]}.rgba();
    if (x.colours != 0) set_voxel_colour(x.voxel_words[e], rgba);
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
  const bool weighted_records = config.sampling == Sampling::Weighted && config.channels != 0;
  if (config.sampling == Sampling::Average || weighted_records) {
    view_.words = kAverageWords;
    view_.colours = weighted_records ? 0 : 1;
    if (config.channels != 0) {
      view_.words = kAverageRecordWords;
      view_.winner = kAverageWinnerWord;
      view_.averages = 1;
      view_.record_bytes = channel_layout(config.channels).record_bytes;
    }
  }
  view_.layout = channel_layout(config.channels);
}

std::uint64_t VoxelIndexStore::bytes_for(std::uint64_t capacity) const {
  const std::uint64_t tally = tally_slots_ * 16 + (tally_slots_ > 0 ? 8 : 0);
  return (view_.words == 0 || capacity == 0 ? 0 : IndexLayout(capacity, view_.words).total) + tally;
}

void VoxelIndexStore::reserve_tally(std::uint64_t more, cudaStream_t stream) {
  std::uint32_t keys = 0;
  if (tally_slots_ > 0) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(&keys, view_.tally_counts, 4, cudaMemcpyDeviceToHost, stream));
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::uint64_t slots = std::max(kFirstTallySlots, tally_slots_);
  while (slots / 2 < keys + more) slots *= 2;  // at most half full
  if (slots == tally_slots_) return;
  if (slots / 2 >= kNil) {
    throw CapacityError("the class counts of the voxel index would need " + std::to_string(slots) +
                        " slots, more than they can count");
  }
  DeviceMemory memory = make_device(slots * 16 + 8, "the class counts of the voxel index");
  IndexView x = view_;
  x.tally = static_cast<unsigned long long*>(memory.get());
  x.tally_counts = reinterpret_cast<std::uint32_t*>(x.tally + 2 * slots);
  x.tally_mask = slots - 1;
  // One 16-byte store per slot: keys and counts start from different bytes.
  tally_clear_kernel<<<blocks_for(slots, kPointBlock), kPointBlock, 0, stream>>>(x, slots);
  SIMLOD_CUDA_CHECK_LAUNCH("tally_clear_kernel");
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(x.tally_counts, 0, 8, stream));
  if (tally_slots_ > 0) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(x.tally_counts, view_.tally_counts, 4, cudaMemcpyDeviceToDevice, stream));
    tally_rehash_kernel<<<blocks_for(tally_slots_, kPointBlock), kPointBlock, 0, stream>>>(
        view_.tally, tally_slots_, x);
    SIMLOD_CUDA_CHECK_LAUNCH("tally_rehash_kernel");
  }
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream));  // the old table goes
  tally_memory_ = std::move(memory);
  view_.tally = x.tally;
  view_.tally_counts = x.tally_counts;
  view_.tally_mask = x.tally_mask;
  tally_slots_ = slots;
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
  x.voxel_words = reinterpret_cast<std::uint32_t**>(base + at.samples);
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
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(x.voxel_words, view_.voxel_words, size * 8,
                                      cudaMemcpyDeviceToDevice, stream));
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
  if (v.index.averages != 0) {
    average_fields_kernel<<<blocks_for(v.points(), kPointBlock), kPointBlock, 0, stream>>>(v);
    SIMLOD_CUDA_CHECK_LAUNCH("average_fields_kernel");
  }
  launch_write_colours(v.index, v.points(), stream);
}

void launch_write_colours(const IndexView& x, std::uint64_t work, cudaStream_t stream) {
  colour_kernel<<<blocks_for(work, kPointBlock), kPointBlock, 0, stream>>>(x);
  SIMLOD_CUDA_CHECK_LAUNCH("colour_kernel");
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(x.counts + 1, 0, 4, stream));
}

}  // namespace simlod::detail::cuda
