// The leaf-pair matrix on CUDA (kernels/visibility/visibility_entry.hpp, map_passes.cuh), in
// tiles of kTile pairs, two kernels a tile:
// - facing_kernel: one thread per unordered pair, the facing test; a warp appends the facing
//   pairs of its 32 consecutive ones to the tile's list (one atomic a warp), so the list keeps
//   neighbouring pairs of a row together;
// - walk_kernel: one thread per listed pair, the occluder walk of detail/visibility_walk.hpp,
//   which both backends share; visible pairs set their bit with an atomic OR. As many warps as
//   the device holds take runs of kChunk list entries from a counter, so a lane's last occluder
//   (mostly of the same row) is its next pair's first guess, and no warp waits for others that
//   were handed more runs.
// Only facing pairs reach the walks, so no lane idles there on pairs that do not face. The
// pairs are those of a PairSpace: every leaf pair (the whole matrix), or a blocked build's
// tile (its entries' leaves, all pairs of one group or the pairs across two).
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
/// Blocks of walk_kernel an SM holds at least: its registers capped at 64, so that 32 warps fit
/// (a few spills; 72 registers and 28 warps were 3% slower, 94 and 20 warps 15%).
constexpr int kWalkBlocks = 8;
/// A warp's run of list entries in walk_kernel, taken from the tile's counter: short runs
/// balance the warps (1,024 static runs: 1,181 ms for the town 10^6 at height 8; taken from
/// the counter, 1,024: 1,098, 256: 1,012, 64: 989), and 64 entries of a row still share a hint.
constexpr std::uint64_t kChunk = 64;

/// *to += *from: a tile's facing pairs add to the count on the device, with no host wait.
__global__ void add_kernel(const unsigned long long* from, unsigned long long* to) { *to += *from; }

/// Pair `idx` of the space: the leaves of its entries x < y (i < j), and its bit. kWhole: the
/// space of every leaf pair (split 0, no leaf_of), without the tiles' arithmetic.
template <bool kWhole>
__device__ void pair_of(const PairSpace& s, std::uint64_t idx, std::uint64_t& i, std::uint64_t& j,
                        std::uint64_t& bit) {
  if (kWhole) {
    unrank_pair(idx, s.n, i, j);
    bit = idx;
    return;
  }
  std::uint64_t x = 0, y = 0;
  if (s.split == 0) {
    unrank_pair(idx, s.n, x, y);
    bit = idx;
  } else {
    const std::uint64_t w = s.n - s.split;
    x = idx / w;
    y = s.split + idx % w;
    bit = pair_index(x, y, s.n);
  }
  const std::uint64_t a = s.leaf_of != nullptr ? s.leaf_of[x] : x;
  const std::uint64_t b = s.leaf_of != nullptr ? s.leaf_of[y] : y;
  i = a < b ? a : b;
  j = a < b ? b : a;
}

template <bool kWhole>
__global__ void __launch_bounds__(kBlock)
    facing_kernel(const LeafGeometry* __restrict__ geometry, PairSpace space, std::uint64_t first,
                  std::uint64_t count, std::uint32_t* __restrict__ list,
                  unsigned long long* __restrict__ listed) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warps = std::uint64_t{gridDim.x} * kWarps;
  for (std::uint64_t base = (blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x) / 32 * 32;
       base < count; base += warps * 32) {
    bool face = false;
    if (base + lane < count) {
      std::uint64_t i = 0, j = 0, bit = 0;
      pair_of<kWhole>(space, first + base + lane, i, j, bit);
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

template <bool kWhole>
__global__ void __launch_bounds__(kBlock, kWalkBlocks)
    walk_kernel(WalkTree tree, PairSpace space, std::uint64_t first,
                const std::uint32_t* __restrict__ list, unsigned long long* __restrict__ listed,
                std::uint32_t occluders, std::uint32_t* __restrict__ bits,
                unsigned long long* __restrict__ visible_count) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t entries = listed[0];
  unsigned long long visible = 0;
  std::uint32_t hint = kNoHint;
  for (;;) {
    unsigned long long taken = 0;  // the warp's next run, from the tile's counter
    if (lane == 0) taken = atomicAdd(listed + 1, 1ull);
    const std::uint64_t chunk = __shfl_sync(0xFFFFFFFFu, taken, 0) * kChunk;
    if (chunk >= entries) break;
    const std::uint64_t end = chunk + kChunk < entries ? chunk + kChunk : entries;
    for (std::uint64_t e = chunk + lane; e < end; e += 32) {
      const std::uint64_t idx = first + list[e];
      std::uint64_t i = 0, j = 0, bit = 0;
      pair_of<kWhole>(space, idx, i, j, bit);
      const LeafGeometry& gi = tree.geometry[i];
      const LeafGeometry& gj = tree.geometry[j];
      if (count_occluders(tree, gi.centroid, sub(gj.centroid, gi.centroid),
                          static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), occluders,
                          hint) < occluders) {
        atomicOr(&bits[bit >> 5], 1u << (bit & 31u));
        ++visible;
      }
    }
  }
  for (int o = 16; o > 0; o /= 2) visible += __shfl_down_sync(0xFFFFFFFFu, visible, o);
  if (lane == 0 && visible > 0) atomicAdd(visible_count, visible);
}

}  // namespace

DeviceTree::DeviceTree(const cpu::VisTree& tree)
    : walk(upload(tree.walk, "the visibility octree")),
      spheres(upload(tree.spheres, "the visibility spheres")),
      geometry(upload(tree.geometry, "the visibility leaves")),
      view{static_cast<const WalkNode*>(walk.get()), static_cast<const WalkSphere*>(spheres.get()),
           static_cast<const LeafGeometry*>(geometry.get()), tree.frame()},
      counts(make_device(2 * sizeof(unsigned long long), "the leaf-pair counts")),
      listed(make_device(2 * sizeof(unsigned long long), "a tile's facing pair count")) {
  SIMLOD_CUDA_CHECK(cudaMemset(counts.get(), 0, 2 * sizeof(unsigned long long)));
  // As many walk blocks as the device holds at once: the warps take runs from a counter.
  int device = 0, sms = 0, whole = 0, tiles = 0;
  SIMLOD_CUDA_CHECK(cudaGetDevice(&device));
  SIMLOD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SIMLOD_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&whole, walk_kernel<true>, kBlock, 0));
  SIMLOD_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&tiles, walk_kernel<false>, kBlock, 0));
  walk_blocks_[0] = static_cast<unsigned>(std::max(1, sms * tiles));
  walk_blocks_[1] = static_cast<unsigned>(std::max(1, sms * whole));
}

void DeviceTree::pairs(const PairSpace& space, std::uint32_t occluders, std::uint32_t* bits,
                       double& ms) {
  const std::uint64_t pairs =
      space.split == 0 ? pair_count(space.n) : space.split * (space.n - space.split);
  const std::uint64_t room = std::max<std::uint64_t>(std::min(pairs, kTile), 1);
  if (room > list_room) {
    list = DeviceMemory();
    list = make_device(room * 4, "a tile's facing pairs");
    list_room = room;
  }
  auto* d_counts = static_cast<unsigned long long*>(counts.get());
  auto* d_listed = static_cast<unsigned long long*>(listed.get());
  auto* d_list = static_cast<std::uint32_t*>(list.get());
  KernelTimer timer;
  for (std::uint64_t first = 0; first < pairs; first += kTile) {
    const std::uint64_t count = std::min(kTile, pairs - first);
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(d_listed, 0, 2 * sizeof(unsigned long long)));
    const auto launch = [&]<bool kWhole>() {
      facing_kernel<kWhole><<<blocks_for(count, kBlock, kMaxBlocks), kBlock>>>(
          view.geometry, space, first, count, d_list, d_listed);
      SIMLOD_CUDA_CHECK_LAUNCH("visibility facing_kernel");
      walk_kernel<kWhole><<<walk_blocks_[kWhole ? 1 : 0], kBlock>>>(
          view, space, first, d_list, d_listed, occluders, bits, d_counts + 1);
      SIMLOD_CUDA_CHECK_LAUNCH("visibility walk_kernel");
    };
    if (space.leaf_of == nullptr && space.split == 0) {
      launch.template operator()<true>();
    } else {
      launch.template operator()<false>();
    }
    // The facing pairs add up on the device.
    add_kernel<<<1, 1>>>(d_listed, d_counts);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility add_kernel");
  }
  ms += timer.ms();
}

void DeviceTree::counted(std::uint64_t& facing, std::uint64_t& visible) const {
  unsigned long long host[2] = {0, 0};
  SIMLOD_CUDA_CHECK(cudaMemcpy(host, counts.get(), sizeof(host), cudaMemcpyDeviceToHost));
  facing = host[0];
  visible = host[1];
}

DeviceMemory leaf_pairs(const cpu::VisTree& tree, std::uint32_t occluders, cpu::LeafPairs& out,
                        double& ms) {
  const std::uint64_t n = tree.leaves.size();
  out.bits = cpu::make_bits(n);
  DeviceTree device(tree);
  DeviceMemory bits = pair_bits(n, "the leaf-pair matrix");
  ms = 0.0;
  device.pairs({n, 0, nullptr}, occluders, static_cast<std::uint32_t*>(bits.get()), ms);
  if (!out.bits.empty()) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpy(out.bits.data(), bits.get(), out.bits.size() * 8, cudaMemcpyDeviceToHost));
  }
  device.counted(out.facing, out.visible);
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
