// Phase 2, sample: every point walks from the root to its leaf and sets its cell bit in each
// inner node on the way; the point whose fetch_or sets a bit emits that node's voxel
// (first-come colour). Voxels are counted per node for the allocation phase.
#include <algorithm>
#include <atomic>

#include "core/cpu/tuning.hpp"
#include "core/cpu/update/local_counts.hpp"
#include "core/cpu/update/updater.hpp"

namespace simlod::detail::cpu {

void Updater::sample(Batch& b) {
  const std::uint32_t g = geometry_.grid_bits;
  // Every point claims at most a brick per inner node on its walk.
  const std::uint64_t levels = std::max(depth_, b.depth);
  grids_.prepare_bricks(std::min<std::uint64_t>(std::uint64_t{b.size()} * levels,
                                                grids_.count() * grids_.layout().bricks));
  auto& receivers = b.per_worker;
  for (auto& list : receivers) list.clear();
  pool_.parallel_for(b.size(), kCpuPointGrain, [&](unsigned w, std::size_t lo, std::size_t hi) {
    auto& records = b.voxels[w];
    auto& mine = receivers[w];
    auto flush = [&](std::uint32_t node, std::uint32_t n) { add_pending(node, n, mine); };
    LocalCounts counts;
    for (std::size_t i = lo; i < hi; ++i) {
      const QuantPoint q = b.q[i];
      std::uint32_t node = 0;
      while (!nodes_[node].leaf()) {
        const CpuNode& n = nodes_[node];
        const std::uint32_t cell = cell_index(q, n.level, g);
        const std::uint64_t bit = grids_.mask(cell);
        // Most cells are taken already: a plain load avoids contended read-modify-writes.
        const std::uint64_t* seen = grids_.find_word(n.grid, cell);
        if (seen == nullptr ||
            (std::atomic_ref<const std::uint64_t>(*seen).load(std::memory_order_relaxed) & bit) ==
                0) {
          // Record first, so that every bit set (and brick claimed) has a record for
          // rollback() even if the push or the claim throws.
          records.push_back({node, cell, b.point(i).rgba, static_cast<std::uint32_t>(i)});
          std::atomic_ref<std::uint64_t> word(*grids_.set_word(n.grid, cell, chunks_));
          if ((word.fetch_or(bit, std::memory_order_relaxed) & bit) != 0) {
            records.pop_back();  // another point was first
          } else {
            counts.add(node, flush);
          }
        }
        node = n.first_child + child_octant(q, n.level);
      }
    }
    counts.flush_all(flush);
  });
  for (const auto& list : receivers) {
    b.voxel_nodes.insert(b.voxel_nodes.end(), list.begin(), list.end());
  }
  std::sort(b.voxel_nodes.begin(), b.voxel_nodes.end());
}

}  // namespace simlod::detail::cpu
