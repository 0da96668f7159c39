// Sampling::Weighted in the CUDA incremental builder (kernels/entry.hpp, rebuild_for_colours):
// a voxel's weighted colour depends on its children's colours, so batches write first-come
// colours, and the colours are computed when loading is done by building the tree of the
// stored points again with the bulk builder. The points are gathered leaf by leaf into a
// device batch (in tree order, which the builder's split counts fastest); the bulk builder
// gives the same nodes and points (its tests) and computes every colour bottom-up.
#include <string>
#include <vector>

#include "kernels/common/cuda_check.hpp"
#include "kernels/tree/host_tree.hpp"
#include "kernels/tree/store.cuh"
#include "kernels/update/device_batch.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr int kGatherBlock = 256;

/// A block per leaf (head chunk, points, first output index): its chunk list is walked by
/// every thread (the next id is a broadcast load) and its points copied thread-strided.
__global__ void __launch_bounds__(kGatherBlock)
    gather_kernel(TreeView v, const uint4* leaves, Point* out) {
  const uint4 leaf = leaves[blockIdx.x];
  const std::uint32_t cap = v.params.chunk_capacity;
  std::uint32_t chunk = leaf.x;
  for (std::uint32_t done = 0; done < leaf.y; done += cap) {
    const std::uint32_t n = min(cap, leaf.y - done);
    const auto* from = reinterpret_cast<const uint4*>(v.chunk_data(chunk));
    auto* to = reinterpret_cast<uint4*>(out + leaf.z + done);
    for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) to[j] = from[j];
    chunk = *v.chunk_next(chunk);
  }
}

}  // namespace

Owned<TreeStore> rebuild_for_colours(const TreeStore& old, BuildStats& stats) {
  if (old.config.sampling != Sampling::Weighted || !old.stale_colours) {
    return Owned<TreeStore>(nullptr, nullptr);
  }
  DeviceScope scope(old.config.device);
  cudaStream_t s = old.stream_handle();
  HostTreeCopy copy;
  copy_nodes(old, copy);
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<uint4> leaves;
  std::uint64_t n = 0;
  for (std::uint32_t id = 0; id < copy.nodes.size(); ++id) {
    const DeviceNode& node = copy.nodes[id];
    if (copy.links[id].first_child != kNil || node.count == 0) continue;
    leaves.push_back(make_uint4(node.head, node.count, static_cast<std::uint32_t>(n), 0));
    n += node.count;
  }
  if (n != old.points || n >= kNil) {
    throw Error("internal error: the octree's leaves hold " + std::to_string(n) + " points where " +
                std::to_string(old.points) + " were inserted");
  }
  const Owned<DeviceBatchStore> batch = create_device_batch(n, old.config.device);
  const DeviceMemory list = make_device(leaves.size() * sizeof(uint4), "the list of leaves");
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(list.get(), leaves.data(), leaves.size() * sizeof(uint4),
                                    cudaMemcpyHostToDevice, s));
  gather_kernel<<<static_cast<unsigned>(leaves.size()), kGatherBlock, 0, s>>>(
      old.writer, static_cast<const uint4*>(list.get()), batch->points);
  SIMLOD_CUDA_CHECK_LAUNCH("gather_kernel");
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));  // the host list goes out of scope
  Owned<TreeStore> fresh = create_store(old.config, old.geometry);
  stats.points = n;
  build_bulk(*fresh, {}, batch.get(), n, stats);
  stats.scratch_bytes += n * sizeof(Point);
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(fresh->stream_handle()));  // the batch is read
  return fresh;
}

}  // namespace simlod::detail::cuda
