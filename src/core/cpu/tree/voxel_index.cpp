// The voxel index of the CPU store (voxel_index.hpp).
#include "core/cpu/tree/voxel_index.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "simlod/detail/channels.hpp"
#include "simlod/detail/voxel_codec.hpp"

namespace simlod::detail::cpu {
namespace {

constexpr std::uint32_t kAverageWords = 5;  // a ColourSum
constexpr std::uint32_t kWinnerWords = 3;   // Random with channels: key, digest, lock
// Average with channels: the ColourSum, the winner's words, intensity and NIR sums, the mode.
constexpr std::uint32_t kAverageRecordWords = kAverageWords + kWinnerWords + 3;
constexpr std::uint32_t kIntensityWord = kAverageWords + kWinnerWords,
                        kNirWord = kIntensityWord + 1, kModeWord = kNirWord + 1;
// Words of an entry: key, sample, accumulator, dirty flag (and record); a power of two, so
// that an entry never straddles a line.
constexpr std::uint32_t kRandomStride = 4, kWideStride = 8, kAverageRecordStride = 16;
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
  // Weighted keeps an index only for its channels (Average's rules; finalize() the colours).
  const bool weighted_records = config.sampling == Sampling::Weighted && config.channels != 0;
  if (config.sampling != Sampling::Random && config.sampling != Sampling::Average &&
      !weighted_records) {
    return;
  }
  writes_colours_ = !weighted_records;
  layout_ = channel_layout(config.channels);
  random_ = config.sampling == Sampling::Random;
  keyed_ = random_ || keeps_records();
  if (random_) {
    words_ = keeps_records() ? kWinnerWords : 1;
    stride_ = keeps_records() ? kWideStride : kRandomStride;
  } else if (keeps_records()) {
    words_ = kAverageRecordWords;
    stride_ = kAverageRecordStride;
    averages_records_ = true;
    counts_classes_ = layout_.has(Attribute::Classification);
  } else {
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

void VoxelIndex::add(std::uint32_t node, std::uint32_t cell, std::uint32_t* word,
                     std::byte* record) noexcept {
  const auto e = static_cast<std::uint32_t>(
      std::atomic_ref<std::uint64_t>(size_).fetch_add(1, std::memory_order_relaxed));
  std::uint64_t* entry = base_ + std::uint64_t{e} * stride_;
  std::fill_n(entry, stride_, 0);
  entry[0] = key_of(node, cell);
  entry[1] = reinterpret_cast<std::uintptr_t>(word);
  if (keeps_records()) entry[3 + words_] = reinterpret_cast<std::uintptr_t>(record);
  link(e);
}

std::uint32_t* VoxelIndex::word_of(std::uint32_t node, std::uint32_t cell) const noexcept {
  if (slots_.empty()) return nullptr;
  const std::uint64_t key = key_of(node, cell);
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t s = hash_of(key) & mask;; s = (s + 1) & mask) {
    const std::uint32_t e = slots_[s];
    if (e == kNone) return nullptr;
    const std::uint64_t* entry = base_ + std::uint64_t{e} * stride_;
    if (entry[0] == key) {
      return reinterpret_cast<std::uint32_t*>(static_cast<std::uintptr_t>(entry[1]));
    }
  }
}

std::uint32_t VoxelIndex::find(std::uint64_t key) const noexcept {
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t s = hash_of(key) & mask;; s = (s + 1) & mask) {
    const std::uint32_t e = slots_[s];
    if (base_[std::uint64_t{e} * stride_] == key) return e;  // the key has an entry
  }
}

void VoxelIndex::merge(std::uint32_t node, std::uint32_t cell, const CellFold& f) noexcept {
  const std::uint32_t e = find(key_of(node, cell));
  std::uint64_t* entry = base_ + std::uint64_t{e} * stride_;
  std::uint64_t* acc = entry + 2;
  if (random_ && keeps_records()) {
    if (merge_winner(entry, acc, f)) mark_dirty(e);
    return;
  }
  if (random_) {
    std::atomic_ref<std::uint64_t> now(acc[0]);
    std::uint64_t seen = now.load(std::memory_order_relaxed);
    if (f.best <= seen) return;  // the colour stays: nothing to write
    while (seen < f.best && !now.compare_exchange_weak(seen, f.best, std::memory_order_relaxed)) {
    }
    mark_dirty(e);
    return;
  }
  const auto add = [](std::uint64_t& word, std::uint64_t v) {
    if (v != 0) std::atomic_ref<std::uint64_t>(word).fetch_add(v, std::memory_order_relaxed);
  };
  const std::uint64_t sums[kAverageWords] = {f.sum.r, f.sum.g, f.sum.b, f.sum.a, f.sum.count};
  for (std::uint32_t w = 0; w < kAverageWords; ++w) add(acc[w], sums[w]);
  if (averages_records_) {
    merge_winner(entry, acc + kAverageWords, f);
    add(acc[kIntensityWord], f.intensity);
    add(acc[kNirWord], f.nir);
  }
  mark_dirty(e);
}

bool VoxelIndex::merge_winner(std::uint64_t* entry, std::uint64_t* w, const CellFold& f) noexcept {
  std::atomic_ref<std::uint64_t> now(w[0]);
  if (f.best < now.load(std::memory_order_relaxed)) return false;  // it cannot win (keys grow)
  std::atomic_ref<std::uint64_t> lock(w[2]);
  while (lock.exchange(1, std::memory_order_acquire) != 0) {
    while (lock.load(std::memory_order_relaxed) != 0) {
    }
  }
  const std::uint64_t held = now.load(std::memory_order_relaxed);
  const bool wins = f.best > held || (f.best == held && f.digest > w[1]);
  if (wins) {
    now.store(f.best, std::memory_order_relaxed);
    w[1] = f.digest;
    std::memcpy(reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(entry[3 + words_])),
                f.record, layout_.record_bytes);
  }
  lock.store(0, std::memory_order_release);
  return wins;
}

void VoxelIndex::tally(std::uint32_t node, std::uint32_t cell, std::uint32_t cls,
                       std::uint64_t n) noexcept {
  const std::uint64_t total = classes_.add(ClassTally::key_of(node, cell, cls), n);
  const std::uint32_t e = find(key_of(node, cell));
  std::atomic_ref<std::uint64_t> mode(base_[std::uint64_t{e} * stride_ + 2 + kModeWord]);
  const std::uint64_t mine = mode_word(total, cls);
  std::uint64_t seen = mode.load(std::memory_order_relaxed);
  while (seen < mine && !mode.compare_exchange_weak(seen, mine, std::memory_order_relaxed)) {
  }
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
      if (!random_) rgba = ColourSum{acc[0], acc[1], acc[2], acc[3], acc[4]}.rgba();
      if (writes_colours_) {
        set_voxel_colour(reinterpret_cast<std::uint32_t*>(static_cast<std::uintptr_t>(entry[1])),
                         rgba);
      }
      if (averages_records_) {
        write_average_fields(
            reinterpret_cast<std::uint8_t*>(static_cast<std::uintptr_t>(entry[3 + words_])),
            layout_, acc[kIntensityWord], acc[kNirWord], acc[4], acc[kModeWord]);
      }
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
  classes_.clear();
  size_ = capacity_ = dirty_count_ = 0;
  ready_ = false;
}

}  // namespace simlod::detail::cpu
