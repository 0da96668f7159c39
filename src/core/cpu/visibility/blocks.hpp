// The V-map in blocks, for leaf matrices beyond VisibilityConfig::matrix_bytes: the leaves are
// split at a level b into groups of whole subtrees, and each pair of groups (a tile) gets its
// leaf pairs and its links of the levels below b on its own, in memory bounded by the budget.
// What the tiles find on level b (which pairs of level-b entries see each other wholly) is a
// small matrix, from which the levels b .. 0 are climbed as in the whole build. Leaf pairs,
// counts and links are those of the whole build.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/cpu/visibility/visibility.hpp"

namespace simlod::detail::cpu {

/// Groups of consecutive level-b entries whose leaves number at most `width` each.
struct BlockPlan {
  std::uint32_t level = 0;            ///< b
  std::uint64_t width = 0;            ///< the most leaves a group holds
  std::vector<std::uint32_t> groups;  ///< level-b entry boundaries (groups + 1)
};
/// The plan for a budget of `budget_bits` bits a tile's pair matrix: groups of at most
/// sqrt(budget / 2) leaves (two groups' triangle fits), at the shallowest level where every
/// entry's subtree fits a group.
[[nodiscard]] BlockPlan plan_blocks(std::span<const VisLevel> levels, std::uint64_t budget_bits);

/// The levels b .. depth of a tile: the entries below group a, then (a != b) those below
/// group b, with local indices (parents and child ranges within the tile).
struct TileLevels {
  std::vector<VisLevel> levels;  ///< [0] is level b; its parents are not set
  std::uint64_t split = 0;       ///< deepest-level entries of the first group
  std::uint64_t top_split = 0;   ///< level-b entries of the first group
  bool cross = false;            ///< two groups: only pairs across them are the tile's
};
[[nodiscard]] TileLevels tile_levels(std::span<const VisLevel> levels, const BlockPlan& plan,
                                     std::size_t a, std::size_t b);

/// Sets the level-b pairs of `top` (a tile's first level, its pair bits) in `whole`, the pair
/// bits of all level-b entries.
void merge_top(const BlockPlan& plan, const TileLevels& tile, std::size_t a, std::size_t b,
               const std::vector<std::uint64_t>& top, std::uint64_t level_entries,
               std::vector<std::uint64_t>& whole);

/// The zeroed pair bits of level b's `entries`; CapacityError past 2 GiB.
[[nodiscard]] std::vector<std::uint64_t> whole_bits(const BlockPlan& plan, std::uint64_t entries);

/// A map's pair counts and links, built in blocks (no matrix kept).
struct BlockedMap {
  std::uint64_t facing = 0;
  std::uint64_t visible = 0;
  VisLinks links;
};
[[nodiscard]] BlockedMap build_blocked(const VisTree& tree, std::uint32_t occluders,
                                       std::uint64_t budget_bits);

}  // namespace simlod::detail::cpu
