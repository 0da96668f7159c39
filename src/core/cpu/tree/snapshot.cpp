// The consumers of the CPU tree store that read it whole: statistics, the host snapshot and
// the node reader.
#include <fmt/format.h>

#include <algorithm>

#include "core/channels.hpp"
#include "core/cpu/tree/store.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {
namespace {

NodeInfo info_of(const TreeStore& t, std::uint32_t id) {
  const CpuNode& n = t.nodes[id];
  NodeInfo info;
  info.id = id;
  info.level = n.level;
  info.position = {n.x, n.y, n.z};
  info.bounds = node_bounds(t.geometry, n.level, info.position);
  info.leaf = n.leaf();
  if (!n.leaf()) {
    for (std::uint32_t k = 0; k < 8; ++k) info.children[k] = n.first_child + k;
  }
  info.samples = n.count;
  return info;
}

}  // namespace

OctreeStats stats(const TreeStore& t) {
  OctreeStats s;
  s.nodes = t.nodes.size();
  s.inner_nodes = (s.nodes - 1) / 8;  // every split appends 8 children
  s.leaves = s.nodes - s.inner_nodes;
  s.depth = t.depth;
  s.points = t.points;
  s.voxels = t.voxels;
  s.chunks_allocated = t.chunks.allocated();
  s.chunks_pooled = t.chunks.pooled();
  s.bricks = t.grids.bricks();
  s.chunks_bricks = t.grids.pages();
  s.chunks_used = s.chunks_allocated - s.chunks_pooled - s.chunks_bricks;
  s.points_per_chunk = t.chunks.capacity();
  s.voxels_per_chunk = t.chunks.voxel_layout().capacity;
  s.bytes_points = t.point_chunks * t.chunks.chunk_bytes();
  s.bytes_voxels = t.voxel_chunks * t.chunks.chunk_bytes();
  const ChannelLayout layout = channel_layout(t.config.channels);
  for (std::size_t a = 0; a < kAttributeCount; ++a) {
    if (!layout.has(static_cast<Attribute>(a))) continue;
    s.bytes_channels[a] =
        (t.point_chunks * t.chunks.capacity() + t.voxel_chunks * t.chunks.voxel_layout().capacity) *
        attribute_width(static_cast<Attribute>(a));
  }
  s.bytes_grids = t.grids.table_bytes() + s.chunks_bricks * t.chunks.chunk_bytes();
  s.bytes_nodes = t.nodes.size() * kNodeBytes;
  s.bytes_filter = t.index.bytes();
  s.bytes_reserved = t.limit != 0 ? t.limit : t.charged();
  const std::uint64_t in_use =
      s.bytes_points + s.bytes_voxels + s.bytes_grids + s.bytes_nodes + s.bytes_filter;
  s.bytes_free = s.bytes_reserved - std::min(in_use, s.bytes_reserved);
  return s;
}

NodeSnapshot snapshot(const TreeStore& t) {
  NodeSnapshot out;
  out.cube = t.geometry.cube;
  out.channels = t.config.channels;
  const ChannelLayout layout = channel_layout(t.config.channels);
  out.nodes.resize(t.nodes.size());
  const ReadView view = t.read();
  for (std::uint32_t id = 0; id < t.nodes.size(); ++id) {
    const NodeInfo info = info_of(t, id);
    NodeSnapshot::Node& s = out.nodes[id];
    s.level = info.level;
    s.position = info.position;
    s.bounds = info.bounds;
    s.leaf = info.leaf;
    for (int k = 0; k < 8; ++k) s.children[k] = static_cast<std::int32_t>(info.children[k]);
    std::vector<Point>& samples = info.leaf ? s.points : s.voxels;
    samples.reserve(info.samples);
    view.for_each_run(id, [&](const Point* p, const std::byte* records, std::size_t n) {
      samples.insert(samples.end(), p, p + n);
      if (records != nullptr) unpack_records(records, n, layout, s.attributes);
    });
  }
  return out;
}

void for_each_node(const TreeStore& t, const NodeVisitor& visit) {
  for (std::uint32_t id = 0; id < t.nodes.size(); ++id) visit(info_of(t, id));
}

std::uint64_t read_node(const TreeStore& t, std::uint32_t id, std::uint64_t first,
                        std::span<Point> out, PointAttributes* attributes) {
  if (id >= t.nodes.size()) {
    throw InvalidInput(
        fmt::format("read_node: node id {} is not a node (the tree has {})", id, t.nodes.size()));
  }
  const ChannelLayout layout = channel_layout(t.config.channels);
  if (attributes != nullptr) *attributes = PointAttributes{};
  const std::uint64_t count = t.nodes[id].count;
  if (first >= count || out.empty()) return 0;
  const std::uint64_t n = std::min<std::uint64_t>(out.size(), count - first);
  const CpuNode& node = t.nodes[id];
  const std::uint32_t cap = t.chunks.capacity_of(node.leaf());
  const ReadView view = t.read();
  std::uint32_t c = node.head;
  for (std::uint64_t skip = first / cap; skip > 0; --skip) c = t.chunks.next(c);
  std::uint64_t at = first % cap, done = 0;
  while (done < n) {
    const std::uint64_t k = std::min<std::uint64_t>(cap - at, n - done);
    const std::byte* records = nullptr;
    if (node.leaf()) {
      for (std::uint64_t j = 0; j < k; ++j) {
        out[done + j] =
            view.point_at(node, t.chunks.bytes(c), static_cast<std::uint32_t>(at + j)).point;
      }
      records = t.chunks.records(c);
    } else {
      for (std::uint64_t j = 0; j < k; ++j) {
        out[done + j] = view.voxel_at(node, t.chunks.bytes(c), static_cast<std::uint32_t>(at + j));
      }
      records = t.chunks.voxel_records(c);
    }
    if (attributes != nullptr && layout.record_bytes != 0) {
      unpack_records(records + at * layout.record_bytes, k, layout, *attributes);
    }
    done += k;
    at = 0;
    c = t.chunks.next(c);
  }
  return n;
}

}  // namespace simlod::detail::cpu
