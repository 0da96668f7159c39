// The voxel index of the CPU store: what the incremental builder needs to keep filtered voxel
// colours (Sampling::Random and Average, detail/sampling.hpp) exact batch by batch. Every voxel
// has an entry with its key (node << 32 | cell), the address of its colour word in the chunk memory
// and its filter's accumulator; an open-addressing hash table of entry numbers finds the entry
// of (node, cell). A point folds into the entries of its cells on its way down; the colours of
// the entries folded into are then written to their samples.
//
// Entry e (numbers in order of insertion), `stride` uint64 words in one 64-byte aligned array,
// so that a lookup touches two cache lines (its table slot and its entry):
//   word 0              key: node << 32 | cell
//   word 1              the address of its colour word (detail/voxel_codec.hpp: the voxel in
//                       its node's chunk list; chunks never move)
//   words 2 .. 2+w-1    accumulator (w words):
//                         Random: the largest key (w = 1);
//                         Random with attribute channels: the largest key, its record's
//                         digest and a lock (w = 3);
//                         Average: the sums of red, green, blue, alpha and the count (w = 5, a
//                         ColourSum);
//                         Average with channels (and Weighted with channels, whose colours
//                         finalize() computes, so its sums go unused): the ColourSum, then
//                         the largest Random key,
//                         its digest and a lock (the point whose other attributes the voxel
//                         takes), the sums of intensity and NIR and the mode word of its
//                         classes (detail/channels.hpp) (w = 11)
//   word 2+w            1 when folded into since the last write_colours()
//   word 3+w            with channels: the address of the voxel's channel record
//   (padding)           stride = 4 (Random, 32 bytes), 8 (Random with channels, or Average: 64
//                       bytes) or 16 (Average with channels: 128 bytes)
// Beside it a list of the dirty entries (uint32, at most `capacity`) and the table: slots (a
// power of two, at least twice the capacity) of uint32 entry numbers, empty = kNone, linear
// probing. Bytes charged = capacity * (8 * stride + 4) + 64 + slots * 4, plus the class counts
// (class_tally.hpp) with a classification channel under Average.
//
// With channels, merge() takes the entry's lock (a spin lock: it is taken only by a point that
// would win, a few times per voxel) to replace key, digest and record together; write_colours()
// then writes Average's means and mode into the record.
// Threads: add(), claim_class(), the merges and tally() may run concurrently with calls of their
// own kind; reserve(), grow_classes(), write_colours() and clear() run alone.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cpu/tree/class_tally.hpp"
#include "core/cpu/tree/node.hpp"
#include "core/thread_pool.hpp"
#include "simlod/detail/channels.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/detail/sampling.hpp"
#include "simlod/octree.hpp"

namespace simlod::detail::cpu {

/// What a run of points of one cell folds into its entry.
struct CellFold {
  std::uint64_t best = 0;                ///< Random (and Average with channels): the largest key,
  std::uint64_t digest = 0;              ///< with channels its record's digest
  const std::byte* record = nullptr;     ///< and its record
  ColourSum sum;                         ///< Average
  std::uint64_t intensity = 0, nir = 0;  ///< Average with channels: sums of the points' values

  /// Adds a point of key `key` (0 without), record digest `dig` and colour `rgba`.
  void add(std::uint64_t key, std::uint64_t dig, const std::byte* rec, std::uint32_t rgba) {
    if (key > best || (key == best && dig > digest)) {
      best = key;
      digest = dig;
      record = rec;
    }
    sum.add(rgba);
  }
};

class VoxelIndex {
 public:
  explicit VoxelIndex(const OctreeConfig& config);

  /// Whether the filter needs an index (Random, Average; Weighted with channels, for them).
  [[nodiscard]] bool enabled() const { return words_ != 0; }
  /// Whether every voxel of the store has its entry with all points folded in. A store the
  /// bulk builder wrote starts without (rebuild_index(), core/cpu/update/).
  [[nodiscard]] bool ready() const { return ready_; }
  void set_ready(bool ready) { ready_ = ready; }

  [[nodiscard]] std::uint64_t size() const { return size_; }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_for(capacity_) + classes_.bytes(); }
  /// bytes() after reserve(entries).
  [[nodiscard]] std::uint64_t bytes_after_reserve(std::uint64_t entries) const {
    return bytes_for(grown_capacity(entries)) + classes_.bytes();
  }

  /// Room for `entries` entries in all; keeps every entry. Throws std::bad_alloc (the index is
  /// then as before).
  void reserve(std::uint64_t entries);
  /// Adds the entry of a new voxel (its key must be absent; room reserved) with an empty
  /// accumulator.
  /// `record`: the voxel's channel record (keeps_records()).
  void add(std::uint32_t node, std::uint32_t cell, std::uint32_t* word,
           std::byte* record = nullptr) noexcept;
  /// Whether points carry Random keys (Random; Average with channels, for the point whose
  /// attributes the voxel takes).
  [[nodiscard]] bool keyed() const { return keyed_; }
  /// With attribute channels the voxel takes the record of its winner (merge()).
  [[nodiscard]] bool keeps_records() const { return layout_.record_bytes != 0; }
  /// Average with channels: intensity and NIR sums, and the classification's counts.
  [[nodiscard]] bool averages_records() const { return averages_records_; }
  /// Average with a classification channel: the voxel's class is the mode (tally()).
  [[nodiscard]] bool counts_classes() const { return counts_classes_; }
  [[nodiscard]] const ChannelLayout& layout() const { return layout_; }
  [[nodiscard]] std::uint32_t seed() const { return seed_; }

  /// Folds a run of samples of (node, cell), which must have an entry: Random, the largest of
  /// their keys; Average, their sums; with channels, the record of the largest (key, digest)
  /// when it beats the entry's (the voxel then takes it) and Average's attribute sums.
  void merge(std::uint32_t node, std::uint32_t cell, const CellFold& f) noexcept;

  /// counts_classes(): makes sure (node, cell, cls) has a count; false when the counts are
  /// too full to add it (grow_classes(), then claim again).
  [[nodiscard]] bool claim_class(std::uint32_t node, std::uint32_t cell,
                                 std::uint32_t cls) noexcept {
    return classes_.claim(ClassTally::key_of(node, cell, cls));
  }
  /// Bytes grow_classes() adds; it throws std::bad_alloc (the counts then as before).
  [[nodiscard]] std::uint64_t class_growth_bytes() const { return classes_.growth_bytes(); }
  void grow_classes() { classes_.grow(); }
  /// counts_classes(): n more points of class `cls` below (node, cell), claimed and with an
  /// entry; the entry's mode follows.
  void tally(std::uint32_t node, std::uint32_t cell, std::uint32_t cls, std::uint64_t n) noexcept;

  /// The colour word of the voxel of (node, cell) (set_voxel_colour()); nullptr when it has
  /// no entry.
  [[nodiscard]] std::uint32_t* word_of(std::uint32_t node, std::uint32_t cell) const noexcept;

  /// Writes the colour of every entry folded into since the last call into its sample (not
  /// for Weighted, whose colours finalize() computes) and with Average's channels (Weighted's
  /// too) their means and mode into its record.
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
  /// The winner words (key, digest, lock) at `w`: takes the fold's record when it wins.
  bool merge_winner(std::uint64_t* entry, std::uint64_t* w, const CellFold& f) noexcept;

  std::uint32_t words_ = 0;   ///< accumulator words per entry; 0 = no index
  std::uint32_t stride_ = 0;  ///< words per entry
  std::uint32_t seed_ = 0;    ///< Sampling::Random's seed
  ChannelLayout layout_;      ///< the store's channel records (none: record_bytes 0)
  bool random_ = false, keyed_ = false, averages_records_ = false, counts_classes_ = false;
  bool writes_colours_ = true;  ///< false: Weighted with channels
  bool ready_ = true;
  std::uint64_t size_ = 0, capacity_ = 0, dirty_count_ = 0;  // size_, dirty_count_: atomic_ref
  std::vector<std::uint64_t> words_store_;  ///< the entries, from base_ (64-byte aligned) on
  std::uint64_t* base_ = nullptr;
  std::vector<std::uint32_t> list_;
  std::vector<std::uint32_t> slots_;
  ClassTally classes_;
};

}  // namespace simlod::detail::cpu
