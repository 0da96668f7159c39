// The voxel index of the CPU store (voxel_index.hpp).
#include "core/cpu/tree/voxel_index.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "simlod/detail/channels.hpp"

namespace simlod::detail::cpu {
namespace {

constexpr std::uint32_t kAverageWords = 5;  // a ColourSum
constexpr std::uint32_t kWinnerWords = 3;   // Random with channels: key, digest, lock
constexpr std::uint32_t kRecordWord = 6;    // Random with channels: the voxel's record
// Words of an entry: key, sample, accumulator, dirty flag (and record); a power of two, so
// that an entry never straddles a line.
constexpr std::uint32_t kRandomStride = 4, kWideStride = 8;
constexpr std::uint64_t kLine = 64;

std::uint64_t key_of(std::uint32_t node, std::uint32_t cell) {
  return (static_cast<std::uint64_t>(node) << 32) | cell;
}

std::uint32_t hash_of(std::uint64_t key) {
  return mix32(mix32(static_cast<std::uint32_t>(key)) ^ static_cast<std::uint32_t>(key >> 32));
}

std::uint64_t slots_for(std::uint64_t capacity) {
  return capacity == 0 ? 0 : std::bit_ceil(2 * capacity);
}

/// The first 64-byte aligned word of `words`.
std::uint64_t* aligned(std::vector<std::uint64_t>& words) {
  const auto at = reinterpret_cast<std::uintptr_t>(words.data());
  return words.data() + ((kLine - at % kLine) % kLine) / sizeof(std::uint64_t);
}

}  // namespace

VoxelIndex::VoxelIndex(const OctreeConfig& config) : seed_(config.sampling_seed) {
  if (config.sampling == Sampling::Random) {
    random_ = true;
    words_ = 1;
    stride_ = kRandomStride;
    if (config.channels != 0) {
      words_ = kWinnerWords;
      stride_ = kWideStride;
      record_bytes_ = channel_layout(config.channels).record_bytes;
    }
  }
  if (config.sampling == Sampling::Average) {
    words_ = kAverageWords;
    stride_ = kWideStride;
  }
}

std::uint64_t VoxelIndex::bytes_for(std::uint64_t capacity) const {
  if (words_ == 0 || capacity == 0) return 0;
  return capacity * (std::uint64_t{stride_} * sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
         kLine + slots_for(capacity) * sizeof(std::uint32_t);
}

std::uint64_t VoxelIndex::grown_capacity(std::uint64_t entries) const {
  if (entries <= capacity_) return capacity_;
  return std::max(entries, 2 * capacity_);  // doubling: streaming grows it log-many times
}

void VoxelIndex::reserve(std::uint64_t entries) {
  const std::uint64_t capacity = grown_capacity(entries);
  if (words_ == 0 || capacity == capacity_) return;
  // Allocate everything first, so that running out of memory leaves the index as it was.
  std::vector<std::uint64_t> words(capacity * stride_ + kLine / sizeof(std::uint64_t));
  std::vector<std::uint32_t> list(capacity);
  std::vector<std::uint32_t> slots(slots_for(capacity), kNone);
  std::uint64_t* base = aligned(words);
  if (size_ > 0) std::memcpy(base, base_, size_ * stride_ * sizeof(std::uint64_t));
  std::copy_n(list_.begin(), dirty_count_, list.begin());
  words_store_.swap(words);
  base_ = base;
  list_.swap(list);
  slots_.swap(slots);
  capacity_ = capacity;
  for (std::uint64_t e = 0; e < size_; ++e) link(static_cast<std::uint32_t>(e));
}

void VoxelIndex::link(std::uint32_t entry) noexcept {
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t s = hash_of(base_[std::uint64_t{entry} * stride_]) & mask;;
       s = (s + 1) & mask) {
    std::atomic_ref<std::uint32_t> slot(slots_[s]);
    std::uint32_t empty = kNone;
    if (slot.load(std::memory_order_relaxed) == kNone &&
        slot.compare_exchange_strong(empty, entry, std::memory_order_relaxed)) {
      return;
    }
  }
}

void VoxelIndex::add(std::uint32_t node, std::uint32_t cell, Point* sample,
                     std::byte* record) noexcept {
  const auto e = static_cast<std::uint32_t>(
      std::atomic_ref<std::uint64_t>(size_).fetch_add(1, std::memory_order_relaxed));
  std::uint64_t* entry = base_ + std::uint64_t{e} * stride_;
  std::fill_n(entry, stride_, 0);
  entry[0] = key_of(node, cell);
  entry[1] = reinterpret_cast<std::uintptr_t>(sample);
  if (record_bytes_ != 0) entry[kRecordWord] = reinterpret_cast<std::uintptr_t>(record);
  link(e);
}

std::uint32_t VoxelIndex::find(std::uint64_t key) const noexcept {
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t s = hash_of(key) & mask;; s = (s + 1) & mask) {
    const std::uint32_t e = slots_[s];
    if (base_[std::uint64_t{e} * stride_] == key) return e;  // the key has an entry
  }
}

void VoxelIndex::merge(std::uint32_t node, std::uint32_t cell, std::uint64_t best,
                       const ColourSum& sum) noexcept {
  const std::uint32_t e = find(key_of(node, cell));
  std::uint64_t* entry = base_ + std::uint64_t{e} * stride_;
  std::uint64_t* acc = entry + 2;
  if (random_) {
    std::atomic_ref<std::uint64_t> now(acc[0]);
    std::uint64_t seen = now.load(std::memory_order_relaxed);
    if (best <= seen) return;  // the colour stays: nothing to write
    while (seen < best && !now.compare_exchange_weak(seen, best, std::memory_order_relaxed)) {
    }
  } else {
    const std::uint64_t add[kAverageWords] = {sum.r, sum.g, sum.b, sum.a, sum.count};
    for (std::uint32_t w = 0; w < kAverageWords; ++w) {
      std::atomic_ref<std::uint64_t>(acc[w]).fetch_add(add[w], std::memory_order_relaxed);
    }
  }
  mark_dirty(e);
}

void VoxelIndex::merge_winner(std::uint32_t node, std::uint32_t cell, std::uint64_t best,
                              std::uint64_t digest, const std::byte* record) noexcept {
  const std::uint32_t e = find(key_of(node, cell));
  std::uint64_t* entry = base_ + std::uint64_t{e} * stride_;
  std::uint64_t* acc = entry + 2;
  std::atomic_ref<std::uint64_t> now(acc[0]);
  if (best < now.load(std::memory_order_relaxed)) return;  // it cannot win (keys only grow)
  std::atomic_ref<std::uint64_t> lock(acc[2]);
  while (lock.exchange(1, std::memory_order_acquire) != 0) {
    while (lock.load(std::memory_order_relaxed) != 0) {
    }
  }
  const std::uint64_t held = now.load(std::memory_order_relaxed);
  const bool wins = best > held || (best == held && digest > acc[1]);
  if (wins) {
    now.store(best, std::memory_order_relaxed);
    acc[1] = digest;
    std::memcpy(reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(entry[kRecordWord])),
                record, record_bytes_);
  }
  lock.store(0, std::memory_order_release);
  if (wins) mark_dirty(e);
}

void VoxelIndex::mark_dirty(std::uint32_t e) noexcept {
  std::atomic_ref<std::uint64_t> dirty(base_[std::uint64_t{e} * stride_ + 2 + words_]);
  if (dirty.load(std::memory_order_relaxed) == 0 &&
      dirty.exchange(1, std::memory_order_relaxed) == 0) {
    list_[std::atomic_ref<std::uint64_t>(dirty_count_).fetch_add(1, std::memory_order_relaxed)] = e;
  }
}

void VoxelIndex::write_colours(PoolView& pool) noexcept {
  pool.parallel_for(dirty_count_, 4096, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      std::uint64_t* entry = base_ + std::uint64_t{list_[i]} * stride_;
      const std::uint64_t* acc = entry + 2;
      std::uint32_t rgba = static_cast<std::uint32_t>(acc[0]);
      if (words_ == kAverageWords) rgba = ColourSum{acc[0], acc[1], acc[2], acc[3], acc[4]}.rgba();
      reinterpret_cast<Point*>(static_cast<std::uintptr_t>(entry[1]))->rgba = rgba;
      entry[2 + words_] = 0;
    }
  });
  dirty_count_ = 0;
}

void VoxelIndex::clear() noexcept {
  std::vector<std::uint64_t>().swap(words_store_);
  base_ = nullptr;
  std::vector<std::uint32_t>().swap(list_);
  std::vector<std::uint32_t>().swap(slots_);
  size_ = capacity_ = dirty_count_ = 0;
  ready_ = false;
}

}  // namespace simlod::detail::cpu
