// The voxel index of the CUDA store as the incremental builder's passes receive it (in their
// BatchView): what keeps Sampling::Random and Average exact batch by batch, as the CPU store's
// index does (core/cpu/tree/voxel_index.hpp has the scheme). Every voxel has an entry; an
// open-addressing table of entry numbers finds the entry of (node, cell). Device memory of its
// own (kernels/update/voxel_index.cuh owns it), beside the arena.
//
// Entry e (arrays of `capacity` entries, numbered in order of insertion):
//   keys[e]     uint64   node << 32 | cell
//   voxel_words[e]  uint32*  the voxel's colour word in its node's chunk list
//                            (detail/voxel_codec.hpp; the arena never moves)
//   acc[e]      words x uint64   Random: the largest key (1 word); Random with attribute
//                                channels: the largest key; its record's digest << 32 | the
//                                winner's point number in the pass; a lock for GPUs before
//                                sm_90; padding (4 words, the pair 16-byte aligned; the
//                                voxel's record lies beside it in its chunk);
//                                Average: the sums of red, green, blue, alpha and the count
//                                (5 words, a ColourSum);
//                                Average with channels: the ColourSum, padding, the winner
//                                pair as Random's (words 6-7: the point whose other
//                                attributes the voxel takes), its lock, the sums of intensity
//                                and NIR, the mode word of its classes (12 words)
//   dirty[e]    uint32   folded into since its colour was last written
//   list[k]     uint32   the dirty entries, counts[1] of them
// counts[0] = entries. slots: a power of two, at least twice the capacity, of uint32 entry
// numbers, empty = kNil, linear probing.
//
// Average with a classification channel: class counts, an allocation of their own:
// tally_mask + 1 slots of (key = node << 32 | cell << 8 | class, count), empty key = ~0, linear
// probing; tally_counts[0] = keys. Before each pass the table grows until it stays at most half
// full with one new key per point and inner level of the pass (the most the pass can add), so
// the fold pass takes slots for new keys itself and never finds the table full. (The CPU store
// claims its pairs in a pass first instead: core/cpu/tree/class_tally.hpp.)
#pragma once

#include <cstdint>
#include <type_traits>

#include "simlod/detail/channels.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {

struct IndexView {
  unsigned long long* keys = nullptr;
  std::uint32_t** voxel_words = nullptr;
  unsigned long long* acc = nullptr;
  std::uint32_t* dirty = nullptr;
  std::uint32_t* list = nullptr;
  std::uint32_t* slots = nullptr;
  std::uint32_t* counts = nullptr;  ///< [0] entries, [1] dirty entries listed
  std::uint64_t slot_mask = 0;
  std::uint32_t capacity = 0;  ///< entries the arrays hold
  std::uint32_t words = 0;     ///< accumulator words per entry; 0 = no index (passes skip it)
  std::uint32_t seed = 0;      ///< Sampling::Random's seed
  std::uint32_t random = 0;    ///< 1: Sampling::Random (keys), else Average (sums)
  /// With attribute channels: bytes of a channel record (the voxel takes its winner's); 0
  /// otherwise.
  std::uint32_t record_bytes = 0;
  /// With channels: the accumulator word of the winner pair (0 for Random, 6 for Average).
  std::uint32_t winner = 0;
  /// Average with channels: means, mode and a winner's record (detail/channels.hpp).
  /// Weighted with channels keeps the same for its records.
  std::uint32_t averages = 0;
  /// 1: the colour pass writes colours; 0 (Weighted with channels): finalize() does.
  std::uint32_t colours = 1;
  ChannelLayout layout;                 ///< of the records (with channels)
  unsigned long long* tally = nullptr;  ///< class counts: (key, count) per slot
  std::uint32_t* tally_counts = nullptr;
  std::uint64_t tally_mask = 0;  ///< slots - 1 (no slots: 0 and tally null)
};

/// Average with channels: the accumulator words after the ColourSum and the winner pair.
inline constexpr std::uint32_t kAverageWinnerWord = 6, kAverageLockWord = 8,
                               kAverageIntensityWord = 9, kAverageNirWord = 10,
                               kAverageModeWord = 11, kAverageRecordWords = 12;

static_assert(std::is_trivially_copyable_v<IndexView>);

}  // namespace simlod::detail::cuda
