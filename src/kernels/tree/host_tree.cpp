// Statistics and snapshots of the CUDA backend, assembled on the host.
#include "kernels/tree/host_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "core/channels.hpp"
#include "kernels/update/capacity.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {

OctreeStats tree_stats(const Control& c, const ArenaLayout& layout, std::uint64_t points) {
  OctreeStats s;
  s.nodes = c.node_count;
  s.inner_nodes = c.grid_count;  // one grid per inner node
  s.leaves = s.nodes - s.inner_nodes;
  s.depth = c.depth;
  s.points = points;
  s.voxels = c.voxels;
  s.chunks_used = c.point_chunks + c.voxel_chunks;
  s.chunks_pooled = c.pool_size;
  s.chunks_allocated = c.chunk_top;
  s.bricks = c.bricks;
  s.chunks_bricks = layout.compacted ? 0 : brick_pages(c.bricks, layout.occupancy);
  s.points_per_chunk = layout.points.capacity;
  s.voxels_per_chunk = layout.voxels.capacity;
  // Sample bytes of the chunks, channel records included (as the CPU backend counts them); the
  // 16-byte trailer of each chunk (its next id, 0.1% at 1000 samples) and the records' padding
  // are left out like the CPU's separate link array.
  const std::uint64_t payload = std::uint64_t{layout.chunk_capacity} * (16 + layout.record_bytes);
  s.bytes_points = c.point_chunks * payload;
  s.bytes_voxels = c.voxel_chunks * payload;
  for (std::size_t a = 0; a < kAttributeCount; ++a) {
    if (!has_attribute(layout.channels, static_cast<Attribute>(a))) continue;
    s.bytes_channels[a] =
        (c.point_chunks * layout.points.capacity + c.voxel_chunks * layout.voxels.capacity) *
        attribute_width(static_cast<Attribute>(a));
  }
  s.bytes_grids = layout.compacted ? 0
                                   : std::uint64_t{c.grid_count} * layout.occupancy.table_bytes +
                                         s.chunks_bricks * payload;
  s.bytes_nodes = std::uint64_t{c.node_count} * kNodeTableBytes;
  s.bytes_reserved = layout.total_bytes + layout.scratch_bytes;
  // Free = the gap between chunks and grids plus pooled chunks; the fixed tables (node table
  // reserve, pool) and the builder's scratch count as neither used nor free.
  const TreeCounters tree{c.node_count, c.grid_count, c.chunk_top, c.pool_size};
  s.bytes_free = arena_gap(layout, tree) + std::uint64_t{c.pool_size} * layout.chunk_bytes;
  return s;
}

NodeInfo node_info(std::uint32_t id, const DeviceNode& d, const NodeLink& link,
                   const OctreeGeometry& geometry) {
  NodeInfo info;
  info.id = id;
  info.level = d.level;
  info.position = {d.x, d.y, d.z};
  info.bounds = node_bounds(geometry, d.level, info.position);
  info.leaf = link.first_child == kNil;
  if (!info.leaf) {
    for (std::uint32_t k = 0; k < 8; ++k) info.children[k] = link.first_child + k;
  }
  info.samples = d.count;
  return info;
}

NodeSnapshot build_snapshot(const HostTreeCopy& copy, const OctreeGeometry& geometry,
                            const ArenaLayout& layout) {
  const AttributeMask channels = layout.channels;
  const std::uint64_t chunk_bytes = layout.chunk_bytes;
  const ChannelLayout records = channel_layout(channels);
  const std::uint64_t chunk_count = copy.chunks.size() / chunk_bytes;
  auto corrupt = [](std::uint32_t node, const std::string& what) {
    throw Error(fmt::format("internal error: the device octree is inconsistent at node {}: {}",
                            node, what));
  };
  NodeSnapshot snap;
  snap.cube = geometry.cube;
  snap.channels = channels;
  snap.nodes.resize(copy.nodes.size());
  for (std::uint32_t i = 0; i < copy.nodes.size(); ++i) {
    const DeviceNode& d = copy.nodes[i];
    const NodeLink& link = copy.links[i];
    NodeSnapshot::Node& n = snap.nodes[i];
    n.level = d.level;
    n.position = {d.x, d.y, d.z};
    n.bounds = node_bounds(geometry, d.level, n.position);
    n.leaf = link.first_child == kNil;
    if (!n.leaf) {
      if (link.first_child + std::uint64_t{8} > copy.nodes.size()) corrupt(i, "child out of range");
      for (std::uint32_t k = 0; k < 8; ++k) {
        n.children[k] = static_cast<std::int32_t>(link.first_child + k);
      }
    }
    const std::uint32_t chunk_capacity = n.leaf ? layout.points.capacity : layout.voxels.capacity;
    if (chunks_for(d.count, chunk_capacity) != d.chunks) {
      corrupt(i, fmt::format("{} samples in {} chunks", d.count, d.chunks));
    }
    std::vector<Point>& out = n.leaf ? n.points : n.voxels;
    out.resize(d.count);
    std::uint32_t chunk = d.head;
    std::uint64_t done = 0;
    for (std::uint32_t k = 0; k < d.chunks; ++k) {
      if (chunk >= chunk_count) corrupt(i, fmt::format("chunk id {} out of range", chunk));
      const std::byte* base = copy.chunks.data() + chunk * chunk_bytes;
      const std::uint64_t take = std::min<std::uint64_t>(chunk_capacity, d.count - done);
      if (n.leaf) {
        for (std::uint32_t j = 0; j < take; ++j) {
          out[done + j] = load_point(base, layout.points, j, LeafPlace{d.level, d.x, d.y, d.z},
                                     geometry.quant_scale, geometry.edge)
                              .point;
        }
      } else {
        for (std::uint32_t j = 0; j < take; ++j) {
          out[done + j] = decode_voxel(base, layout.voxels, j, d.level, d.x, d.y, d.z,
                                       geometry.grid_bits, geometry.edge);
        }
      }
      if (records.record_bytes != 0) {
        unpack_records(
            base + (n.leaf ? layout.points.records_offset : layout.voxels.records_offset),
            static_cast<std::size_t>(take), records, n.attributes);
      }
      done += take;
      if (k + 1 == d.chunks && chunk != d.tail) corrupt(i, "the list does not end at its tail");
      std::memcpy(&chunk, base + chunk_bytes - 16, 4);
    }
  }
  return snap;
}

}  // namespace simlod::detail::cuda
