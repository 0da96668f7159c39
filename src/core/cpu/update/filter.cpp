// Filtered voxel colours in the incremental builder (Sampling::Random and Average): the voxel
// index (core/cpu/tree/voxel_index.hpp) holds each voxel's accumulator, and every point folds
// into the cells of the inner nodes above it, once. A batch's own points fold into every inner
// node on their path; the stored points of a leaf the batch splits folded into its ancestors
// when they were inserted, so they fold into the nodes that split in this batch only: those
// whose grid is new (grid ids grow with every split and only a refused batch gives any back). The
// accumulators then hold exactly what the bulk builder computes from all points at once.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <new>

#include "core/cpu/tuning.hpp"
#include "core/cpu/update/updater.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {
namespace {

/// Folds points into the voxel index, one thread's share: a run of points in the same cell of
/// a level (points in scan order share the cells of coarse levels) is combined here and merged
/// into the index once, which saves the lookups and atomics of the coarse levels (at the finest
/// inner levels nearly every point has a cell of its own: perf-notes.md).
class Folder {
 public:
  Folder(VoxelIndex& index, const std::vector<CpuNode>& nodes, std::uint32_t g)
      : index_(index), nodes_(nodes), g_(g) {}
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;
  ~Folder() { flush(); }

  /// Folds the point (q, rgba) with channel record `record` (keeps_records(); else nullptr)
  /// into its cell of every inner node on its path from the root for which take(node) holds.
  template <class Take>
  void point(const QuantPoint& q, std::uint32_t rgba, const std::byte* record,
             std::uint32_t record_bytes, Take&& take) {
    const std::uint64_t key = index_.random() ? random_key(q, rgba, index_.seed()) : 0;
    const std::uint64_t digest =
        record != nullptr
            ? record_digest(reinterpret_cast<const std::uint8_t*>(record), record_bytes)
            : 0;
    std::uint32_t node = 0;
    while (!nodes_[node].leaf()) {
      const CpuNode& n = nodes_[node];
      if (take(node)) {
        Run& run = runs_[n.level];
        const std::uint32_t cell = cell_index(q, n.level, g_);
        if (run.node != node || run.cell != cell) {
          merge(run);
          run = Run{};
          run.node = node;
          run.cell = cell;
        }
        if (key > run.best || (key == run.best && digest > run.digest)) {
          run.best = key;
          run.digest = digest;
          run.record = record;
        }
        run.sum.add(rgba);
      }
      node = n.first_child + child_octant(q, n.level);
    }
  }

  void flush() noexcept {
    for (Run& run : runs_) {
      merge(run);
      run = Run{};
    }
  }

 private:
  struct Run {
    std::uint32_t node = kNone, cell = 0;
    std::uint64_t best = 0;             // Random: the largest key,
    std::uint64_t digest = 0;           // with channels its record's digest
    const std::byte* record = nullptr;  // and its record
    ColourSum sum;                      // Average
  };

  void merge(const Run& run) noexcept {
    if (run.node == kNone) return;
    if (index_.keeps_records()) {
      index_.merge_winner(run.node, run.cell, run.best, run.digest, run.record);
    } else {
      index_.merge(run.node, run.cell, run.best, run.sum);
    }
  }

  VoxelIndex& index_;
  const std::vector<CpuNode>& nodes_;
  std::uint32_t g_;
  std::array<Run, kQuantBits + 1> runs_{};  // per level
};

}  // namespace

void Updater::fold_batch(Batch& b) noexcept {
  VoxelIndex& index = store_.index;
  const std::uint32_t g = geometry_.grid_bits;
  const std::size_t own = b.input.size();
  const auto bytes = static_cast<std::uint32_t>(b.record_bytes);
  const bool records = index.keeps_records();
  pool_.parallel_for(b.size(), kCpuPointGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
    Folder folder(index, nodes_, g);
    for (std::size_t i = lo; i < hi; ++i) {
      const bool stored = i >= own;
      folder.point(b.q[i], b.point(i).rgba, records ? b.record(i) : nullptr, bytes,
                   [&](std::uint32_t node) { return !stored || nodes_[node].grid >= b.old_grids; });
    }
  });
  index.write_colours(pool_);
}

void index_tree(TreeStore& store, PoolView& pool) {
  VoxelIndex& index = store.index;
  if (!index.enabled() || index.ready()) return;
  const std::uint64_t growth = index.bytes_after_reserve(store.voxels) - index.bytes();
  if (store.limit != 0 && store.charged() + growth > store.limit) {
    throw CapacityError(fmt::format(
        "the voxel index of the octree's {} voxels (which keeps their filtered colours up to "
        "date while batches go in) needs {} bytes, but only {} of the {} reserved bytes are "
        "free; nothing was inserted",
        store.voxels, growth, store.limit - std::min(store.limit, store.charged()), store.limit));
  }
  try {
    index.reserve(store.voxels);
  } catch (const std::bad_alloc&) {
    index.clear();
    throw CapacityError(fmt::format(
        "host memory ran out while indexing the octree's {} voxels; nothing was inserted",
        store.voxels));
  }
  const std::vector<CpuNode>& nodes = store.nodes;
  const std::uint32_t cap = store.chunks.capacity();
  const std::uint32_t bytes = store.chunks.record_bytes();
  const bool records = index.keeps_records();
  // The bulk builder writes a node's voxels in cell order: its k-th set grid bit is its k-th
  // voxel.
  pool.parallel_for(nodes.size(), 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t id = lo; id < hi; ++id) {
      const CpuNode& n = nodes[id];
      if (n.leaf()) continue;
      const std::uint64_t* words = store.grids.words(n.grid);
      std::uint32_t chunk = n.head;
      std::uint64_t k = 0;
      for (std::uint64_t w = 0; w < store.grids.grid_bytes() / 8; ++w) {
        for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1, ++k) {
          if (k > 0 && k % cap == 0) chunk = store.chunks.next(chunk);
          const auto cell = static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits));
          index.add(static_cast<std::uint32_t>(id), cell, store.chunks.data(chunk) + k % cap,
                    records ? store.chunks.records(chunk) + k % cap * bytes : nullptr);
        }
      }
    }
  });
  // Every stored point folds into every inner node above it.
  const std::uint32_t g = store.geometry.grid_bits;
  const float scale = store.geometry.quant_scale;
  const ReadView view = store.read();
  pool.parallel_for(nodes.size(), 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    Folder folder(index, nodes, g);
    for (std::size_t id = lo; id < hi; ++id) {
      if (!nodes[id].leaf()) continue;
      view.for_each_run(id, [&](const Point* p, const std::byte* r, std::size_t count) {
        for (std::size_t j = 0; j < count; ++j) {
          folder.point(quantize(p[j], scale), p[j].rgba, records ? r + j * bytes : nullptr, bytes,
                       [](std::uint32_t) { return true; });
        }
      });
    }
  });
  index.write_colours(pool);  // the same colours the bulk builder wrote
  index.set_ready(true);
}

}  // namespace simlod::detail::cpu
