// The V-map's links, level by level from the deepest up. Level l lists the inner nodes of depth
// l and the leaves of depth <= l (a leaf stands for itself below its own depth); an entry's
// children on level l + 1 are a range (its children, or itself). FV_l(A, B), "every leaf below
// A sees every leaf below B", is the AND of FV_(l+1) over the pairs of their ranges; on the
// deepest level every entry is a leaf and FV is the leaf matrix. A pair true on level l + 1 is
// a link unless its parents are one entry or their pair is true on level l too: so every
// visible leaf pair is covered by exactly one link, the highest on its chain of ancestors.
#include <algorithm>
#include <atomic>
#include <bit>
#include <span>
#include <utility>
#include <vector>

#include "core/cpu/visibility/visibility.hpp"
#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {
namespace {

using Bits = std::vector<std::uint64_t>;

/// Calls fn(y) for every true pair (x, y), y > x, of an n-entry pair matrix: row x is one run
/// of bits (pair_index), read a word at a time, zero words skipped.
template <class Fn>
void for_each_in_row(const Bits& bits, std::uint64_t x, std::uint64_t n, Fn&& fn) {
  if (x + 1 >= n) return;
  const std::uint64_t first = pair_index(x, x + 1, n), end = first + (n - x - 1);
  for (std::uint64_t w = first >> 6; w <= (end - 1) >> 6; ++w) {
    std::uint64_t word = bits[w];
    if (w == first >> 6) word &= ~std::uint64_t{0} << (first & 63u);
    if (w == (end - 1) >> 6 && (end & 63u) != 0) word &= (std::uint64_t{1} << (end & 63u)) - 1;
    for (; word != 0; word &= word - 1) {
      fn(x + 1 + ((w << 6) + static_cast<std::uint64_t>(std::countr_zero(word)) - first));
    }
  }
}

}  // namespace

std::vector<VisLevel> vis_levels(const VisTree& tree) {
  std::vector<VisLevel> levels(tree.depth + 1);
  levels[0].nodes = {0};
  levels[0].parent = {0};
  for (std::uint32_t l = 0; l < tree.depth; ++l) {
    VisLevel& cur = levels[l];
    VisLevel& next = levels[l + 1];
    cur.begin.reserve(cur.nodes.size() + 1);
    for (std::uint32_t e = 0; e < cur.nodes.size(); ++e) {
      cur.begin.push_back(static_cast<std::uint32_t>(next.nodes.size()));
      const VisibilityNode& node = tree.nodes[cur.nodes[e]];
      if (node.leaf == VisibilityNode::kNone) {
        for (std::uint32_t k = 0; k < node.children; ++k) {
          next.nodes.push_back(node.first_child + k);
          next.parent.push_back(e);
        }
      } else {
        next.nodes.push_back(cur.nodes[e]);
        next.parent.push_back(e);
      }
    }
    cur.begin.push_back(static_cast<std::uint32_t>(next.nodes.size()));
  }
  return levels;
}

VisLinks links_csr(std::size_t nodes,
                   const std::vector<std::pair<std::uint32_t, std::uint32_t>>& found,
                   std::vector<std::uint64_t> per_level) {
  VisLinks out;
  out.per_level = std::move(per_level);
  out.offsets.assign(nodes + 1, 0);
  for (const auto& [a, b] : found) {
    ++out.offsets[a + 1];
    ++out.offsets[b + 1];
  }
  for (std::size_t i = 0; i < nodes; ++i) out.offsets[i + 1] += out.offsets[i];
  out.targets.resize(out.offsets[nodes]);
  std::vector<std::uint64_t> fill(out.offsets.begin(), out.offsets.end() - 1);
  for (const auto& [a, b] : found) {
    out.targets[fill[a]++] = b;
    out.targets[fill[b]++] = a;
  }
  ThreadPool::shared().parallel_for(nodes, 64, [&](unsigned, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      std::sort(out.targets.begin() + static_cast<std::ptrdiff_t>(out.offsets[i]),
                out.targets.begin() + static_cast<std::ptrdiff_t>(out.offsets[i + 1]));
    }
  });
  return out;
}

std::vector<std::uint64_t> climb(std::span<const VisLevel> levels, std::vector<std::uint64_t> below,
                                 std::vector<std::pair<std::uint32_t, std::uint32_t>>& found,
                                 std::span<std::uint64_t> per_level) {
  ThreadPool& pool = ThreadPool::shared();
  for (std::size_t l = levels.size() - 1; l-- > 0;) {
    const VisLevel& up = levels[l];
    const VisLevel& low = levels[l + 1];
    const std::uint64_t nu = up.nodes.size(), nl = low.nodes.size();
    Bits above = make_bits(nu);
    pool.parallel_for(nu, 1, [&](unsigned, std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        for (std::uint64_t j = i + 1; j < nu; ++j) {
          bool all = true;
          for (std::uint64_t x = up.begin[i]; all && x < up.begin[i + 1]; ++x) {
            for (std::uint64_t y = up.begin[j]; all && y < up.begin[j + 1]; ++y) {
              all = bit_at(below, pair_index(x, y, nl));
            }
          }
          if (all) set_bit(above, pair_index(i, j, nu));
        }
      }
    });
    // Links of level l + 1: true pairs whose parents are one entry or a false pair, found per
    // worker (links_csr() sorts each node's targets, so their order does not matter).
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> mine(pool.size());
    pool.parallel_for(nl, 16, [&](unsigned w, std::size_t b, std::size_t e) {
      for (std::size_t x = b; x < e; ++x) {
        for_each_in_row(below, x, nl, [&](std::uint64_t y) {
          const std::uint32_t px = low.parent[x], py = low.parent[y];
          if (px != py && bit_at(above, pair_index(px, py, nu))) return;
          mine[w].emplace_back(low.nodes[x], low.nodes[y]);
        });
      }
    });
    for (const auto& part : mine) {
      found.insert(found.end(), part.begin(), part.end());
      per_level[l + 1] += part.size();
    }
    below = std::move(above);
  }
  return below;
}

VisLinks build_links(const VisTree& tree, const LeafPairs& pairs) {
  const std::uint32_t depth = tree.depth;
  const std::vector<VisLevel> levels = vis_levels(tree);
  // The deepest level: the leaf matrix in this level's order.
  const VisLevel& bottom = levels[depth];
  const std::uint64_t nb = bottom.nodes.size();
  const std::uint64_t leaves = tree.leaves.size();
  Bits below = make_bits(nb);
  ThreadPool::shared().parallel_for(nb, 16, [&](unsigned, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::uint64_t li = tree.nodes[bottom.nodes[i]].leaf;
      for (std::uint64_t j = i + 1; j < nb; ++j) {
        const std::uint64_t lj = tree.nodes[bottom.nodes[j]].leaf;
        const std::uint64_t a = std::min(li, lj), c = std::max(li, lj);
        if (bit_at(pairs.bits, pair_index(a, c, leaves))) set_bit(below, pair_index(i, j, nb));
      }
    }
  });
  std::vector<std::pair<std::uint32_t, std::uint32_t>> found;
  std::vector<std::uint64_t> per_level(depth + 1, 0);
  (void)climb(levels, std::move(below), found, per_level);
  return links_csr(tree.nodes.size(), found, std::move(per_level));
}

}  // namespace simlod::detail::cpu
