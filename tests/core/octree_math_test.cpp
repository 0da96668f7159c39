// The integer arithmetic the bulk builder relies on, against brute force: a child cell's parent
// cell (detail::parent_cell) and the inverse Morton spread (detail::compact_bits_3d).
#include "simlod/detail/octree_math.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace simlod::detail {
namespace {

TEST(OctreeMath, ParentCellEqualsTheCellOfEveryPointOfTheChildCell) {
  std::uint64_t state = 11;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 33);
  };
  for (std::uint32_t g : {1u, 3u, 5u, 7u, 10u}) {
    for (std::uint32_t level : {0u, 1u, 6u, max_depth_for_grid(g) - 1}) {
      for (int i = 0; i < 2000; ++i) {
        const QuantPoint q{next() & kQuantMax, next() & kQuantMax, next() & kQuantMax};
        const std::uint32_t octant = child_octant(q, level);
        const std::uint32_t child = cell_index(q, level + 1, g);
        ASSERT_EQ(parent_cell(child, octant, g), cell_index(q, level, g))
            << "g " << g << " level " << level;
      }
    }
  }
}

TEST(OctreeMath, CompactUndoesSpread) {
  for (std::uint32_t v : {0u, 1u, 2u, 0x155555u, 0x1FFFFFu, 0x0ABCDEu}) {
    EXPECT_EQ(compact_bits_3d(spread_bits_3d(v)), v);
    EXPECT_EQ(compact_bits_3d(morton_3d(3, v, 9) >> 1), v);
  }
}

}  // namespace
}  // namespace simlod::detail
