// The voxel index of a store the bulk builder wrote (kernels/update/voxel_index.cuh,
// index_tree): every stored voxel (its cell is stored with it) gets its entry; every stored
// point then folds into the inner
// nodes above it, once (with its record's digest, under Random with channels, so that the
// entries hold the winners the bulk builder chose). The incremental builder keeps the index
// from there on.
#include <vector>

#include "kernels/common/cuda_check.hpp"
#include "kernels/tree/host_tree.hpp"
#include "kernels/tree/store.cuh"
#include "kernels/tuning.hpp"
#include "kernels/update/voxel_index.cuh"

namespace simlod::detail::cuda {
namespace {

constexpr int kIndexBlock = 256;

/// A thread per inner node (node id, grid, head chunk, first entry in `ids`): its chunk ids in
/// list order.
__global__ void chunk_ids_kernel(TreeView v, const uint4* inner, std::uint32_t n,
                                 std::uint32_t* ids) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    const uint4 node = inner[i];
    const std::uint32_t chunks = v.d_nodes[node.x].chunks;
    std::uint32_t chunk = node.z;
    for (std::uint32_t k = 0; k < chunks; ++k, chunk = *v.chunk_next(chunk))
      ids[node.w + k] = chunk;
  }
}

/// A block per inner node: each of its voxels gets its entry.
__global__ void __launch_bounds__(kIndexBlock)
    entries_kernel(TreeView v, IndexView x, const uint4* inner, const std::uint32_t* ids) {
  const uint4 node = inner[blockIdx.x];
  const std::uint32_t count = v.d_nodes[node.x].count;
  const std::uint32_t cap = v.voxels.capacity;
  for (std::uint32_t k = threadIdx.x; k < count; k += blockDim.x) {
    std::byte* base = v.chunk_bytes_of(ids[node.w + k / cap]);
    const std::uint32_t cell = voxel_cell(base, v.voxels, k % cap);
    if (!index_add(x, node.x, cell, voxel_word(base, k % cap))) v.flag(kOverflowIndex);
  }
}

/// A block per leaf (head chunk, points, id): its points fold into every inner node above them.
__global__ void __launch_bounds__(kIndexBlock) leaf_fold_kernel(BatchView v, const uint4* leaves) {
  const uint4 leaf = leaves[blockIdx.x];
  const DeviceNode node = v.d_nodes[leaf.z];
  const std::uint32_t cap = v.params.chunk_capacity;
  std::uint32_t chunk = leaf.x;
  for (std::uint32_t done = 0; done < leaf.y; done += cap) {
    const std::uint32_t n = min(cap, leaf.y - done);
    // With channels (Random: build() runs the incremental builder for Average's), a point
    // brings its record's digest; kNil as its number: the voxels hold their winners' records
    // already, and nothing copies them again.
    for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
      const RecordExtras ex = point_extras(
          v.index, v.record_bytes != 0 ? v.chunk_records(chunk) + std::uint64_t{j} * v.record_bytes
                                       : nullptr);
      const LeafSample s = v.leaf_point(chunk, j, node);
      fold_point(v, s.q, s.point.rgba, kNil, ex, 0);
    }
    chunk = *v.chunk_next(chunk);
  }
}

}  // namespace

void index_tree(TreeStore& t) {
  VoxelIndexStore& index = t.index;
  if (!index.enabled() || index.ready()) return;
  cudaStream_t s = t.stream_handle();
  HostTreeCopy copy;
  copy_nodes(t, copy);
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<uint4> inner;
  std::vector<uint4> leaves;
  std::uint32_t chunk_ids = 0;
  for (std::uint32_t id = 0; id < copy.nodes.size(); ++id) {
    const DeviceNode& n = copy.nodes[id];
    const NodeLink& link = copy.links[id];
    if (link.first_child != kNil) {
      inner.push_back(make_uint4(id, link.grid, n.head, chunk_ids));
      chunk_ids += n.chunks;
    } else if (n.count > 0) {
      leaves.push_back(make_uint4(n.head, n.count, id, 0));
    }
  }
  if (inner.empty()) {
    index.set_ready(true);
    return;
  }
  index.reserve(t.control.voxels, 0, s);  // CapacityError: still without an index
  const DeviceMemory lists = make_device(
      inner.size() * sizeof(uint4) + leaves.size() * sizeof(uint4) + std::uint64_t{chunk_ids} * 4,
      "the voxel index's node lists");
  auto* d_inner = static_cast<uint4*>(lists.get());
  auto* d_leaves = d_inner + inner.size();
  auto* d_ids = reinterpret_cast<std::uint32_t*>(d_leaves + leaves.size());
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(d_inner, inner.data(), inner.size() * sizeof(uint4),
                                    cudaMemcpyHostToDevice, s));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(d_leaves, leaves.data(), leaves.size() * sizeof(uint4),
                                    cudaMemcpyHostToDevice, s));
  const auto n_inner = static_cast<std::uint32_t>(inner.size());
  chunk_ids_kernel<<<blocks_for(n_inner, kIndexBlock), kIndexBlock, 0, s>>>(t.writer, d_inner,
                                                                            n_inner, d_ids);
  SIMLOD_CUDA_CHECK_LAUNCH("chunk_ids_kernel");
  entries_kernel<<<n_inner, kIndexBlock, 0, s>>>(t.writer, index.view(), d_inner, d_ids);
  SIMLOD_CUDA_CHECK_LAUNCH("entries_kernel");
  if (!leaves.empty()) {
    BatchView v{};
    static_cast<TreeView&>(v) = t.writer;
    v.index = index.view();
    leaf_fold_kernel<<<static_cast<unsigned>(leaves.size()), kIndexBlock, 0, s>>>(v, d_leaves);
    SIMLOD_CUDA_CHECK_LAUNCH("leaf_fold_kernel");
  }
  launch_write_colours(index.view(), t.points, s);  // the colours the bulk builder wrote
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));      // the host lists go out of scope
  index.set_ready(true);
}

}  // namespace simlod::detail::cuda
