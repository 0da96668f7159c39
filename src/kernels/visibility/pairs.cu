// The leaf-pair matrix on CUDA (kernels/visibility/visibility_entry.hpp, map_passes.cuh): one
// thread per
// unordered pair, a warp per 32 consecutive pair indices (neighbouring pairs of one row share a
// leaf, so their walks take similar paths), the facing test, then the occluder walk of
// detail/visibility_walk.hpp; the warp ballots its 32 results into one word of the matrix.
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
constexpr std::uint64_t kMaxBlocks = 132 * 16;

__global__ void __launch_bounds__(kBlock)
    pairs_kernel(const VisibilityNode* __restrict__ nodes, const LeafGeometry* __restrict__ geo,
                 std::uint64_t leaves, std::uint64_t pairs, std::uint32_t occluders,
                 std::uint32_t* __restrict__ bits, unsigned long long* counts) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * (blockDim.x / 32);
  for (std::uint64_t base = (blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x - lane);
       base < pairs; base += warps * 32) {
    const std::uint64_t idx = base + lane;
    bool face = false, seen = false;
    if (idx < pairs) {
      std::uint64_t i = 0, j = 0;
      unrank_pair(idx, leaves, i, j);
      face = leaves_face(geo[i], geo[j]);
      if (face) {
        const Vec3d d = sub(geo[j].centroid, geo[i].centroid);
        seen = count_occluders(nodes, geo, geo[i].centroid, d, static_cast<std::uint32_t>(i),
                               static_cast<std::uint32_t>(j), occluders) < occluders;
      }
    }
    const std::uint32_t seen_bits = __ballot_sync(0xFFFFFFFFu, seen);
    const std::uint32_t face_bits = __ballot_sync(0xFFFFFFFFu, face);
    if (lane == 0) {
      bits[base >> 5] = seen_bits;
      atomicAdd(&counts[0], static_cast<unsigned long long>(__popc(face_bits)));
      atomicAdd(&counts[1], static_cast<unsigned long long>(__popc(seen_bits)));
    }
  }
}

}  // namespace

DeviceMemory leaf_pairs(const cpu::VisTree& tree, std::uint32_t occluders, cpu::LeafPairs& out,
                        double& ms) {
  const std::uint64_t n = tree.leaves.size();
  const std::uint64_t pairs = n * (n - 1) / 2;
  out.bits.assign((pairs + 63) / 64, 0);
  DeviceMemory nodes = upload(tree.nodes, "the visibility octree");
  DeviceMemory geometry = upload(tree.geometry, "the visibility leaves");
  DeviceMemory bits =
      make_device(std::max<std::size_t>(out.bits.size() * 8, 8), "the leaf-pair matrix");
  DeviceMemory counts = make_device(2 * sizeof(unsigned long long), "the leaf-pair counts");
  SIMLOD_CUDA_CHECK(cudaMemset(bits.get(), 0, std::max<std::size_t>(out.bits.size() * 8, 8)));
  SIMLOD_CUDA_CHECK(cudaMemset(counts.get(), 0, 2 * sizeof(unsigned long long)));
  KernelTimer timer;
  if (pairs > 0) {
    pairs_kernel<<<blocks_for(pairs, kBlock, kMaxBlocks), kBlock>>>(
        static_cast<const VisibilityNode*>(nodes.get()),
        static_cast<const LeafGeometry*>(geometry.get()), n, pairs, occluders,
        static_cast<std::uint32_t*>(bits.get()), static_cast<unsigned long long*>(counts.get()));
    SIMLOD_CUDA_CHECK_LAUNCH("visibility pairs_kernel");
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
