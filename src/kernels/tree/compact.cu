// Octree::compact() on the CUDA backend (kernels/entry.hpp, compact_store): the nodes and their
// samples moved, in order, into a new store whose arena holds exactly their chunks, of another
// capacity, and nothing that only further batches need (occupancy grids, pool, scratch).
// Chunks are handed out node by node in id order, each node's list consecutive, as the CPU
// backend does (core/cpu/tree/compact.cpp), so that both give the same chunk ids.
#include <vector>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/upload.cuh"
#include "kernels/tree/host_tree.hpp"
#include "kernels/tree/store.cuh"

namespace simlod::detail::cuda {
namespace {

constexpr int kCompactBlock = 256;

/// What a block moves: node `node`'s `count` samples from the old list starting at `from` to
/// the new chunks from `to` on.
struct CompactJob {
  std::uint32_t node, count, from, to;
};

/// A block per node with samples: every thread walks the old list (the next id is a broadcast
/// load) and moves its share of each chunk's samples and records to their place in the new,
/// consecutive chunks, then links those.
__global__ void __launch_bounds__(kCompactBlock)
    compact_kernel(TreeView from, TreeView to, const CompactJob* jobs) {
  const CompactJob job = jobs[blockIdx.x];
  const bool leaf = from.link(job.node).first_child == kNil;
  const std::uint32_t from_cap = from.capacity_of(leaf), to_cap = to.capacity_of(leaf);
  const std::uint64_t from_records =
      leaf ? from.leaf_layout.records_offset : from.voxels.records_offset;
  const std::uint64_t to_records = leaf ? to.leaf_layout.records_offset : to.voxels.records_offset;
  std::uint32_t chunk = job.from;
  for (std::uint32_t done = 0; done < job.count; done += from_cap) {
    const std::uint32_t n = min(from_cap, job.count - done);
    const std::byte* src = from.chunk_bytes_of(chunk);
    for (std::uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
      const std::uint32_t i = done + j;
      const std::uint32_t c = job.to + i / to_cap, slot = i % to_cap;
      std::byte* dst = to.chunk_bytes_of(c);
      if (leaf) {
        copy_point(src, from.leaf_layout, j, dst, to.leaf_layout, slot);
      } else {
        copy_voxel(src, from.voxels, j, dst, to.voxels, slot);
      }
      if (from.record_bytes != 0) {
        copy_record(dst + to_records + std::uint64_t{slot} * to.record_bytes,
                    src + from_records + std::uint64_t{j} * from.record_bytes, from.record_bytes);
      }
    }
    chunk = *from.chunk_next(chunk);
  }
  const std::uint32_t chunks = (job.count + to_cap - 1) / to_cap;
  for (std::uint32_t k = threadIdx.x; k < chunks; k += blockDim.x) {
    *to.chunk_next(job.to + k) = k + 1 < chunks ? job.to + k + 1 : kNil;
  }
}

}  // namespace

Owned<TreeStore> compact_store(const TreeStore& store, std::uint32_t chunk_capacity) {
  DeviceScope scope(store.config.device);
  HostTreeCopy copy;
  copy_nodes(store, copy);
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(store.stream_handle()));

  OctreeConfig config = store.config;
  config.chunk_capacity = chunk_capacity;
  // The new lists: chunks in node id order (the CPU's order), a job per node with samples.
  const ArenaLayout probe = plan_compact_arena(config, store.geometry, 0, 0);
  std::vector<CompactJob> jobs;
  std::vector<DeviceNode> nodes = copy.nodes;
  Control control = store.control;
  control.chunk_top = 0;
  control.point_chunks = control.voxel_chunks = 0;
  for (std::uint32_t id = 0; id < nodes.size(); ++id) {
    DeviceNode& n = nodes[id];
    const bool leaf = copy.links[id].first_child == kNil;
    const std::uint32_t cap = leaf ? probe.points.capacity : probe.voxels.capacity;
    const std::uint32_t chunks = (n.count + cap - 1) / cap;
    if (chunks == 0) {
      n.chunks = 0;
      n.head = n.tail = kNil;
      continue;
    }
    jobs.push_back({id, n.count, n.head, control.chunk_top});
    n.chunks = chunks;
    n.head = control.chunk_top;
    n.tail = control.chunk_top + chunks - 1;
    control.chunk_top += chunks;
    (leaf ? control.point_chunks : control.voxel_chunks) += chunks;
  }
  control.pool_size = 0;
  control.bricks = 0;
  control.brick_page = 0;
  control.overflow = 0;

  const ArenaLayout layout =
      plan_compact_arena(config, store.geometry, static_cast<std::uint32_t>(nodes.size()),
                         control.chunk_top);  // throws before allocating
  Owned<TreeStore> fresh(new TreeStore(config, store.geometry, layout),
                         [](TreeStore* p) { destroy(p); });
  fresh->points = store.points;
  fresh->control = control;
  cudaStream_t s = fresh->stream_handle();
  const TreeView& w = fresh->writer;
  SIMLOD_CUDA_CHECK(
      cudaMemcpyAsync(w.d_control, &control, sizeof(Control), cudaMemcpyHostToDevice, s));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(w.d_nodes, nodes.data(), nodes.size() * sizeof(DeviceNode),
                                    cudaMemcpyHostToDevice, s));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(w.d_links, copy.links.data(),
                                    copy.links.size() * sizeof(NodeLink), cudaMemcpyHostToDevice,
                                    s));
  if (!jobs.empty()) {
    const DeviceMemory d_jobs = upload(jobs, "the compaction's node list", s);
    compact_kernel<<<static_cast<unsigned>(jobs.size()), kCompactBlock, 0, s>>>(
        store.writer, w, static_cast<const CompactJob*>(d_jobs.get()));
    SIMLOD_CUDA_CHECK(cudaGetLastError());
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));  // before d_jobs goes
  }
  SIMLOD_CUDA_CHECK(cudaEventRecord(fresh->ready.get(), s));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
  return fresh;
}

}  // namespace simlod::detail::cuda
