// The voxel index of the CPU store (voxel_index.hpp).
#include "core/cpu/tree/voxel_index.hpp"

#include <algorithm>
#include <atomic>
#include <bit>

namespace simlod::detail::cpu {
namespace {

constexpr std::uint32_t kAverageWords = 5;  // a ColourSum

std::uint64_t key_of(std::uint32_t node, std::uint32_t cell) {
  return (static_cast<std::uint64_t>(node) << 32) | cell;
}

std::uint32_t hash_of(std::uint64_t key) {
  return mix32(mix32(static_cast<std::uint32_t>(key)) ^ static_cast<std::uint32_t>(key >> 32));
}

std::uint64_t slots_for(std::uint64_t capacity) {
  return capacity == 0 ? 0 : std::bit_ceil(2 * capacity);
}

}  // namespace

VoxelIndex::VoxelIndex(const OctreeConfig& config) : seed_(config.sampling_seed) {
  if (config.sampling == Sampling::Random) words_ = 1;
  if (config.sampling == Sampling::Average) words_ = kAverageWords;
}

std::uint64_t VoxelIndex::bytes_for(std::uint64_t capacity) const {
  if (words_ == 0) return 0;
  const std::uint64_t per_entry = sizeof(std::uint64_t) + sizeof(Point*) +
                                  std::uint64_t{words_} * sizeof(std::uint64_t) +
                                  sizeof(std::uint8_t) + sizeof(std::uint32_t);
  return capacity * per_entry + slots_for(capacity) * sizeof(std::uint32_t);
}

std::uint64_t VoxelIndex::grown_capacity(std::uint64_t entries) const {
  if (entries <= capacity_) return capacity_;
  return std::max(entries, 2 * capacity_);  // doubling: streaming grows it log-many times
}

void VoxelIndex::reserve(std::uint64_t entries) {
  const std::uint64_t capacity = grown_capacity(entries);
  if (words_ == 0 || capacity == capacity_) return;
  // Allocate everything first, so that running out of memory leaves the index as it was.
  std::vector<std::uint64_t> keys(capacity), acc(capacity * words_);
  std::vector<Point*> samples(capacity);
  std::vector<std::uint8_t> dirty(capacity);
  std::vector<std::uint32_t> list(capacity);
  std::vector<std::uint32_t> slots(slots_for(capacity), kNone);
  std::copy_n(keys_.begin(), size_, keys.begin());
  std::copy_n(acc_.begin(), size_ * words_, acc.begin());
  std::copy_n(samples_.begin(), size_, samples.begin());
  std::copy_n(dirty_.begin(), size_, dirty.begin());
  std::copy_n(list_.begin(), dirty_count_, list.begin());
  keys_.swap(keys);
  acc_.swap(acc);
  samples_.swap(samples);
  dirty_.swap(dirty);
  list_.swap(list);
  slots_.swap(slots);
  capacity_ = capacity;
  for (std::uint64_t e = 0; e < size_; ++e) link(static_cast<std::uint32_t>(e));
}

void VoxelIndex::link(std::uint32_t entry) noexcept {
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t s = hash_of(keys_[entry]) & mask;; s = (s + 1) & mask) {
    std::atomic_ref<std::uint32_t> slot(slots_[s]);
    std::uint32_t empty = kNone;
    if (slot.load(std::memory_order_relaxed) == kNone &&
        slot.compare_exchange_strong(empty, entry, std::memory_order_relaxed)) {
      return;
    }
  }
}

void VoxelIndex::add(std::uint32_t node, std::uint32_t cell, Point* sample) noexcept {
  const auto e = static_cast<std::uint32_t>(
      std::atomic_ref<std::uint64_t>(size_).fetch_add(1, std::memory_order_relaxed));
  keys_[e] = key_of(node, cell);
  samples_[e] = sample;
  std::fill_n(acc_.begin() + std::uint64_t{e} * words_, words_, 0);
  dirty_[e] = 0;
  link(e);
}

std::uint32_t VoxelIndex::find(std::uint64_t key) const noexcept {
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t s = hash_of(key) & mask;; s = (s + 1) & mask) {
    const std::uint32_t e = slots_[s];
    if (keys_[e] == key) return e;  // the key has an entry: an empty slot is never reached
  }
}

void VoxelIndex::merge(std::uint32_t node, std::uint32_t cell, std::uint64_t best,
                       const ColourSum& sum) noexcept {
  const std::uint32_t e = find(key_of(node, cell));
  std::uint64_t* acc = acc_.data() + std::uint64_t{e} * words_;
  if (words_ == 1) {
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
  std::atomic_ref<std::uint8_t> dirty(dirty_[e]);
  if (dirty.load(std::memory_order_relaxed) == 0 &&
      dirty.exchange(1, std::memory_order_relaxed) == 0) {
    list_[std::atomic_ref<std::uint64_t>(dirty_count_).fetch_add(1, std::memory_order_relaxed)] = e;
  }
}

void VoxelIndex::write_colours(PoolView& pool) noexcept {
  pool.parallel_for(dirty_count_, 4096, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      const std::uint32_t e = list_[i];
      const std::uint64_t* acc = acc_.data() + std::uint64_t{e} * words_;
      std::uint32_t rgba = static_cast<std::uint32_t>(acc[0]);
      if (words_ == kAverageWords) rgba = ColourSum{acc[0], acc[1], acc[2], acc[3], acc[4]}.rgba();
      samples_[e]->rgba = rgba;
      dirty_[e] = 0;
    }
  });
  dirty_count_ = 0;
}

void VoxelIndex::clear() noexcept {
  for (auto* v : {&keys_, &acc_}) std::vector<std::uint64_t>().swap(*v);
  std::vector<Point*>().swap(samples_);
  std::vector<std::uint8_t>().swap(dirty_);
  std::vector<std::uint32_t>().swap(list_);
  std::vector<std::uint32_t>().swap(slots_);
  size_ = capacity_ = dirty_count_ = 0;
  ready_ = false;
}

}  // namespace simlod::detail::cpu
