// The V-map in blocks on the CPU (blocks.hpp): per tile, the leaf pairs of its groups (the
// rules of leaf_pairs, every leaf pair tested as leaves i < j), then climb() up to level b.
#include "core/cpu/visibility/blocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/thread_pool.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {
namespace {

/// The largest matrix of level-b pairs a blocked build holds.
constexpr std::uint64_t kMaxWholeBytes = std::uint64_t{2} << 30;

}  // namespace

BlockPlan plan_blocks(std::span<const VisLevel> levels, std::uint64_t budget_bits) {
  BlockPlan plan;
  plan.width = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::sqrt(static_cast<double>(budget_bits) / 2.0)));
  // Leaves below each entry, level by level from the deepest up; b is the shallowest level
  // whose entries all fit a group.
  const std::size_t depth = levels.size() - 1;
  std::vector<std::uint64_t> below(levels[depth].nodes.size(), 1), up;
  plan.level = static_cast<std::uint32_t>(depth);
  for (std::size_t l = depth; l-- > 0;) {
    const VisLevel& level = levels[l];
    up.assign(level.nodes.size(), 0);
    std::uint64_t widest = 0;
    for (std::size_t e = 0; e < up.size(); ++e) {
      for (std::uint32_t c = level.begin[e]; c < level.begin[e + 1]; ++c) up[e] += below[c];
      widest = std::max(widest, up[e]);
    }
    if (widest > plan.width) break;
    plan.level = static_cast<std::uint32_t>(l);
    below.swap(up);
  }
  // `below` holds level b's counts: pack consecutive entries.
  plan.groups.push_back(0);
  std::uint64_t held = 0;
  for (std::size_t e = 0; e < below.size(); ++e) {
    if (held + below[e] > plan.width) {
      plan.groups.push_back(static_cast<std::uint32_t>(e));
      held = 0;
    }
    held += below[e];
  }
  plan.groups.push_back(static_cast<std::uint32_t>(below.size()));
  return plan;
}

TileLevels tile_levels(std::span<const VisLevel> levels, const BlockPlan& plan, std::size_t a,
                       std::size_t b) {
  TileLevels t;
  t.cross = a != b;
  const std::size_t depth = levels.size() - 1;
  const std::size_t count = depth - plan.level + 1;
  const std::size_t parts = t.cross ? 2 : 1;
  // lo[p][k], hi[p][k]: part p's entries on level b + k.
  std::vector<std::uint32_t> lo[2], hi[2];
  for (std::size_t p = 0; p < parts; ++p) {
    const std::size_t g = p == 0 ? a : b;
    std::uint32_t from = plan.groups[g], to = plan.groups[g + 1];
    for (std::size_t k = 0; k < count; ++k) {
      lo[p].push_back(from);
      hi[p].push_back(to);
      if (k + 1 < count) {
        const VisLevel& level = levels[plan.level + k];
        from = level.begin[from];
        to = level.begin[to];
      }
    }
  }
  t.levels.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    const VisLevel& level = levels[plan.level + k];
    VisLevel& out = t.levels[k];
    for (std::size_t p = 0; p < parts; ++p) {
      // Offsets of part p on this level, the level above and the level below.
      const std::uint32_t above = p == 0 || k == 0 ? 0 : hi[0][k - 1] - lo[0][k - 1];
      const std::uint32_t next = p == 0 || k + 1 == count ? 0 : hi[0][k + 1] - lo[0][k + 1];
      for (std::uint32_t e = lo[p][k]; e < hi[p][k]; ++e) {
        out.nodes.push_back(level.nodes[e]);
        out.parent.push_back(k == 0 ? 0 : level.parent[e] - lo[p][k - 1] + above);
        if (k + 1 < count) out.begin.push_back(level.begin[e] - lo[p][k + 1] + next);
      }
    }
    if (k + 1 < count) {
      out.begin.push_back(static_cast<std::uint32_t>((hi[0][k + 1] - lo[0][k + 1]) +
                                                     (t.cross ? hi[1][k + 1] - lo[1][k + 1] : 0)));
    }
  }
  t.split = hi[0][count - 1] - lo[0][count - 1];
  t.top_split = hi[0][0] - lo[0][0];
  return t;
}

void merge_top(const BlockPlan& plan, const TileLevels& tile, std::size_t a, std::size_t b,
               const std::vector<std::uint64_t>& top, std::uint64_t level_entries,
               std::vector<std::uint64_t>& whole) {
  const std::uint64_t n = tile.levels[0].nodes.size();
  auto global = [&](std::uint64_t x) {
    return x < tile.top_split ? plan.groups[a] + x : plan.groups[b] + (x - tile.top_split);
  };
  for (std::uint64_t x = 0; x + 1 < n; ++x) {
    for (std::uint64_t y = x + 1; y < n; ++y) {
      if (bit_at(top, pair_index(x, y, n)))
        set_bit(whole, pair_index(global(x), global(y), level_entries));
    }
  }
}

std::vector<std::uint64_t> whole_bits(const BlockPlan& plan, std::uint64_t entries) {
  if (pair_count(entries) / 8 > kMaxWholeBytes) {
    throw CapacityError(fmt::format(
        "VisibilityMap: the blocks' level {} has {} entries, a {} MB matrix, beyond {} MB; raise "
        "matrix_bytes or leaf_points",
        plan.level, entries, pair_count(entries) / 8 / 1'000'000, kMaxWholeBytes / 1'000'000));
  }
  return make_bits(entries);
}

BlockedMap build_blocked(const VisTree& tree, std::uint32_t occluders, std::uint64_t budget_bits) {
  const std::vector<VisLevel> levels = vis_levels(tree);
  const BlockPlan plan = plan_blocks(levels, budget_bits);
  const std::uint64_t nb = levels[plan.level].nodes.size();
  std::vector<std::uint64_t> whole = whole_bits(plan, nb);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> found;
  std::vector<std::uint64_t> per_level(tree.depth + 1, 0);
  BlockedMap out;
  ThreadPool& pool = ThreadPool::shared();
  const std::size_t groups = plan.groups.size() - 1;
  for (std::size_t a = 0; a < groups; ++a) {
    for (std::size_t b = a; b < groups; ++b) {
      const TileLevels tile = tile_levels(levels, plan, a, b);
      const VisLevel& bottom = tile.levels.back();
      const std::uint64_t m = bottom.nodes.size();
      std::vector<std::uint64_t> bits = make_bits(m);
      std::vector<std::uint64_t> facing(pool.size(), 0), visible(pool.size(), 0);
      auto row = [&](unsigned worker, std::uint64_t x) {
        std::uint32_t hint = kNoHint;  // the row's last occluder
        const std::uint64_t lx = tree.nodes[bottom.nodes[x]].leaf;
        for (std::uint64_t y = tile.cross ? tile.split : x + 1; y < m; ++y) {
          const std::uint64_t ly = tree.nodes[bottom.nodes[y]].leaf;
          const int result = test_pair(tree, std::min(lx, ly), std::max(lx, ly), occluders, hint);
          facing[worker] += result > 0 ? 1 : 0;
          if (result < 2) continue;
          ++visible[worker];
          set_bit(bits, pair_index(x, y, m));
        }
      };
      const std::uint64_t rows = tile.cross ? tile.split : m;
      pool.parallel_for(rows, 1, [&](unsigned worker, std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) row(worker, r);
      });
      for (unsigned w = 0; w < pool.size(); ++w) {
        out.facing += facing[w];
        out.visible += visible[w];
      }
      const std::vector<std::uint64_t> top =
          climb(tile.levels, std::move(bits), found, std::span(per_level).subspan(plan.level));
      merge_top(plan, tile, a, b, top, nb, whole);
    }
  }
  (void)climb(std::span<const VisLevel>(levels).first(plan.level + 1), std::move(whole), found,
              per_level);
  out.links = links_csr(tree.nodes.size(), found, std::move(per_level));
  return out;
}

}  // namespace simlod::detail::cpu
