// Block-sparse occupancy (detail/occupancy_codec.hpp and the CPU grid store): brick arithmetic
// against brute force, the layouts, and the store's claims, rollback and concurrent setting.
#include "simlod/detail/occupancy_codec.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "core/cpu/tree/chunk_store.hpp"
#include "core/cpu/tree/grid_store.hpp"

namespace simlod {
namespace {

using detail::OccupancyLayout;

TEST(OccupancyCodec, BricksAreEightCubedBlocksOfTheLinearGrid) {
  for (std::uint32_t g = 1; g <= 10; ++g) {
    const OccupancyLayout l = detail::occupancy_layout(g, 16000);
    const std::uint32_t b = g < 3 ? g : 3, side = 1u << g, mask = side - 1;
    ASSERT_EQ(l.brick_bits, b);
    ASSERT_EQ(l.bricks, 1u << (3 * (g - b)));
    std::mt19937 rng(g);
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    const std::uint32_t tries = g <= 4 ? (1u << (3 * g)) : 20000;
    for (std::uint32_t t = 0; t < tries; ++t) {
      const std::uint32_t cell = g <= 4 ? t : static_cast<std::uint32_t>(rng() >> (32 - 3 * g));
      const std::uint32_t x = cell & mask, y = (cell >> g) & mask, z = cell >> (2 * g);
      // Brute force: the brick is the block of 2^b cells a side, the bit the cell within it.
      const std::uint32_t per = side >> b, edge = 1u << b;
      const std::uint32_t brick = x / edge + per * (y / edge + per * (z / edge));
      const std::uint32_t bit = x % edge + edge * (y % edge + edge * (z % edge));
      ASSERT_EQ(detail::brick_of(cell, l), brick) << "grid_bits " << g << ", cell " << cell;
      ASSERT_EQ(detail::brick_bit(cell, l), bit) << "grid_bits " << g << ", cell " << cell;
      ASSERT_EQ(detail::brick_cell(brick, bit, l), cell);
      if (g <= 4) {
        EXPECT_TRUE(seen.insert({brick, bit}).second) << "two cells share a bit";
      }
    }
  }
}

TEST(OccupancyCodec, TablesAndPages) {
  // 128^3: 4,096 bricks, a 16 KiB table (a dense grid: 256 KiB); a chunk of 1,000 points
  // (16,000 bytes) holds 249 bricks whatever its alignment to 4 bytes.
  const OccupancyLayout l = detail::occupancy_layout(7, 16000);
  EXPECT_EQ(l.bricks, 4096u);
  EXPECT_EQ(l.table_bytes, 16384u);
  EXPECT_EQ(l.bricks_per_page, 249u);
  for (std::uint64_t at = 0; at < 256; at += 4) {
    const std::uint64_t first = detail::page_brick_offset(at);
    EXPECT_EQ((at + first) % detail::kBrickBytes, 0u);
    EXPECT_LE(first + std::uint64_t{l.bricks_per_page} * detail::kBrickBytes, 16000u);
  }
  // The smallest chunk (8 points of 16 bytes) holds a brick; a grid of 2 cells a side one
  // brick and a 16-byte table.
  EXPECT_EQ(detail::occupancy_layout(7, 128).bricks_per_page, 1u);
  const OccupancyLayout tiny = detail::occupancy_layout(1, 128);
  EXPECT_EQ(tiny.bricks, 1u);
  EXPECT_EQ(tiny.table_bytes, 16u);
  EXPECT_EQ(detail::brick_pages(0, l), 0u);
  EXPECT_EQ(detail::brick_pages(249, l), 1u);
  EXPECT_EQ(detail::brick_pages(250, l), 2u);
}

struct Store {
  detail::cpu::ChunkStore chunks{8, 0, 7, false};  // 128-byte chunks: one brick per page
  detail::cpu::GridStore grids{7, chunks.chunk_bytes()};
};

TEST(OccupancyGridStore, CellsClaimTheirBricksOnce) {
  Store s;
  const std::uint32_t a = s.grids.acquire(), b = s.grids.acquire();
  s.grids.prepare_bricks(16);
  auto set = [&](std::uint32_t grid, std::uint32_t cell) {
    *s.grids.set_word(grid, cell, s.chunks) |= s.grids.mask(cell);
  };
  set(a, 0);
  set(a, 7);            // same brick
  set(a, 8);            // the next brick along x
  set(b, 0);            // another grid
  set(a, 128 * 8 + 1);  // y = 8: a third brick of a
  EXPECT_EQ(s.grids.bricks(), 4u);
  EXPECT_EQ(s.grids.pages(), 4u);
  EXPECT_EQ(s.chunks.allocated(), 4u) << "every page is a fresh chunk";
  for (const std::uint32_t cell : {0u, 7u, 8u, 128u * 8 + 1}) EXPECT_TRUE(s.grids.test(a, cell));
  for (const std::uint32_t cell : {1u, 9u, 128u * 8}) EXPECT_FALSE(s.grids.test(a, cell));
  EXPECT_TRUE(s.grids.test(b, 0));
  EXPECT_FALSE(s.grids.test(b, 8));
  EXPECT_EQ(s.grids.table_bytes(), 2u * 16384);
}

TEST(OccupancyGridStore, RollbackForgetsTheBatchsBricksAndBits) {
  Store s;
  const std::uint32_t a = s.grids.acquire();
  s.grids.prepare_bricks(16);
  *s.grids.set_word(a, 0, s.chunks) |= s.grids.mask(0);
  const std::uint64_t keep = s.grids.bricks(), chunks = s.chunks.allocated();
  // A batch sets a bit in the old brick and claims two new ones.
  for (const std::uint32_t cell : {1u, 8u, 16u}) {
    *s.grids.set_word(a, cell, s.chunks) |= s.grids.mask(cell);
  }
  ASSERT_EQ(s.grids.bricks(), 3u);
  for (const std::uint32_t cell : {1u, 8u, 16u}) s.grids.unset(a, cell, keep);
  s.grids.drop_bricks(keep, s.chunks);
  EXPECT_EQ(s.grids.bricks(), keep);
  EXPECT_EQ(s.chunks.allocated(), chunks);
  EXPECT_TRUE(s.grids.test(a, 0));
  for (const std::uint32_t cell : {1u, 8u, 16u}) EXPECT_FALSE(s.grids.test(a, cell));
  // The slots are empty again: the cells claim fresh bricks.
  *s.grids.set_word(a, 8, s.chunks) |= s.grids.mask(8);
  EXPECT_EQ(s.grids.bricks(), keep + 1);
  EXPECT_TRUE(s.grids.test(a, 8));
}

TEST(OccupancyGridStore, ThreadsSettingCellsClaimEachBrickOnce) {
  detail::cpu::ChunkStore chunks{1000, 0, 7, false};
  detail::cpu::GridStore grids{7, chunks.chunk_bytes()};
  const std::uint32_t grid = grids.acquire();
  constexpr std::uint32_t kCells = 40000;
  std::vector<std::uint32_t> cells(kCells);
  std::mt19937 rng(5);
  for (auto& c : cells) c = static_cast<std::uint32_t>(rng() >> 11);  // 21 bits: 128^3
  grids.prepare_bricks(kCells);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::uint32_t i = t; i < kCells; i += 4) {
        std::atomic_ref<std::uint64_t>(*grids.set_word(grid, cells[i], chunks))
            .fetch_or(grids.mask(cells[i]));
      }
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::uint32_t> bricks;
  for (const std::uint32_t c : cells) bricks.insert(detail::brick_of(c, grids.layout()));
  EXPECT_EQ(grids.bricks(), bricks.size());
  EXPECT_EQ(chunks.allocated(), detail::brick_pages(bricks.size(), grids.layout()));
  for (const std::uint32_t c : cells) ASSERT_TRUE(grids.test(grid, c)) << "cell " << c;
  std::uint32_t set = 0;
  for (std::uint32_t c = 0; c < (1u << 21); ++c) set += grids.test(grid, c) ? 1 : 0;
  EXPECT_EQ(set, std::set<std::uint32_t>(cells.begin(), cells.end()).size());
}

}  // namespace
}  // namespace simlod
