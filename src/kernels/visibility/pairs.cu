// The leaf-pair matrix on CUDA (kernels/visibility/visibility_entry.hpp, map_passes.cuh), in
// tiles of kTile pairs, two kernels a tile:
// - facing_kernel: one thread per unordered pair, the facing test; a warp appends the facing
//   pairs of its 32 consecutive ones to the tile's list (one atomic a warp), so the list keeps
//   neighbouring pairs of a row together;
// - walk_kernel: one thread per listed pair, the occluder walk of detail/visibility_walk.hpp,
//   which both backends share; visible pairs set their bit with an atomic OR. A warp takes runs
//   of kChunk list entries, so a lane's last occluder (mostly of the same row) is its next
//   pair's first guess.
// Only facing pairs reach the walks, so no lane idles there on pairs that do not face.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/upload.cuh"
#include "kernels/visibility/map_passes.cuh"
#include "kernels/visibility/pair_index.cuh"
#include "kernels/visibility/visibility_entry.hpp"
#include "simlod/detail/visibility_walk.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 128;
constexpr unsigned kWarps = kBlock / 32;
constexpr std::uint64_t kMaxBlocks = 132 * 16;
/// Pairs a tile: its list takes at most 4 bytes each.
constexpr std::uint64_t kTile = std::uint64_t{1} << 26;
/// A warp's run of list entries in walk_kernel.
constexpr std::uint64_t kChunk = 1024;

/// *to += *from: a tile's facing pairs add to the count on the device, with no host wait.
__global__ void add_kernel(const unsigned long long* from, unsigned long long* to) { *to += *from; }

__global__ void __launch_bounds__(kBlock)
    facing_kernel(const LeafGeometry* __restrict__ geometry, std::uint64_t leaves,
                  std::uint64_t first, std::uint64_t count, std::uint32_t* __restrict__ list,
                  unsigned long long* __restrict__ listed) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * kWarps;
  for (std::uint64_t base = (blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x) / 32 * 32;
       base < count; base += warps * 32) {
    bool face = false;
    if (base + lane < count) {
      std::uint64_t i = 0, j = 0;
      unrank_pair(first + base + lane, leaves, i, j);
      face = leaves_face(geometry[i], geometry[j]);
    }
    const std::uint32_t ballot = __ballot_sync(0xFFFFFFFFu, face);
    unsigned long long at = 0;
    if (lane == 0 && ballot != 0)
      at = atomicAdd(listed, static_cast<unsigned long long>(__popc(ballot)));
    at = __shfl_sync(0xFFFFFFFFu, at, 0);
    if (face)
      list[at + __popc(ballot & ((1u << lane) - 1u))] = static_cast<std::uint32_t>(base + lane);
  }
}

__global__ void __launch_bounds__(kBlock)
    walk_kernel(WalkTree tree, std::uint64_t leaves, std::uint64_t first,
                const std::uint32_t* __restrict__ list,
                const unsigned long long* __restrict__ listed, std::uint32_t occluders,
                std::uint32_t* __restrict__ bits, unsigned long long* __restrict__ visible_count) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * kWarps;
  const std::uint64_t entries = *listed;
  unsigned long long visible = 0;
  std::uint32_t hint = kNoHint;
  for (std::uint64_t chunk = (blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x) / 32 * kChunk;
       chunk < entries; chunk += warps * kChunk) {
    const std::uint64_t end = chunk + kChunk < entries ? chunk + kChunk : entries;
    for (std::uint64_t e = chunk + lane; e < end; e += 32) {
      const std::uint64_t idx = first + list[e];
      std::uint64_t i = 0, j = 0;
      unrank_pair(idx, leaves, i, j);
      const LeafGeometry& gi = tree.geometry[i];
      const LeafGeometry& gj = tree.geometry[j];
      if (count_occluders(tree, gi.centroid, sub(gj.centroid, gi.centroid),
                          static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), occluders,
                          hint) < occluders) {
        atomicOr(&bits[idx >> 5], 1u << (idx & 31u));
        ++visible;
      }
    }
  }
  for (int o = 16; o > 0; o /= 2) visible += __shfl_down_sync(0xFFFFFFFFu, visible, o);
  if (lane == 0 && visible > 0) atomicAdd(visible_count, visible);
}

}  // namespace

DeviceMemory leaf_pairs(const cpu::VisTree& tree, std::uint32_t occluders, cpu::LeafPairs& out,
                        double& ms) {
  const std::uint64_t n = tree.leaves.size();
  const std::uint64_t pairs = n * (n - 1) / 2;
  out.bits.assign((pairs + 63) / 64, 0);
  DeviceMemory walk = upload(tree.walk, "the visibility octree");
  DeviceMemory spheres = upload(tree.spheres, "the visibility spheres");
  DeviceMemory geometry = upload(tree.geometry, "the visibility leaves");
  const WalkTree view{static_cast<const WalkNode*>(walk.get()),
                      static_cast<const WalkSphere*>(spheres.get()),
                      static_cast<const LeafGeometry*>(geometry.get()), tree.frame()};
  DeviceMemory bits =
      make_device(std::max<std::size_t>(out.bits.size() * 8, 8), "the leaf-pair matrix");
  DeviceMemory counts = make_device(2 * sizeof(unsigned long long), "the leaf-pair counts");
  SIMLOD_CUDA_CHECK(cudaMemset(bits.get(), 0, std::max<std::size_t>(out.bits.size() * 8, 8)));
  SIMLOD_CUDA_CHECK(cudaMemset(counts.get(), 0, 2 * sizeof(unsigned long long)));
  const std::uint64_t tile = std::min(pairs, kTile);
  DeviceMemory list = make_device(std::max<std::uint64_t>(tile, 1) * 4, "a tile's facing pairs");
  DeviceMemory listed = make_device(sizeof(unsigned long long), "a tile's facing pair count");
  auto* d_counts = static_cast<unsigned long long*>(counts.get());
  auto* d_listed = static_cast<unsigned long long*>(listed.get());
  auto* d_list = static_cast<std::uint32_t*>(list.get());
  KernelTimer timer;
  for (std::uint64_t first = 0; first < pairs; first += tile) {
    const std::uint64_t count = std::min(tile, pairs - first);
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(d_listed, 0, sizeof(unsigned long long)));
    facing_kernel<<<blocks_for(count, kBlock, kMaxBlocks), kBlock>>>(view.geometry, n, first, count,
                                                                     d_list, d_listed);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility facing_kernel");
    walk_kernel<<<blocks_for((count + kChunk - 1) / kChunk, kWarps, kMaxBlocks), kBlock>>>(
        view, n, first, d_list, d_listed, occluders, static_cast<std::uint32_t*>(bits.get()),
        d_counts + 1);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility walk_kernel");
    // The facing pairs add up on the device.
    add_kernel<<<1, 1>>>(d_listed, d_counts);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility add_kernel");
  }
  ms = timer.ms();
  if (!out.bits.empty()) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpy(out.bits.data(), bits.get(), out.bits.size() * 8, cudaMemcpyDeviceToHost));
  }
  unsigned long long host[2] = {0, 0};
  SIMLOD_CUDA_CHECK(cudaMemcpy(host, counts.get(), sizeof(host), cudaMemcpyDeviceToHost));
  out.facing = host[0];
  out.visible = host[1];
  return bits;
}

PairsAndLinks pairs_and_links(const cpu::VisTree& tree, std::uint32_t occluders, double& pairs_ms,
                              double& links_ms) {
  PairsAndLinks out;
  const DeviceMemory matrix = leaf_pairs(tree, occluders, out.pairs, pairs_ms);
  out.links = build_links(tree, static_cast<const std::uint32_t*>(matrix.get()), links_ms);
  return out;
}

}  // namespace simlod::detail::cuda
