// Chunk storage of the CPU octree backend.
//
// A chunk is chunk_bytes() = chunk_capacity * (16 + record_bytes) bytes. A leaf's chunk holds
// its points as point_layout() says (detail/point_codec.hpp: chunk_capacity Points of 16 bytes,
// or about 1.6 times as many quantised ones), then, with attribute channels, their channel
// records (record_bytes each, detail/channels.hpp; record k beside point k). An inner
// node's chunk holds voxel_layout().capacity compact voxels (6 bytes each at grids of up to 256
// cells a side) and their records (detail/voxel_codec.hpp). Beside each chunk a next link. Chunks
// live in slabs of about kChunkSlabBytes that never move, so growing the store never copies
// samples: chunk c is at slab c / per_slab, byte offset (c % per_slab) * chunk_bytes(). next(c) is
// the following chunk of the same node list or kNone. Chunks freed by splits go to the pool (a LIFO
// stack) and are taken again before fresh chunks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/cpu/tree/node.hpp"
#include "simlod/detail/point_codec.hpp"
#include "simlod/detail/voxel_codec.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cpu {

class ChunkStore {
 public:
  /// `chunk_capacity`: OctreeConfig::chunk_capacity, which sets the chunks' bytes.
  ChunkStore(std::uint32_t chunk_capacity, std::uint32_t record_bytes, std::uint32_t grid_bits,
             bool quantized_points);

  /// Points per chunk.
  [[nodiscard]] std::uint32_t capacity() const { return points_.capacity; }
  /// How a chunk of points is laid out.
  [[nodiscard]] const PointLayout& point_layout() const { return points_; }
  /// How a chunk of voxels is laid out (its capacity: voxels per chunk).
  [[nodiscard]] const VoxelLayout& voxel_layout() const { return voxels_; }
  /// Samples per chunk of a leaf (points) or an inner node (voxels).
  [[nodiscard]] std::uint32_t capacity_of(bool leaf) const {
    return leaf ? points_.capacity : voxels_.capacity;
  }
  /// Bytes of a sample's channel record (0: no channels).
  [[nodiscard]] std::uint32_t record_bytes() const { return record_bytes_; }
  [[nodiscard]] std::uint64_t chunk_bytes() const {
    return std::uint64_t{capacity_} * (16 + record_bytes_);
  }
  /// Chunks handed out so far (in lists or pooled); the memory reserve is charged for these.
  [[nodiscard]] std::uint64_t allocated() const { return next_.size(); }
  [[nodiscard]] std::uint64_t pooled() const { return pool_.size(); }

  /// The chunk's first byte.
  [[nodiscard]] std::byte* bytes(std::uint32_t chunk) {
    return slabs_[chunk / per_slab_].get() + std::size_t{chunk % per_slab_} * chunk_bytes();
  }
  [[nodiscard]] const std::byte* bytes(std::uint32_t chunk) const {
    return const_cast<ChunkStore*>(this)->bytes(chunk);
  }
  /// The channel records of a leaf's chunk (meaningful only with record_bytes() > 0).
  [[nodiscard]] std::byte* records(std::uint32_t chunk) {
    return bytes(chunk) + points_.records_offset;
  }
  [[nodiscard]] const std::byte* records(std::uint32_t chunk) const {
    return const_cast<ChunkStore*>(this)->records(chunk);
  }
  /// The channel records of an inner node's chunk.
  [[nodiscard]] std::byte* voxel_records(std::uint32_t chunk) {
    return bytes(chunk) + voxels_.records_offset;
  }
  [[nodiscard]] const std::byte* voxel_records(std::uint32_t chunk) const {
    return const_cast<ChunkStore*>(this)->voxel_records(chunk);
  }
  [[nodiscard]] std::uint32_t next(std::uint32_t chunk) const { return next_[chunk]; }
  void link(std::uint32_t chunk, std::uint32_t next) { next_[chunk] = next; }

  /// Makes room so that `takes` take() calls, after `releases` chunks went to the pool, need no
  /// allocation. Throws std::bad_alloc (CapacityError is the caller's business).
  void prepare(std::uint64_t takes, std::uint64_t releases);
  /// A chunk from the pool, else a fresh one; its next link is kNone. Never throws after a
  /// prepare() that covered it.
  std::uint32_t take() noexcept;
  /// A fresh chunk (never a pooled one), for a page of occupancy bricks (grid_store.hpp); may
  /// allocate: throws std::bad_alloc. Moves no chunk's memory, but grows the table of links.
  std::uint32_t take_fresh();
  /// Gives back the `count` newest fresh chunks (taken by take_fresh(), none taken after them).
  void drop_fresh(std::uint64_t count) noexcept { next_.resize(next_.size() - count); }
  /// Puts every chunk of the list starting at `head` into the pool; returns how many.
  /// Never throws after a prepare() that covered them.
  std::uint64_t release_list(std::uint32_t head) noexcept;
  /// Length of the list starting at `head`.
  [[nodiscard]] std::uint64_t list_length(std::uint32_t head) const;

 private:
  std::uint32_t capacity_;  ///< chunk_capacity
  std::uint32_t record_bytes_;
  PointLayout points_;
  VoxelLayout voxels_;
  std::uint32_t per_slab_;  ///< chunks per slab
  /// Uninitialised bytes (new[] of std::byte starts the lifetime of the Points written there;
  /// its alignment, at least 16, suffices): slabs are not zeroed.
  std::vector<std::unique_ptr<std::byte[]>> slabs_;
  std::vector<std::uint32_t> next_;  ///< one entry per allocated chunk
  std::vector<std::uint32_t> pool_;
};

}  // namespace simlod::detail::cpu
