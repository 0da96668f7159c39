// The V-map in blocks on CUDA (core/cpu/visibility/blocks.hpp): the octree uploaded once; per
// tile the deepest level's leaves uploaded, the pair phase over the tile's pairs (pairs.cu) and
// climb() up to level b on the device; level b's bits come back to the host, which merges them
// (merge_top) and climbs the rest on the device. The same counts and links as the CPU.
#include <cuda_runtime.h>

#include <algorithm>

#include "core/cpu/visibility/blocks.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/upload.cuh"
#include "kernels/visibility/map_passes.cuh"
#include "kernels/visibility/visibility_entry.hpp"

namespace simlod::detail::cuda {

cpu::BlockedMap build_blocked(const cpu::VisTree& tree, std::uint32_t occluders,
                              std::uint64_t budget_bits, double& pairs_ms, double& links_ms) {
  const std::vector<cpu::VisLevel> levels = cpu::vis_levels(tree);
  const cpu::BlockPlan plan = cpu::plan_blocks(levels, budget_bits);
  const std::uint64_t nb = levels[plan.level].nodes.size();
  std::vector<std::uint64_t> whole = cpu::whole_bits(plan, nb);
  std::vector<LevelLinks> found;
  std::vector<std::uint64_t> per_level(tree.depth + 1, 0);
  const std::span<std::uint64_t> below_b = std::span(per_level).subspan(plan.level);
  DeviceTree device(tree);
  pairs_ms = 0.0;
  links_ms = 0.0;
  const std::size_t groups = plan.groups.size() - 1;
  for (std::size_t a = 0; a < groups; ++a) {
    for (std::size_t b = a; b < groups; ++b) {
      const cpu::TileLevels tile = cpu::tile_levels(levels, plan, a, b);
      const cpu::VisLevel& bottom = tile.levels.back();
      const std::uint64_t m = bottom.nodes.size();
      std::vector<std::uint32_t> leaf_of(m);
      for (std::uint64_t x = 0; x < m; ++x) leaf_of[x] = tree.nodes[bottom.nodes[x]].leaf;
      const DeviceMemory d_leaf_of = upload(leaf_of, "a tile's leaves");
      DeviceMemory bits = pair_bits(m, "a tile's leaf pairs");
      device.pairs(
          {m, tile.cross ? tile.split : 0, static_cast<const std::uint32_t*>(d_leaf_of.get())},
          occluders, static_cast<std::uint32_t*>(bits.get()), pairs_ms);
      const DeviceMemory top = climb(tile.levels, std::move(bits), found, below_b, links_ms);
      const std::uint64_t n = tile.levels[0].nodes.size();
      std::vector<std::uint64_t> host = cpu::make_bits(n);
      if (!host.empty()) {
        SIMLOD_CUDA_CHECK(
            cudaMemcpy(host.data(), top.get(), host.size() * 8, cudaMemcpyDeviceToHost));
      }
      cpu::merge_top(plan, tile, a, b, host, nb, whole);
    }
  }
  DeviceMemory d_whole = pair_bits(nb, "the blocks' level pairs");
  if (!whole.empty()) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpy(d_whole.get(), whole.data(), whole.size() * 8, cudaMemcpyHostToDevice));
  }
  (void)climb(std::span<const cpu::VisLevel>(levels).first(plan.level + 1), std::move(d_whole),
              found, per_level, links_ms);
  cpu::BlockedMap out;
  device.counted(out.facing, out.visible);
  out.links = links_csr(tree.nodes.size(), found, std::move(per_level), links_ms);
  return out;
}

}  // namespace simlod::detail::cuda
