// Bulk voxelization on the CPU (bulk.hpp): the voxelizer (voxelizer.hpp) over the sorted input.
#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/cpu/bulk/voxelizer.hpp"

namespace simlod::detail::cpu::bulk {
namespace {

template <class Filter>
std::vector<std::vector<CellSample>> run(const Filter& f, TreeStore& store, PoolView& pool,
                                         std::span<const Point> points, const SortedPoints& sorted,
                                         std::uint64_t& peak_bytes) {
  std::vector<CpuNode>& nodes = store.nodes;
  for (CpuNode& n : nodes) {
    if (!n.leaf()) n.grid = store.grids.acquire();
  }
  // Every occupied brick lies under a point of the node: at most a brick per point and level
  // (and at most every brick of every grid).
  store.grids.prepare_bricks(
      std::min<std::uint64_t>(points.size() * (sorted.level_begin.size() - 1),
                              store.grids.count() * store.grids.layout().bricks));
  Voxelizer<Filter, SortedLeaves> v(f, store, SortedLeaves{points, sorted}, pool.size(), true);
  std::vector<std::vector<CellSample>> out(nodes.size());
  // Breadth-first ids: level l is the id range [level_begin[l], level_begin[l + 1]).
  const std::vector<std::uint32_t>& begin = sorted.level_begin;
  std::vector<std::vector<std::uint32_t>> levels(begin.size() - 1);
  for (std::size_t level = 0; level + 1 < begin.size(); ++level) {
    for (std::uint32_t id = begin[level]; id < begin[level + 1]; ++id) {
      if (!nodes[id].leaf()) levels[level].push_back(id);
    }
  }
  voxelize_levels(
      v, pool, levels,
      [&](std::uint32_t id, std::vector<CellSample>&& voxels) { out[id] = std::move(voxels); },
      peak_bytes);
  return out;
}

}  // namespace

std::vector<std::vector<CellSample>> voxelize(TreeStore& store, PoolView& pool,
                                              std::span<const Point> points,
                                              std::span<const std::byte> records,
                                              const SortedPoints& sorted,
                                              std::uint64_t& peak_bytes) {
  if (const std::uint32_t bytes = store.chunks.record_bytes(); bytes != 0) {
    if (store.config.sampling == Sampling::Random) {
      const Sourced<Random> f{Random{store.config.sampling_seed}, records.data(), bytes};
      return run(f, store, pool, points, sorted, peak_bytes);
    }
    const Sourced<FirstCome> f{FirstCome{}, records.data(), bytes};  // the config allows these two
    return run(f, store, pool, points, sorted, peak_bytes);
  }
  switch (store.config.sampling) {
    case Sampling::Random:
      return run(Random{store.config.sampling_seed}, store, pool, points, sorted, peak_bytes);
    case Sampling::Average: return run(Average{}, store, pool, points, sorted, peak_bytes);
    case Sampling::Weighted: return run(Weighted{}, store, pool, points, sorted, peak_bytes);
    case Sampling::FirstCome: break;
  }
  return run(FirstCome{}, store, pool, points, sorted, peak_bytes);
}

}  // namespace simlod::detail::cpu::bulk
