// The leaf-pair matrix on CUDA (kernels/visibility/visibility_entry.hpp, map_passes.cuh): one
// thread per unordered pair, the facing test, then the occluder walk of
// detail/visibility_walk.hpp, which both backends share. A warp takes runs of kChunkWords
// matrix words, 32 consecutive pairs a word (neighbouring pairs of one row share a leaf, so
// their walks take similar paths), and ballots each word's results; a lane's last occluder is
// its next pair's first guess.
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
/// A warp's run of matrix words (1,024 pairs, mostly of one row, so that a lane's last occluder
/// is a good first guess for its next pair).
constexpr std::uint64_t kChunkWords = 32;

__global__ void __launch_bounds__(kBlock)
    pairs_kernel(WalkTree tree, std::uint64_t leaves, std::uint64_t pairs, std::uint32_t occluders,
                 std::uint32_t* __restrict__ bits, unsigned long long* counts) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * kWarps;
  const std::uint64_t words = (pairs + 31) / 32;
  unsigned long long facing = 0, visible = 0;
  std::uint32_t hint = kNoHint;  // this lane's last occluder: mostly of the same row
  for (std::uint64_t chunk = (blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x) / 32;
       chunk * kChunkWords < words; chunk += warps) {
    const std::uint64_t end = std::min(words, (chunk + 1) * kChunkWords);
    for (std::uint64_t word = chunk * kChunkWords; word < end; ++word) {
      const std::uint64_t idx = word * 32 + lane;
      bool seen = false;
      if (idx < pairs) {
        std::uint64_t i = 0, j = 0;
        unrank_pair(idx, leaves, i, j);
        const LeafGeometry& gi = tree.geometry[i];
        const LeafGeometry& gj = tree.geometry[j];
        if (leaves_face(gi, gj)) {
          ++facing;
          seen = count_occluders(tree, gi.centroid, sub(gj.centroid, gi.centroid),
                                 static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j),
                                 occluders, hint) < occluders;
          visible += seen ? 1 : 0;
        }
      }
      const std::uint32_t seen_bits = __ballot_sync(0xFFFFFFFFu, seen);
      if (lane == 0) bits[word] = seen_bits;
    }
  }
  for (int o = 16; o > 0; o /= 2) {
    facing += __shfl_down_sync(0xFFFFFFFFu, facing, o);
    visible += __shfl_down_sync(0xFFFFFFFFu, visible, o);
  }
  if (lane == 0) {
    atomicAdd(&counts[0], facing);
    atomicAdd(&counts[1], visible);
  }
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
  KernelTimer timer;
  if (pairs > 0) {
    pairs_kernel<<<blocks_for((pairs + 32 * kChunkWords - 1) / (32 * kChunkWords), kWarps,
                              kMaxBlocks),
                   kBlock>>>(view, n, pairs, occluders, static_cast<std::uint32_t*>(bits.get()),
                             static_cast<unsigned long long*>(counts.get()));
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
