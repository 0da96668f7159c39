// The voxel index of the CPU store: what the incremental builder needs to keep filtered voxel
// colours (Sampling::Random and Average, detail/sampling.hpp) exact batch by batch. Every voxel
// has an entry with its key (node << 32 | cell), the address of its sample in the chunk memory
// and its filter's accumulator; an open-addressing hash table of entry numbers finds the entry
// of (node, cell). A point folds into the entries of its cells on its way down; the colours of
// the entries folded into are then written to their samples.
//
// Entry e (numbers in order of insertion), `stride` uint64 words in one 64-byte aligned array,
// so that a lookup touches two cache lines (its table slot and its entry):
//   word 0              key: node << 32 | cell
//   word 1              the address of its sample (the voxel in its node's chunk list; chunks
//                       never move)
//   words 2 .. 2+w-1    accumulator: Random, the largest key (w = 1); Random with attribute
//                       channels, the largest key, its record's digest and a lock (w = 3);
//                       Average, the sums of red, green, blue, alpha and the count (w = 5, a
//                       ColourSum)
//   word 2+w            1 when folded into since the last write_colours()
//   word 6              Random with channels: the address of the voxel's channel record
//   (padding)           stride = 4 (Random, 32 bytes) or 8 (with channels, or Average: 64 bytes)
// Beside it a list of the dirty entries (uint32, at most `capacity`) and the table: slots (a
// power of two, at least twice the capacity) of uint32 entry numbers, empty = kNone, linear
// probing. Bytes charged = capacity * (8 * stride + 4) + 64 + slots * 4.
//
// Random with channels: merge_winner() takes the entry's lock (a spin lock: it is taken only by
// a point that would win, a few times per voxel) to replace key, digest and record together.
// Threads: add() and the merges may run concurrently with calls of their own kind; reserve(),
// write_colours() and clear() run alone.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cpu/tree/node.hpp"
#include "core/thread_pool.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/detail/sampling.hpp"
#include "simlod/octree.hpp"

namespace simlod::detail::cpu {

class VoxelIndex {
 public:
  explicit VoxelIndex(const OctreeConfig& config);

  /// Whether the filter needs an index (Random, Average).
  [[nodiscard]] bool enabled() const { return words_ != 0; }
  /// Whether every voxel of the store has its entry with all points folded in. A store the
  /// bulk builder wrote starts without (rebuild_index(), core/cpu/update/).
  [[nodiscard]] bool ready() const { return ready_; }
  void set_ready(bool ready) { ready_ = ready; }

  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_for(capacity_); }
  /// bytes() after reserve(entries).
  [[nodiscard]] std::uint64_t bytes_after_reserve(std::uint64_t entries) const {
    return bytes_for(grown_capacity(entries));
  }

  /// Room for `entries` entries in all; keeps every entry. Throws std::bad_alloc (the index is
  /// then as before).
  void reserve(std::uint64_t entries);
  /// Adds the entry of a new voxel (its key must be absent; room reserved) with an empty
  /// accumulator.
  /// `record`: the voxel's channel record (keeps_records()).
  void add(std::uint32_t node, std::uint32_t cell, Point* sample,
           std::byte* record = nullptr) noexcept;
  /// Whether the accumulators are Random's keys (else Average's sums).
  [[nodiscard]] bool random() const { return random_; }
  /// Random with attribute channels: the voxel takes the record of its winner (merge_winner()).
  [[nodiscard]] bool keeps_records() const { return record_bytes_ != 0; }
  [[nodiscard]] std::uint32_t seed() const { return seed_; }
  /// Folds samples into the accumulator of (node, cell), which must have an entry: Random, the
  /// largest of their keys `best`; Average, their sums `sum`.
  void merge(std::uint32_t node, std::uint32_t cell, std::uint64_t best,
             const ColourSum& sum) noexcept;
  /// keeps_records(): folds the sample of key `best` and record digest `digest` into (node,
  /// cell); when (best, digest) is larger than the entry's, the voxel takes `record`.
  void merge_winner(std::uint32_t node, std::uint32_t cell, std::uint64_t best,
                    std::uint64_t digest, const std::byte* record) noexcept;
  /// Writes the colour of every entry folded into since the last call into its sample.
  void write_colours(PoolView& pool) noexcept;
  /// Drops every entry and frees the memory (not ready).
  void clear() noexcept;

 private:
  [[nodiscard]] std::uint64_t bytes_for(std::uint64_t capacity) const;
  [[nodiscard]] std::uint64_t grown_capacity(std::uint64_t entries) const;
  [[nodiscard]] std::uint32_t find(std::uint64_t key) const noexcept;
  /// Lists the entry as folded into (once until write_colours()).
  void mark_dirty(std::uint32_t e) noexcept;
  void link(std::uint32_t entry) noexcept;  ///< puts the entry into the table

  std::uint32_t words_ = 0;         ///< accumulator words per entry; 0 = no index
  std::uint32_t stride_ = 0;        ///< words per entry
  std::uint32_t seed_ = 0;          ///< Sampling::Random's seed
  std::uint32_t record_bytes_ = 0;  ///< Random with channels: bytes of a channel record
  bool random_ = false;
  bool ready_ = true;
  std::uint64_t size_ = 0, capacity_ = 0, dirty_count_ = 0;  // size_, dirty_count_: atomic_ref
  std::vector<std::uint64_t> words_store_;  ///< the entries, from base_ (64-byte aligned) on
  std::uint64_t* base_ = nullptr;
  std::vector<std::uint32_t> list_;
  std::vector<std::uint32_t> slots_;
};

}  // namespace simlod::detail::cpu
