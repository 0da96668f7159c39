// Occupancy grids of the CPU octree backend, block-sparse (detail/occupancy_codec.hpp): one slot
// table per inner node (its own allocation, 16 KiB at 128^3) and 64-byte bricks in pages, a
// page being a fresh chunk of the ChunkStore. A slot holds its brick's number; page_at(page)
// gives the page's first brick. Bricks are claimed while threads set bits (set_word()), so
// claiming is lock-free but for taking a page (a mutex, once per bricks_per_page bricks).
// Inner nodes never turn back into leaves, so tables and bricks only go away when a refused
// batch is undone (truncate(), drop_bricks()).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/cpu/tree/chunk_store.hpp"
#include "simlod/detail/occupancy_codec.hpp"

namespace simlod::detail::cpu {

class GridStore {
 public:
  GridStore(std::uint32_t grid_bits, std::uint64_t chunk_bytes)
      : layout_(occupancy_layout(grid_bits, chunk_bytes)) {}

  [[nodiscard]] const OccupancyLayout& layout() const { return layout_; }
  /// Grids (slot tables) handed out: one per inner node.
  [[nodiscard]] std::uint64_t count() const { return tables_.size(); }
  [[nodiscard]] std::uint64_t bricks() const { return bricks_.load(std::memory_order_relaxed); }
  /// Chunks taken as pages of bricks.
  [[nodiscard]] std::uint64_t pages() const { return brick_pages(bricks(), layout_); }
  /// Bytes of the slot tables (the pages are chunks: ChunkStore::allocated() counts them).
  [[nodiscard]] std::uint64_t table_bytes() const { return count() * layout_.table_bytes; }

  /// Room for `count` grids in all, so that acquiring them does not reallocate the table.
  void reserve(std::uint64_t count) { tables_.reserve(count); }
  /// A new grid without bricks. Throws std::bad_alloc.
  std::uint32_t acquire();
  /// Frees the grids from `count` on (their bricks stay until drop_bricks()).
  void truncate(std::uint64_t count) { tables_.resize(count); }
  /// Forgets every grid and brick (Octree::compact(): the tree takes no more batches; the
  /// pages are chunks, which the caller frees with their store).
  void clear() noexcept;

  /// Room in the page table for `more` bricks beyond those claimed, so that set_word() does
  /// not reallocate it while threads read it. Throws std::bad_alloc.
  void prepare_bricks(std::uint64_t more);
  /// The 64-bit word holding `cell`'s bit in grid `grid`, claiming its brick (zeroed, and a
  /// fresh chunk of `chunks` as a new page when the last is full) if it has none. Safe to call
  /// from several threads at once (with nothing else writing the store) after a
  /// prepare_bricks() that covers the bricks claimed. Throws std::bad_alloc (taking a page);
  /// the slot is then as before.
  std::uint64_t* set_word(std::uint32_t grid, std::uint32_t cell, ChunkStore& chunks);
  /// The word holding `cell`'s bit, nullptr while its brick does not exist (for a first look:
  /// set_word() is the one to set bits through).
  [[nodiscard]] const std::uint64_t* find_word(std::uint32_t grid, std::uint32_t cell) const {
    const std::uint32_t s = std::atomic_ref<std::uint32_t>(tables_[grid][brick_of(cell, layout_)])
                                .load(std::memory_order_acquire);
    if (s == kEmptySlot || s == kClaimingSlot) return nullptr;
    return brick_words(s) + brick_bit(cell, layout_) / 64;
  }
  /// `cell`'s bit in the word of find_word() and set_word().
  [[nodiscard]] std::uint64_t mask(std::uint32_t cell) const {
    return std::uint64_t{1} << (brick_bit(cell, layout_) % 64);
  }
  /// Whether `cell` is set in grid `grid`.
  [[nodiscard]] bool test(std::uint32_t grid, std::uint32_t cell) const;
  /// Rollback of a refused batch, per cell it set a bit of: the cell's brick goes back to
  /// empty when it is numbered `keep` or above (claimed by the batch), else the bit is cleared.
  void unset(std::uint32_t grid, std::uint32_t cell, std::uint64_t keep);
  /// Rollback: forgets the bricks from number `keep` on and gives the chunks taken for their
  /// pages back (they are the newest fresh chunks: nothing was taken after them).
  void drop_bricks(std::uint64_t keep, ChunkStore& chunks);

 private:
  [[nodiscard]] std::uint64_t* brick_words(std::uint32_t brick) const {
    return reinterpret_cast<std::uint64_t*>(
        page_at_[brick / layout_.bricks_per_page].load(std::memory_order_acquire) +
        std::size_t{brick % layout_.bricks_per_page} * kBrickBytes);
  }
  std::uint32_t claim(std::atomic_ref<std::uint32_t> slot, ChunkStore& chunks);
  std::byte* page(std::uint64_t page, ChunkStore& chunks);

  OccupancyLayout layout_;
  std::vector<std::unique_ptr<std::uint32_t[]>> tables_;
  std::atomic<std::uint64_t> bricks_{0};
  /// First brick of every page taken (nullptr: not yet), page_room_ entries.
  std::unique_ptr<std::atomic<std::byte*>[]> page_at_;
  std::uint64_t page_room_ = 0;
  std::mutex page_mutex_;
};

}  // namespace simlod::detail::cpu
