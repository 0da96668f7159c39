// Block-sparse occupancy grids of the CPU backend (grid_store.hpp).
#include "core/cpu/tree/grid_store.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

namespace simlod::detail::cpu {

std::uint32_t GridStore::acquire() {
  auto table = std::make_unique<std::uint32_t[]>(layout_.bricks);
  std::fill_n(table.get(), layout_.bricks, kEmptySlot);
  tables_.reserve(tables_.size() + 1);
  tables_.push_back(std::move(table));
  return static_cast<std::uint32_t>(tables_.size() - 1);
}

void GridStore::clear() noexcept {
  tables_.clear();
  tables_.shrink_to_fit();
  bricks_.store(0, std::memory_order_relaxed);
  page_at_.reset();
  page_room_ = 0;
}

void GridStore::prepare_bricks(std::uint64_t more) {
  const std::uint64_t need = brick_pages(bricks() + more, layout_);
  if (need <= page_room_) return;
  const std::uint64_t room = std::max(need, 2 * page_room_);
  auto grown = std::make_unique<std::atomic<std::byte*>[]>(room);
  for (std::uint64_t p = 0; p < room; ++p) {
    grown[p].store(p < page_room_ ? page_at_[p].load() : nullptr, std::memory_order_relaxed);
  }
  page_at_ = std::move(grown);
  page_room_ = room;
}

std::byte* GridStore::page(std::uint64_t page, ChunkStore& chunks) {
  std::byte* at = page_at_[page].load(std::memory_order_acquire);
  if (at != nullptr) return at;
  const std::lock_guard<std::mutex> lock(page_mutex_);
  at = page_at_[page].load(std::memory_order_relaxed);
  if (at == nullptr) {
    std::byte* chunk = chunks.bytes(chunks.take_fresh());  // may throw std::bad_alloc
    at = chunk + page_brick_offset(reinterpret_cast<std::uintptr_t>(chunk));
    page_at_[page].store(at, std::memory_order_release);
  }
  return at;
}

std::uint32_t GridStore::claim(std::atomic_ref<std::uint32_t> slot, ChunkStore& chunks) {
  std::uint32_t s = kEmptySlot;
  if (!slot.compare_exchange_strong(s, kClaimingSlot, std::memory_order_acquire)) return s;
  try {
    const std::uint64_t n = bricks_.fetch_add(1, std::memory_order_relaxed);
    std::byte* brick = page(n / layout_.bricks_per_page, chunks) +
                       std::size_t{n % layout_.bricks_per_page} * kBrickBytes;
    std::memset(brick, 0, kBrickBytes);
    slot.store(static_cast<std::uint32_t>(n), std::memory_order_release);
    return static_cast<std::uint32_t>(n);
  } catch (...) {
    slot.store(kEmptySlot, std::memory_order_release);
    throw;
  }
}

std::uint64_t* GridStore::set_word(std::uint32_t grid, std::uint32_t cell, ChunkStore& chunks) {
  std::atomic_ref<std::uint32_t> slot(tables_[grid][brick_of(cell, layout_)]);
  std::uint32_t s = slot.load(std::memory_order_acquire);
  while (s == kEmptySlot || s == kClaimingSlot) {
    if (s == kEmptySlot) {
      s = claim(slot, chunks);
    } else {
      std::this_thread::yield();  // another thread is zeroing the brick
      s = slot.load(std::memory_order_acquire);
    }
  }
  return brick_words(s) + brick_bit(cell, layout_) / 64;
}

bool GridStore::test(std::uint32_t grid, std::uint32_t cell) const {
  const std::uint64_t* word = find_word(grid, cell);
  return word != nullptr && (*word & mask(cell)) != 0;
}

void GridStore::unset(std::uint32_t grid, std::uint32_t cell, std::uint64_t keep) {
  std::uint32_t& s = tables_[grid][brick_of(cell, layout_)];
  if (s == kEmptySlot) return;
  if (s >= keep) {  // claimed by the batch (no slot is left kClaimingSlot: claim() undoes it)
    s = kEmptySlot;
    return;
  }
  brick_words(s)[brick_bit(cell, layout_) / 64] &= ~mask(cell);
}

void GridStore::drop_bricks(std::uint64_t keep, ChunkStore& chunks) {
  std::uint64_t taken = 0;
  for (std::uint64_t p = brick_pages(keep, layout_); p < page_room_; ++p) {
    if (page_at_[p].load(std::memory_order_relaxed) == nullptr) continue;
    page_at_[p].store(nullptr, std::memory_order_relaxed);
    ++taken;
  }
  chunks.drop_fresh(taken);
  bricks_.store(keep, std::memory_order_relaxed);
}

}  // namespace simlod::detail::cpu
