// Sampling::Weighted in the CUDA incremental builder (kernels/entry.hpp, rebuild_for_colours):
// a voxel's weighted colour depends on its children's colours, so batches write first-come
// colours, and the colours are computed when loading is done by building the tree of the
// stored points again with the bulk builder. The points are gathered leaf by leaf into a
// device batch (in tree order, which the builder's split counts fastest); the bulk builder
// gives the same nodes and points (its tests) and computes every colour bottom-up.
#include <array>
#include <map>
#include <string>
#include <vector>

#include "kernels/common/cuda_check.hpp"
#include "kernels/tree/host_tree.hpp"
#include "kernels/tree/store.cuh"
#include "kernels/update/device_batch.cuh"
#include "kernels/update/voxel_index.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr int kGatherBlock = 256;

/// A block per leaf (head chunk, points, first output index, id): its chunk list is walked by
/// every thread (the next id is a broadcast load) and its points copied thread-strided;
/// Quantized16 points as their stored quantised position and colour (build_bulk()'s
/// quantized_input), so that the rebuilt tree keeps them bit for bit.
__global__ void __launch_bounds__(kGatherBlock)
    gather_kernel(TreeView v, const uint4* leaves, Point* out) {
  const uint4 leaf = leaves[blockIdx.x];
  const DeviceNode node = v.d_nodes[leaf.w];
  const std::uint32_t cap = v.params.chunk_capacity;
  std::uint32_t chunk = leaf.x;
  for (std::uint32_t done = 0; done < leaf.y; done += cap) {
    const std::uint32_t n = min(cap, leaf.y - done);
    auto* to = reinterpret_cast<uint4*>(out + leaf.z + done);
    if (v.leaf_layout.quantized) {
      for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
        const LeafSample s = v.leaf_point(chunk, j, node);
        to[j] = make_uint4(s.q.x, s.q.y, s.q.z, s.point.rgba);
      }
    } else {
      const auto* from = reinterpret_cast<const uint4*>(v.chunk_data(chunk));
      for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) to[j] = from[j];
    }
    chunk = *v.chunk_next(chunk);
  }
}

/// A block per inner node of the rebuilt tree (head chunk, voxels, the same node's id in the
/// old tree, level): every voxel gives its colour to the old tree's voxel of its cell, found
/// through the old tree's voxel index.
__global__ void __launch_bounds__(kGatherBlock)
    recolour_kernel(TreeView fresh, IndexView x, const uint4* nodes) {
  const uint4 node = nodes[blockIdx.x];
  const std::uint32_t cap = fresh.voxels.capacity;
  std::uint32_t chunk = node.x;
  for (std::uint32_t done = 0; done < node.y; done += cap) {
    const std::uint32_t n = min(cap, node.y - done);
    const std::byte* base = fresh.chunk_bytes_of(chunk);
    for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
      const std::uint32_t e = index_find(x, index_key(node.z, voxel_cell(base, fresh.voxels, j)));
      if (e != kNil) set_voxel_colour(x.voxel_words[e], *voxel_word(base, j));
    }
    chunk = *fresh.chunk_next(chunk);
  }
}

/// The points of `old`'s leaves gathered into a device batch (in tree order) and built again
/// by the bulk builder into a store of `config`.
Owned<TreeStore> rebuild(const TreeStore& old, const OctreeConfig& config, BuildStats& stats) {
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
    leaves.push_back(make_uint4(node.head, node.count, static_cast<std::uint32_t>(n), id));
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
  Owned<TreeStore> fresh = create_store(config, old.geometry);
  stats.points = n;
  build_bulk(*fresh, {}, {}, batch.get(), n, stats, old.writer.leaf_layout.quantized);
  stats.scratch_bytes += n * sizeof(Point);
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(fresh->stream_handle()));  // the batch is read
  return fresh;
}

}  // namespace

Owned<TreeStore> rebuild_for_colours(const TreeStore& old, BuildStats& stats) {
  if (old.config.sampling != Sampling::Weighted || !old.stale_colours || old.config.channels != 0) {
    return Owned<TreeStore>(nullptr, nullptr);
  }
  return rebuild(old, old.config, stats);
}

bool recolour_in_place(TreeStore& old, BuildStats& stats) {
  if (old.config.sampling != Sampling::Weighted || !old.stale_colours || old.config.channels == 0) {
    return false;
  }
  DeviceScope scope(old.config.device);
  OctreeConfig plain = old.config;
  plain.channels = 0;  // the colours only
  const Owned<TreeStore> fresh = rebuild(old, plain, stats);
  HostTreeCopy mine, theirs;
  copy_nodes(old, mine);
  copy_nodes(*fresh, theirs);
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(old.stream_handle()));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(fresh->stream_handle()));
  std::map<std::array<std::uint32_t, 4>, std::uint32_t> id_of;  // (level, x, y, z) -> old id
  for (std::uint32_t id = 0; id < mine.nodes.size(); ++id) {
    const DeviceNode& d = mine.nodes[id];
    id_of[{d.level, d.x, d.y, d.z}] = id;
  }
  std::vector<uint4> inner;
  for (std::uint32_t id = 0; id < theirs.nodes.size(); ++id) {
    const DeviceNode& d = theirs.nodes[id];
    if (theirs.links[id].first_child == kNil || d.count == 0) continue;
    const auto it = id_of.find({d.level, d.x, d.y, d.z});
    if (it == id_of.end()) {
      throw Error(
          "internal error: the tree built again for its weighted colours has a node the octree "
          "lacks");
    }
    inner.push_back(make_uint4(d.head, d.count, it->second, d.level));
  }
  if (!inner.empty()) {
    cudaStream_t s = old.stream_handle();
    const DeviceMemory list = make_device(inner.size() * sizeof(uint4), "the list of nodes");
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(list.get(), inner.data(), inner.size() * sizeof(uint4),
                                      cudaMemcpyHostToDevice, s));
    recolour_kernel<<<static_cast<unsigned>(inner.size()), kGatherBlock, 0, s>>>(
        fresh->writer, old.index.view(), static_cast<const uint4*>(list.get()));
    SIMLOD_CUDA_CHECK_LAUNCH("recolour_kernel");
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));  // the list and the rebuilt tree go
  }
  old.stale_colours = false;
  return true;
}

}  // namespace simlod::detail::cuda
