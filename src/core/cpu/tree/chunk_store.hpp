// Chunk storage of the CPU octree backend.
//
// A chunk is `capacity` Points (16 bytes each, alignment 4, so capacity * 16 bytes), then, with
// attribute channels, `capacity` channel records (record_bytes each, detail/channels.hpp; record
// k beside point k), plus a next link. Chunks live in slabs of about kChunkSlabBytes that never
// move, so growing the store never copies samples: chunk c is at slab c / per_slab, byte offset
// (c % per_slab) * chunk_bytes().
// next(c) is the following chunk of the same node list or kNone. Chunks freed by splits go to
// the pool (a LIFO stack) and are taken again before fresh chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/cpu/tree/node.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cpu {

class ChunkStore {
 public:
  explicit ChunkStore(std::uint32_t capacity, std::uint32_t record_bytes = 0);

  [[nodiscard]] std::uint32_t capacity() const { return capacity_; }
  /// Bytes of a sample's channel record (0: no channels).
  [[nodiscard]] std::uint32_t record_bytes() const { return record_bytes_; }
  [[nodiscard]] std::uint64_t chunk_bytes() const {
    return std::uint64_t{capacity_} * (16 + record_bytes_);
  }
  /// Chunks handed out so far (in lists or pooled); the memory reserve is charged for these.
  [[nodiscard]] std::uint64_t allocated() const { return next_.size(); }
  [[nodiscard]] std::uint64_t pooled() const { return pool_.size(); }

  [[nodiscard]] Point* data(std::uint32_t chunk) {
    return reinterpret_cast<Point*>(slabs_[chunk / per_slab_].get() +
                                    std::size_t{chunk % per_slab_} * chunk_bytes());
  }
  [[nodiscard]] const Point* data(std::uint32_t chunk) const {
    return const_cast<ChunkStore*>(this)->data(chunk);
  }
  /// The channel records of a chunk (meaningful only with record_bytes() > 0).
  [[nodiscard]] std::byte* records(std::uint32_t chunk) {
    return reinterpret_cast<std::byte*>(data(chunk) + capacity_);
  }
  [[nodiscard]] const std::byte* records(std::uint32_t chunk) const {
    return const_cast<ChunkStore*>(this)->records(chunk);
  }
  [[nodiscard]] std::uint32_t next(std::uint32_t chunk) const { return next_[chunk]; }
  void link(std::uint32_t chunk, std::uint32_t next) { next_[chunk] = next; }

  /// Makes room so that `takes` take() calls, after `releases` chunks went to the pool, need no
  /// allocation. Throws std::bad_alloc (CapacityError is the caller's business).
  void prepare(std::uint64_t takes, std::uint64_t releases);
  /// A chunk from the pool, else a fresh one; its next link is kNone. Never throws after a
  /// prepare() that covered it.
  std::uint32_t take() noexcept;
  /// Puts every chunk of the list starting at `head` into the pool; returns how many.
  /// Never throws after a prepare() that covered them.
  std::uint64_t release_list(std::uint32_t head) noexcept;
  /// Length of the list starting at `head`.
  [[nodiscard]] std::uint64_t list_length(std::uint32_t head) const;

 private:
  std::uint32_t capacity_;
  std::uint32_t record_bytes_;
  std::uint32_t per_slab_;  ///< chunks per slab
  /// Uninitialised bytes (new[] of std::byte starts the lifetime of the Points written there;
  /// its alignment, at least 16, suffices): slabs are not zeroed.
  std::vector<std::unique_ptr<std::byte[]>> slabs_;
  std::vector<std::uint32_t> next_;  ///< one entry per allocated chunk
  std::vector<std::uint32_t> pool_;
};

}  // namespace simlod::detail::cpu
