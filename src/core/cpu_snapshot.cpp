// CPU backend: statistics and the host snapshot (node ids are snapshot indices; root = 0).
#include <algorithm>

#include "core/cpu_backend.hpp"

namespace simlod::detail::cpu {

OctreeStats CpuBackend::stats() const {
  OctreeStats s;
  s.nodes = nodes_.size();
  s.inner_nodes = (s.nodes - 1) / 8;  // every split appends 8 children
  s.leaves = s.nodes - s.inner_nodes;
  s.depth = depth_;
  s.points = points_;
  s.voxels = voxels_;
  s.chunks_allocated = chunks_.allocated();
  s.chunks_pooled = chunks_.pooled();
  s.chunks_used = s.chunks_allocated - s.chunks_pooled;
  s.bytes_points = point_chunks_ * chunks_.chunk_bytes();
  s.bytes_voxels = voxel_chunks_ * chunks_.chunk_bytes();
  s.bytes_grids = grids_.count() * grids_.grid_bytes();
  s.bytes_nodes = nodes_.size() * kNodeBytes;
  s.bytes_reserved = limit_ != 0 ? limit_ : charged();
  const std::uint64_t in_use = s.bytes_points + s.bytes_voxels + s.bytes_grids + s.bytes_nodes;
  s.bytes_free = s.bytes_reserved - std::min(in_use, s.bytes_reserved);
  return s;
}

NodeSnapshot CpuBackend::snapshot() const {
  NodeSnapshot out;
  out.cube = geometry_.cube;
  out.nodes.resize(nodes_.size());
  for (std::size_t id = 0; id < nodes_.size(); ++id) {
    const CpuNode& n = nodes_[id];
    NodeSnapshot::Node& s = out.nodes[id];
    s.level = n.level;
    s.position = {n.x, n.y, n.z};
    s.bounds = node_bounds(geometry_, n.level, s.position);
    s.leaf = n.leaf();
    if (!n.leaf()) {
      for (std::uint32_t k = 0; k < 8; ++k)
        s.children[k] = static_cast<std::int32_t>(n.first_child + k);
    }
    std::vector<Point>& samples = n.leaf() ? s.points : s.voxels;
    samples.reserve(n.count);
    std::uint64_t left = n.count;
    for (std::uint32_t c = n.head; left > 0; c = chunks_.next(c)) {
      const std::uint64_t k = std::min<std::uint64_t>(left, config_.chunk_capacity);
      samples.insert(samples.end(), chunks_.data(c), chunks_.data(c) + k);
      left -= k;
    }
  }
  return out;
}

}  // namespace simlod::detail::cpu
