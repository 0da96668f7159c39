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
#include <atomic>
#include <bit>
#include <new>

#include "core/cpu/tuning.hpp"
#include "core/cpu/update/updater.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {
namespace {

/// What the index folds of one point: its key, record and colour, and what its record brings
/// (detail::record_extras: the digest; Average's intensity, NIR and class).
struct PointFold {
  std::uint64_t key = 0;
  const std::byte* record = nullptr;
  std::uint32_t rgba = 0;
  RecordExtras ex;
};

PointFold point_fold(const VoxelIndex& index, const QuantPoint& q, std::uint32_t rgba,
                     const std::byte* record) {
  PointFold p;
  p.rgba = rgba;
  if (index.keyed()) p.key = random_key(q, rgba, index.seed());
  if (record == nullptr) return p;
  p.record = record;
  p.ex = record_extras(reinterpret_cast<const std::uint8_t*>(record), index.layout(),
                       index.averages_records());
  return p;
}

/// Folds points into the voxel index, one thread's share: a run of points in the same cell of
/// a level (points in scan order share the cells of coarse levels) is combined here and merged
/// into the index once, which saves the lookups and atomics of the coarse levels (at the finest
/// inner levels nearly every point has a cell of its own: perf-notes.md). Within a run, a
/// streak of points of one class counts once (Average's class counts).
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
  void point(const QuantPoint& q, std::uint32_t rgba, const std::byte* record, Take&& take) {
    const PointFold p = point_fold(index_, q, rgba, record);
    const bool classes = index_.counts_classes();
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
          run.cls = p.ex.cls;
        }
        run.fold.add(p.key, p.ex.digest, p.record, p.rgba);
        run.fold.intensity += p.ex.intensity;
        run.fold.nir += p.ex.nir;
        if (classes && p.ex.cls != run.cls) {
          index_.tally(node, cell, run.cls, run.streak);
          run.cls = p.ex.cls;
          run.streak = 0;
        }
        ++run.streak;
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
    CellFold fold;
    std::uint32_t cls = 0;     // counts_classes(): the class of the current streak
    std::uint64_t streak = 0;  // and its points
  };

  void merge(const Run& run) noexcept {
    if (run.node == kNone) return;
    index_.merge(run.node, run.cell, run.fold);
    if (index_.counts_classes()) index_.tally(run.node, run.cell, run.cls, run.streak);
  }

  VoxelIndex& index_;
  const std::vector<CpuNode>& nodes_;
  std::uint32_t g_;
  std::array<Run, kQuantBits + 1> runs_{};  // per level
};

/// Claims the class counts of points, one thread's share of a pass (Average with a
/// classification channel): every (cell, class) of the inner nodes on a point's path for which
/// take(node) holds gets its count, so that Folder's tally() cannot fail. Sets `full` (and
/// stops claiming) when the counts must grow first.
class Claimer {
 public:
  Claimer(VoxelIndex& index, const std::vector<CpuNode>& nodes, std::uint32_t g,
          std::atomic<bool>& full)
      : index_(index),
        nodes_(nodes),
        g_(g),
        full_(full),
        offset_(index.layout().offset_of(Attribute::Classification)) {
    last_.fill(ClassTally::kEmpty);
  }

  template <class Take>
  void point(const QuantPoint& q, const std::byte* record, Take&& take) {
    if (full_.load(std::memory_order_relaxed)) return;
    const auto cls = static_cast<std::uint32_t>(record[offset_]);
    for (std::uint32_t node = 0; !nodes_[node].leaf();) {
      const CpuNode& n = nodes_[node];
      if (take(node)) {
        const std::uint32_t cell = cell_index(q, n.level, g_);
        const std::uint64_t key = ClassTally::key_of(node, cell, cls);
        if (key != last_[n.level]) {  // points in scan order repeat the coarse levels' keys
          if (!index_.claim_class(node, cell, cls)) full_.store(true, std::memory_order_relaxed);
          last_[n.level] = key;
        }
      }
      node = n.first_child + child_octant(q, n.level);
    }
  }

 private:
  VoxelIndex& index_;
  const std::vector<CpuNode>& nodes_;
  std::uint32_t g_;
  std::atomic<bool>& full_;
  std::uint32_t offset_;
  std::array<std::uint64_t, kQuantBits + 1> last_;  // the last key claimed per level
};

/// Runs pass(full) (Claimers over the points) until no Claimer found the counts full, growing
/// them in between; `room(bytes)` checks the memory before each growth (throws CapacityError).
template <class Pass, class Room>
void claim_classes(VoxelIndex& index, Pass&& pass, Room&& room) {
  if (!index.counts_classes()) return;
  for (;;) {
    std::atomic<bool> full{false};
    pass(full);
    if (!full.load()) return;
    room(index.class_growth_bytes());
    index.grow_classes();
  }
}

}  // namespace

void Updater::fold_batch(Batch& b) noexcept {
  VoxelIndex& index = store_.index;
  const std::uint32_t g = geometry_.grid_bits;
  const std::size_t own = b.input.size();
  const bool records = index.keeps_records();
  pool_.parallel_for(b.size(), kCpuPointGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
    Folder folder(index, nodes_, g);
    for (std::size_t i = lo; i < hi; ++i) {
      const bool stored = i >= own;
      folder.point(b.q[i], b.point(i).rgba, records ? b.record(i) : nullptr,
                   [&](std::uint32_t node) { return !stored || nodes_[node].grid >= b.old_grids; });
    }
  });
  index.write_colours(pool_);
}

void Updater::claim_batch_classes(Batch& b) {
  VoxelIndex& index = store_.index;
  const std::size_t own = b.input.size();
  const auto pass = [&](std::atomic<bool>& full) {
    pool_.parallel_for(b.size(), kCpuPointGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
      Claimer claimer(index, nodes_, geometry_.grid_bits, full);
      for (std::size_t i = lo; i < hi; ++i) {
        const bool stored = i >= own;
        claimer.point(b.q[i], b.record(i), [&](std::uint32_t node) {
          return !stored || nodes_[node].grid >= b.old_grids;
        });
      }
    });
  };
  claim_classes(index, pass,
                [&](std::uint64_t bytes) { require(b, bytes, "class counts of the voxel index"); });
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
  const std::uint32_t bytes = store.chunks.record_bytes();
  const bool records = index.keeps_records();
  const VoxelLayout& layout = store.chunks.voxel_layout();
  pool.parallel_for(nodes.size(), 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t id = lo; id < hi; ++id) {
      const CpuNode& n = nodes[id];
      if (n.leaf()) continue;
      std::uint64_t left = n.count;
      for (std::uint32_t chunk = n.head; left > 0; chunk = store.chunks.next(chunk)) {
        const std::uint32_t k =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(left, layout.capacity));
        std::byte* base = store.chunks.bytes(chunk);
        for (std::uint32_t j = 0; j < k; ++j) {
          index.add(static_cast<std::uint32_t>(id), voxel_cell(base, layout, j),
                    voxel_word(base, j),
                    records ? store.chunks.voxel_records(chunk) + std::size_t{j} * bytes : nullptr);
        }
        left -= k;
      }
    }
  });
  // Every stored point folds into every inner node above it.
  const std::uint32_t g = store.geometry.grid_bits;
  const ReadView view = store.read();
  const auto claim_pass = [&](std::atomic<bool>& full) {
    pool.parallel_for(nodes.size(), 1, [&](unsigned, std::size_t lo, std::size_t hi) {
      Claimer claimer(index, nodes, g, full);
      for (std::size_t id = lo; id < hi; ++id) {
        if (!nodes[id].leaf()) continue;
        view.for_each_point(id, [&](const Point&, const QuantPoint& q, const std::byte* r) {
          claimer.point(q, r, [](std::uint32_t) { return true; });
        });
      }
    });
  };
  try {  // a failure leaves the store without an index, as before the call
    claim_classes(index, claim_pass, [&](std::uint64_t more) {
      if (store.limit != 0 && store.charged() + more > store.limit) {
        throw CapacityError(fmt::format(
            "the class counts of the octree's voxel index need {} more bytes, but only {} of "
            "the {} reserved bytes are free; nothing was inserted",
            more, store.limit - std::min(store.limit, store.charged()), store.limit));
      }
    });
  } catch (const std::bad_alloc&) {
    index.clear();
    throw CapacityError(
        "host memory ran out while counting the classes of the octree's voxels; "
        "nothing was inserted");
  } catch (...) {
    index.clear();
    throw;
  }
  pool.parallel_for(nodes.size(), 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    Folder folder(index, nodes, g);
    for (std::size_t id = lo; id < hi; ++id) {
      if (!nodes[id].leaf()) continue;
      view.for_each_point(id, [&](const Point& p, const QuantPoint& q, const std::byte* r) {
        folder.point(q, p.rgba, records ? r : nullptr, [](std::uint32_t) { return true; });
      });
    }
  });
  index.write_colours(pool);  // the same colours the bulk builder wrote
  index.set_ready(true);
}

}  // namespace simlod::detail::cpu
