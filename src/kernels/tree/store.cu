// The CUDA tree store: reserving the arena, the empty tree, and the consumers that read the
// store whole (statistics, snapshot, node reader).
#include <algorithm>
#include <cstring>
#include <string>

#include "core/channels.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/tree/host_tree.hpp"
#include "kernels/tree/store.cuh"
#include "kernels/tuning.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

std::uint64_t reserve_size(const OctreeConfig& config) {
  if (config.memory_bytes != 0) return config.memory_bytes;
  std::size_t free = 0, total = 0;
  SIMLOD_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return static_cast<std::uint64_t>(config.memory_fraction * static_cast<double>(free));
}

}  // namespace

void copy_nodes(const TreeStore& t, HostTreeCopy& copy) {
  const std::uint32_t n = t.control.node_count;
  copy.nodes.resize(n);
  copy.links.resize(n);
  cudaStream_t s = t.stream_handle();
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(copy.nodes.data(), t.writer.d_nodes, n * sizeof(DeviceNode),
                                    cudaMemcpyDeviceToHost, s));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(copy.links.data(), t.writer.d_links, n * sizeof(NodeLink),
                                    cudaMemcpyDeviceToHost, s));
}

TreeStore::TreeStore(const OctreeConfig& config_, const OctreeGeometry& geometry_)
    : TreeStore(config_, geometry_, plan_arena(reserve_size(config_), config_, geometry_)) {}

TreeStore::TreeStore(const OctreeConfig& config_, const OctreeGeometry& geometry_,
                     const ArenaLayout& layout_)
    : config(config_), geometry(geometry_), layout(layout_), index(config_) {
  arena = DeviceArena(layout.total_bytes, layout.dynamic_begin);
  if (config.back_memory_at_create || layout.compacted) {
    arena.ensure(arena.size(), arena.size());  // all of it
  }
  control_host = make_pinned(sizeof(Control));
  stream = make_stream();
  ready = make_event(cudaEventDisableTiming);
  external = make_event(cudaEventDisableTiming);
  cudaStream_t s = stream.get();
  writer = make_tree_view(arena.data(), layout, config, geometry);

  // The empty tree: the root, a leaf at level 0 with no samples.
  control = Control{};
  control.node_count = 1;
  std::memcpy(control_host.get(), &control, sizeof(Control));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(writer.d_control, control_host.get(), sizeof(Control),
                                    cudaMemcpyHostToDevice, s));
  SIMLOD_CUDA_CHECK(
      cudaMemcpyAsync(writer.d_nodes, &kRootNode, sizeof(kRootNode), cudaMemcpyHostToDevice, s));
  SIMLOD_CUDA_CHECK(
      cudaMemcpyAsync(writer.d_links, &kRootLink, sizeof(kRootLink), cudaMemcpyHostToDevice, s));
  SIMLOD_CUDA_CHECK(cudaEventRecord(ready.get(), s));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
}

Owned<TreeStore> create_store(const OctreeConfig& config, const OctreeGeometry& geometry) {
  DeviceScope scope(config.device);
  return Owned<TreeStore>(new TreeStore(config, geometry), [](TreeStore* p) { destroy(p); });
}

void destroy(TreeStore* p) {
  if (p != nullptr) delete_on(p->config.device, p);
}

void order_after(TreeStore& t, void* stream) {
  DeviceScope scope(t.config.device);
  auto* s = static_cast<cudaStream_t>(stream);
  SIMLOD_CUDA_CHECK(cudaEventRecord(t.external.get(), s));
  SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(t.stream_handle(), t.external.get(), 0));
}

void signal(const TreeStore& t, void* stream) {
  DeviceScope scope(t.config.device);
  SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), t.ready.get(), 0));
}

OctreeStats stats(const TreeStore& t) {
  OctreeStats s = tree_stats(t.control, t.layout, t.points);
  s.bytes_filter = t.index.bytes();  // beside the reserve
  return s;
}

NodeSnapshot snapshot(const TreeStore& t) {
  DeviceScope scope(t.config.device);
  HostTreeCopy copy;
  copy_nodes(t, copy);
  copy.chunks.resize(std::uint64_t{t.control.chunk_top} * t.layout.chunk_bytes);
  if (!copy.chunks.empty()) {
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(copy.chunks.data(), t.writer.d_chunks, copy.chunks.size(),
                                      cudaMemcpyDeviceToHost, t.stream_handle()));
  }
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(t.stream_handle()));
  return build_snapshot(copy, t.geometry, t.layout);
}

void for_each_node(const TreeStore& t, const NodeVisitor& visit) {
  DeviceScope scope(t.config.device);
  HostTreeCopy copy;
  copy_nodes(t, copy);
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(t.stream_handle()));
  for (std::uint32_t id = 0; id < copy.nodes.size(); ++id) {
    visit(node_info(id, copy.nodes[id], copy.links[id], t.geometry));
  }
}

std::uint64_t read_node(const TreeStore& t, std::uint32_t id, std::uint64_t first,
                        std::span<Point> out, PointAttributes* attributes) {
  if (id >= t.control.node_count) {
    throw InvalidInput("read_node: node id " + std::to_string(id) +
                       " is not a node (the tree has " + std::to_string(t.control.node_count) +
                       ")");
  }
  DeviceScope scope(t.config.device);
  cudaStream_t s = t.stream_handle();
  DeviceNode node{};
  NodeLink link{};
  SIMLOD_CUDA_CHECK(
      cudaMemcpyAsync(&node, t.writer.d_nodes + id, sizeof(DeviceNode), cudaMemcpyDeviceToHost, s));
  SIMLOD_CUDA_CHECK(
      cudaMemcpyAsync(&link, t.writer.d_links + id, sizeof(NodeLink), cudaMemcpyDeviceToHost, s));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
  const bool leaf = link.first_child == kNil;
  if (attributes != nullptr) *attributes = PointAttributes{};
  if (first >= node.count || out.empty()) return 0;
  const ChannelLayout records = channel_layout(t.layout.channels);
  const std::uint64_t n = std::min<std::uint64_t>(out.size(), node.count - first);
  const std::uint32_t cap = leaf ? t.layout.points.capacity : t.layout.voxels.capacity;
  // Each chunk's next id sits at its end: copy the chunk, then follow the link. A compacted
  // store's lists are consecutive chunks: the chunks of the range come in one copy.
  const std::uint64_t chunk_bytes = t.layout.chunk_bytes;
  std::vector<std::byte> chunk(chunk_bytes), run;
  std::uint32_t c = node.head;
  std::uint64_t index = 0, done = 0;  // index: first sample of chunk c
  if (t.layout.compacted) {
    const std::uint64_t skip = first / cap, chunks = (first + n - 1) / cap - skip + 1;
    c += static_cast<std::uint32_t>(skip);
    index = skip * cap;
    run.resize(chunks * chunk_bytes);
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(run.data(), t.writer.d_chunks + c * chunk_bytes, run.size(),
                                      cudaMemcpyDeviceToHost, s));
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  const std::uint32_t first_chunk = c;
  while (done < n) {
    const std::byte* data = nullptr;
    if (t.layout.compacted) {
      data = run.data() + (c - first_chunk) * chunk_bytes;
    } else {
      SIMLOD_CUDA_CHECK(cudaMemcpyAsync(chunk.data(), t.writer.d_chunks + c * chunk_bytes,
                                        chunk.size(), cudaMemcpyDeviceToHost, s));
      SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
      data = chunk.data();
    }
    if (index + cap > first) {
      const std::uint64_t at = first + done - index;
      const std::uint64_t k = std::min<std::uint64_t>(cap - at, n - done);
      if (leaf) {
        const LeafPlace place{node.level, node.x, node.y, node.z};
        for (std::uint64_t j = 0; j < k; ++j) {
          out[done + j] = load_point(data, t.layout.points, static_cast<std::uint32_t>(at + j),
                                     place, t.geometry.quant_scale, t.geometry.edge)
                              .point;
        }
      } else {
        for (std::uint64_t j = 0; j < k; ++j) {
          out[done + j] =
              decode_voxel(data, t.layout.voxels, static_cast<std::uint32_t>(at + j), node.level,
                           node.x, node.y, node.z, t.geometry.grid_bits, t.geometry.edge);
        }
      }
      if (attributes != nullptr && records.record_bytes != 0) {
        const std::uint64_t offset =
            leaf ? t.layout.points.records_offset : t.layout.voxels.records_offset;
        unpack_records(data + offset + at * records.record_bytes, k, records, *attributes);
      }
      done += k;
    }
    index += cap;
    if (t.layout.compacted) {
      ++c;
    } else {
      std::memcpy(&c, data + chunk_bytes - 16, 4);
    }
  }
  return n;
}

}  // namespace simlod::detail::cuda
