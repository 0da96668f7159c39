// Sampling::Weighted in the incremental builder: its colours do not decompose per batch (a
// voxel's colour depends on its children's colours), so batches write first-come colours and
// finalize_colours() computes them all again from the stored points, with the bulk builder's
// voxelizer (core/cpu/bulk/voxelizer.hpp). The result equals Octree::build's of the same
// points exactly: the same tree, the same samples per node, integer sums.
#include <fmt/format.h>

#include <chrono>
#include <new>

#include "core/cpu/bulk/voxelizer.hpp"
#include "core/cpu/update/update.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {

bool finalize_colours(TreeStore& store, PoolView& pool, BuildStats& stats) {
  if (store.config.sampling != Sampling::Weighted || !store.stale_colours) return false;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<CpuNode>& nodes = store.nodes;
  try {
    std::vector<std::vector<std::uint32_t>> levels;
    for (std::uint32_t id = 0; id < nodes.size(); ++id) {
      if (nodes[id].leaf()) continue;
      if (levels.size() <= nodes[id].level) levels.resize(nodes[id].level + 1);
      levels[nodes[id].level].push_back(id);
    }
    bulk::Voxelizer<bulk::Weighted, bulk::StoredLeaves> v(bulk::Weighted{}, store,
                                                          bulk::StoredLeaves{store}, pool.size(),
                                                          false);  // the grids hold the cells
    std::uint64_t peak = 0;
    const VoxelLayout& layout = store.chunks.voxel_layout();
    // A node's voxels are its occupied cells, as before: they are written again in cell order.
    // With channels the voxels stay where they are, beside their records, and take their
    // colours through the voxel index.
    const bool in_place = store.index.enabled();
    bulk::voxelize_levels(
        v, pool, levels,
        [&](std::uint32_t id, std::vector<bulk::CellSample>&& voxels) {
          if (in_place) {
            for (const bulk::CellSample& c : voxels) {
              if (std::uint32_t* word = store.index.word_of(id, c.cell)) {
                set_voxel_colour(word, c.rgba);
              }
            }
            return;
          }
          const CpuNode& n = nodes[id];
          std::uint32_t chunk = n.head;
          for (std::size_t k = 0; k < voxels.size(); ++k) {
            if (k > 0 && k % layout.capacity == 0) chunk = store.chunks.next(chunk);
            put_voxel(store.chunks.bytes(chunk), layout,
                      static_cast<std::uint32_t>(k % layout.capacity), voxels[k].cell,
                      voxels[k].rgba);
          }
        },
        peak);
    stats.scratch_bytes = peak;
  } catch (const std::bad_alloc&) {
    throw CapacityError(fmt::format(
        "host memory ran out while computing the weighted colours of {} voxels; they keep their "
        "first-come colours until finalize() succeeds",
        store.voxels));
  }
  store.stale_colours = false;
  stats.points = store.points;
  stats.voxelize_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return true;
}

}  // namespace simlod::detail::cpu
