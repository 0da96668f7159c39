// The voxelizer of the CPU builders: inner nodes sample their children bottom-up, with the
// voxel colour filters (detail/sampling.hpp). The bulk builder runs it over the sorted input
// (voxelize.cpp); the incremental builder over its stored points to compute Sampling::Weighted
// colours again (core/cpu/update/finalize.cpp).
//
// A node is sampled in two passes over its children's samples: the first sets the cells'
// bits in a dense grid of the worker (the store's grids are block-sparse: the bulk builder's
// voxelizer also sets them there, fill_grids); then every cell's rank (set cells before it,
// linear order) is its voxel's index, and the second pass folds every sample into the accumulator
// at that index with the filter (Weighted: into the accumulators of the occupied cells around it).
// So a node's voxels come out in cell order, as the CUDA builder's do.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/cpu/bulk/bulk_tree.hpp"
#include "simlod/detail/sampling.hpp"

namespace simlod::detail::cpu::bulk {

/// The filters: an accumulator per voxel, made from a point (of: its quantised position,
/// colour and input index), merged with the accumulator of another sample of the cell (merge,
/// in sample order), and read as a colour (colour).
struct FirstCome {
  using Acc = std::uint32_t;
  [[nodiscard]] Acc of(const QuantPoint&, std::uint32_t rgba, std::uint32_t) const { return rgba; }
  static void merge(Acc&, const Acc&) {}  // the first sample stays
  [[nodiscard]] static std::uint32_t colour(const Acc& a) { return a; }
};

struct Random {
  using Acc = std::uint64_t;
  std::uint32_t seed;
  [[nodiscard]] Acc of(const QuantPoint& q, std::uint32_t rgba, std::uint32_t) const {
    return random_key(q, rgba, seed);
  }
  static void merge(Acc& into, const Acc& a) { into = std::max(into, a); }
  [[nodiscard]] static std::uint32_t colour(const Acc& a) { return static_cast<std::uint32_t>(a); }
};

struct Average {
  using Acc = ColourSum;
  [[nodiscard]] Acc of(const QuantPoint&, std::uint32_t rgba, std::uint32_t) const {
    ColourSum s;
    s.add(rgba);
    return s;
  }
  static void merge(Acc& into, const Acc& a) { into.add(a); }
  [[nodiscard]] static std::uint32_t colour(const Acc& a) { return a.rgba(); }
};

/// Weighted: a sample adds its colour to the occupied cells around it (spreads), so it is
/// folded in by position (Voxelizer::spread_samples) rather than into its own cell's
/// accumulator.
struct Weighted {
  using Acc = ColourSum;
  static constexpr bool kSpreads = true;
  [[nodiscard]] static std::uint32_t colour(const Acc& a) { return a.rgba(); }
};

/// Attribute channels: FirstCome or Random that also keep the input point whose colour the
/// voxel took, so that the voxel gets its record: the first sample's, or the largest key's
/// with ties broken by the larger record digest (detail/sampling.hpp), as the incremental
/// builder keeps them.
template <class Base>
struct Sourced {
  struct Acc {
    typename Base::Acc colour;
    std::uint32_t digest;
    std::uint32_t source;
  };
  Base base;
  const std::byte* records;
  std::uint32_t record_bytes;

  [[nodiscard]] Acc of(const QuantPoint& q, std::uint32_t rgba, std::uint32_t source) const {
    const auto* record =
        reinterpret_cast<const std::uint8_t*>(records) + std::uint64_t{source} * record_bytes;
    return {base.of(q, rgba, source), record_digest(record, record_bytes), source};
  }
  static void merge(Acc& into, const Acc& a) {
    if constexpr (!std::is_same_v<Base, FirstCome>) {  // Random; FirstCome keeps the first
      if (a.colour > into.colour || (a.colour == into.colour && a.digest > into.digest)) into = a;
    }
  }
  [[nodiscard]] static std::uint32_t colour(const Acc& a) { return Base::colour(a.colour); }
  [[nodiscard]] static std::uint32_t source(const Acc& a) { return a.source; }
};

template <class Filter>
concept Spreads = requires {
  Filter::kSpreads;
};

template <class Filter>
concept KeepsSource = requires(const typename Filter::Acc& a) {
  Filter::source(a);
};

/// The voxels of one node while the tree is voxelized: cells ascending, accumulators beside.
template <class Acc>
struct NodeVoxels {
  std::vector<std::uint32_t> cells;
  std::vector<Acc> acc;
};

/// Leaf points of the bulk builder: ranges of the sorted points.
struct SortedLeaves {
  std::span<const Point> points;
  const SortedPoints& sorted;
  /// Calls fn(quantised point, colour, input index) for every point of leaf `id`.
  template <class Fn>
  void each(std::uint32_t id, Fn&& fn) const {
    for (std::uint64_t i = sorted.begin[id]; i < sorted.end[id]; ++i) {
      fn(sorted.q[i], points[sorted.order[i]].rgba, sorted.order[i]);
    }
  }
};

/// Leaf points of a store: its chunk lists (no input index: 0).
struct StoredLeaves {
  const TreeStore& store;
  template <class Fn>
  void each(std::uint32_t id, Fn&& fn) const {
    store.read().for_each_point(
        id, [&](const Point& p, const QuantPoint& q, const std::byte*) { fn(q, p.rgba, 0u); });
  }
};

/// Samples inner nodes whose children are done (deepest level first, voxelize_levels()).
template <class Filter, class Leaves>
class Voxelizer {
 public:
  using Acc = typename Filter::Acc;

  /// fill_grids: set the occupied cells in the store's grids too (their pages are fresh chunks:
  /// the caller prepares the grids for the bricks, GridStore::prepare_bricks()).
  Voxelizer(const Filter& f, TreeStore& store, const Leaves& leaves, unsigned workers,
            bool fill_grids)
      : f_(f),
        store_(store),
        leaves_(leaves),
        g_(store.geometry.grid_bits),
        words_((std::uint64_t{1} << (3 * g_)) / 64 + ((3 * g_) < 6 ? 1 : 0)),
        fill_grids_(fill_grids),
        voxels_(store.nodes.size()),
        ranks_(workers),
        dense_(workers) {}

  /// Samples inner node `id` (its children done) on worker `w`.
  void node(std::size_t id, unsigned w) {
    const CpuNode& n = store_.nodes[id];
    std::vector<std::uint64_t>& grid = dense_[w];
    grid.assign(words_, 0);
    std::uint64_t* words = grid.data();
    for_each_sample(n, [&](std::uint32_t cell, auto&&) {
      words[cell >> 6] |= std::uint64_t{1} << (cell & 63);
    });
    if (fill_grids_) fill(n.grid, words);
    // Ranks: set cells before each word.
    std::vector<std::uint32_t>& rank = ranks_[w];
    rank.resize(words_);
    std::uint32_t total = 0;
    for (std::uint64_t i = 0; i < words_; ++i) {
      rank[i] = total;
      total += static_cast<std::uint32_t>(std::popcount(words[i]));
    }
    NodeVoxels<Acc>& out = voxels_[id];
    out.cells.resize(total);
    out.acc.resize(total);
    auto rank_of = [&](std::uint32_t cell) {
      const std::uint64_t word = words[cell >> 6];
      return rank[cell >> 6] + static_cast<std::uint32_t>(
                                   std::popcount(word & ((std::uint64_t{1} << (cell & 63)) - 1)));
    };
    if constexpr (Spreads<Filter>) {
      spread_samples(n, [&](const std::uint32_t(&p)[3], std::uint32_t rgba) {
        for_each_spread_cell(p, g_, [&](std::uint32_t cell, std::uint32_t weight) {
          if ((words[cell >> 6] & (std::uint64_t{1} << (cell & 63))) == 0) return;  // empty
          const std::uint32_t r = rank_of(cell);
          out.cells[r] = cell;
          out.acc[r].add(rgba, weight);
        });
      });
    } else {
      std::vector<bool> seen(total, false);
      for_each_sample(n, [&](std::uint32_t cell, auto&& make) {
        const std::uint32_t r = rank_of(cell);
        if (seen[r]) {
          Filter::merge(out.acc[r], make());
        } else {
          seen[r] = true;
          out.cells[r] = cell;
          out.acc[r] = make();
        }
      });
    }
  }

  /// Bytes of the accumulators (and their cells) node `id` holds now.
  [[nodiscard]] std::uint64_t bytes(std::size_t id) const {
    return voxels_[id].cells.size() * (sizeof(std::uint32_t) + sizeof(Acc));
  }

  /// The final colours of node `id`'s voxels; frees its accumulators.
  std::vector<CellSample> colours(std::size_t id) {
    NodeVoxels<Acc>& v = voxels_[id];
    std::vector<CellSample> out(v.cells.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] = {v.cells[i], Filter::colour(v.acc[i]), 0};
      if constexpr (KeepsSource<Filter>) out[i].source = Filter::source(v.acc[i]);
    }
    v = NodeVoxels<Acc>{};
    return out;
  }

 private:
  /// Sets the cells of dense grid `words` in the store's grid `grid`.
  void fill(std::uint32_t grid, const std::uint64_t* words) {
    for (std::uint64_t i = 0; i < words_; ++i) {
      for (std::uint64_t bits = words[i]; bits != 0; bits &= bits - 1) {
        const auto cell = static_cast<std::uint32_t>(i * 64 + std::countr_zero(bits));
        std::atomic_ref<std::uint64_t>(*store_.grids.set_word(grid, cell, store_.chunks))
            .fetch_or(store_.grids.mask(cell), std::memory_order_relaxed);
      }
    }
  }

  /// Calls fn(position in n's grid, colour) for every sample of n's children: points, and
  /// the children's voxels at their cell centres with their colours.
  template <class Fn>
  void spread_samples(const CpuNode& n, Fn&& fn) const {
    const std::uint32_t mask = (1u << g_) - 1u;
    for (std::uint32_t k = 0; k < 8; ++k) {
      const std::uint32_t child = n.first_child + k;
      if (store_.nodes[child].leaf()) {
        leaves_.each(child, [&](const QuantPoint& q, std::uint32_t rgba, std::uint32_t) {
          const std::uint32_t p[3] = {grid_position(q.x, n.level, g_),
                                      grid_position(q.y, n.level, g_),
                                      grid_position(q.z, n.level, g_)};
          fn(p, rgba);
        });
        continue;
      }
      const NodeVoxels<Acc>& below = voxels_[child];
      for (std::size_t j = 0; j < below.cells.size(); ++j) {
        const std::uint32_t c = below.cells[j];
        const std::uint32_t p[3] = {child_cell_position(c & mask, k & 1u, g_),
                                    child_cell_position((c >> g_) & mask, (k >> 1) & 1u, g_),
                                    child_cell_position(c >> (2 * g_), k >> 2, g_)};
        fn(p, Filter::colour(below.acc[j]));
      }
    }
  }

  /// Calls fn(cell in n's grid, make) for every sample of n's children in order, where make()
  /// returns the sample's accumulator.
  template <class Fn>
  void for_each_sample(const CpuNode& n, Fn&& fn) const {
    for (std::uint32_t k = 0; k < 8; ++k) {
      const std::uint32_t child = n.first_child + k;
      if (store_.nodes[child].leaf()) {
        leaves_.each(child, [&](const QuantPoint& q, std::uint32_t rgba, std::uint32_t source) {
          fn(cell_index(q, n.level, g_), [&] {
            if constexpr (Spreads<Filter>) {
              return Acc{};  // the mark needs the cell only; spread_samples folds them in
            } else {
              return f_.of(q, rgba, source);
            }
          });
        });
      } else {
        const NodeVoxels<Acc>& below = voxels_[child];
        for (std::size_t j = 0; j < below.cells.size(); ++j) {
          fn(parent_cell(below.cells[j], k, g_), [&] { return below.acc[j]; });
        }
      }
    }
  }

  Filter f_;
  TreeStore& store_;
  Leaves leaves_;
  std::uint32_t g_;
  std::uint64_t words_;  ///< of a dense grid
  bool fill_grids_;
  std::vector<NodeVoxels<Acc>> voxels_;
  std::vector<std::vector<std::uint32_t>> ranks_;  // per worker
  std::vector<std::vector<std::uint64_t>> dense_;  // per worker: the node's dense grid
};

/// Runs a voxelizer over the inner nodes `levels[l]` of each level l, deepest level first (so
/// that a node's children are done before it), and hands every node's voxels in cell order to
/// done(id, std::vector<CellSample>&&) once its parent is done (the root's last). `peak_bytes`
/// = the most bytes the accumulators held at once (two levels are alive together).
template <class V, class Done>
void voxelize_levels(V& v, PoolView& pool, const std::vector<std::vector<std::uint32_t>>& levels,
                     Done&& done, std::uint64_t& peak_bytes) {
  auto each = [&](std::size_t level, auto&& fn) {
    const std::vector<std::uint32_t>& ids = levels[level];
    pool.parallel_for(ids.size(), 1, [&](unsigned w, std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) fn(ids[i], w);
    });
  };
  for (std::size_t level = levels.size(); level-- > 0;) {
    each(level, [&](std::uint32_t id, unsigned w) { v.node(id, w); });
    std::uint64_t live = 0;
    for (std::size_t l = level; l < std::min(level + 2, levels.size()); ++l) {
      for (const std::uint32_t id : levels[l]) live += v.bytes(id);
    }
    peak_bytes = std::max(peak_bytes, live);
    if (level + 1 < levels.size()) {
      each(level + 1, [&](std::uint32_t id, unsigned) { done(id, v.colours(id)); });
    }
  }
  if (!levels.empty()) {
    for (const std::uint32_t id : levels[0]) done(id, v.colours(id));
  }
}

}  // namespace simlod::detail::cpu::bulk
