// Bulk voxelization on the CPU: inner nodes sample their children bottom-up (bulk.hpp).
#include <cstdint>

#include "core/cpu/bulk/bulk_tree.hpp"

namespace simlod::detail::cpu::bulk {

std::vector<std::vector<CellSample>> voxelize(TreeStore& store, PoolView& pool,
                                              std::span<const Point> points,
                                              const SortedPoints& sorted) {
  std::vector<CpuNode>& nodes = store.nodes;
  const std::uint32_t g = store.geometry.grid_bits;
  std::vector<std::vector<CellSample>> voxels(nodes.size());
  for (CpuNode& n : nodes) {
    if (!n.leaf()) n.grid = store.grids.acquire();
  }
  // Deepest level first: every node's children are done before it.
  for (std::size_t level = sorted.level_begin.size() - 1; level-- > 0;) {
    const std::uint32_t first = sorted.level_begin[level];
    const std::uint32_t last = sorted.level_begin[level + 1];
    pool.parallel_for(last - first, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
      for (std::size_t id = first + lo; id < first + hi; ++id) {
        const CpuNode& n = nodes[id];
        if (n.leaf()) continue;
        std::uint64_t* words = store.grids.words(n.grid);
        std::vector<CellSample>& out = voxels[id];
        auto take = [&](std::uint32_t cell, std::uint32_t rgba) {
          const std::uint64_t bit = std::uint64_t{1} << (cell & 63);
          if ((words[cell >> 6] & bit) != 0) return;
          words[cell >> 6] |= bit;
          out.push_back({cell, rgba});
        };
        for (std::uint32_t k = 0; k < 8; ++k) {
          const std::uint32_t child = n.first_child + k;
          if (nodes[child].leaf()) {
            for (std::uint64_t i = sorted.begin[child]; i < sorted.end[child]; ++i) {
              take(cell_index(sorted.q[i], n.level, g), points[sorted.order[i]].rgba);
            }
          } else {
            for (const CellSample& v : voxels[child]) take(parent_cell(v.cell, k, g), v.rgba);
          }
        }
      }
    });
  }
  return voxels;
}

}  // namespace simlod::detail::cpu::bulk
