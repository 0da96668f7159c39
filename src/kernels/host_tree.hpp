// Host-side views of the CUDA backend's tree: statistics from the device counters, and the
// snapshot assembled from host copies of the node tables and the chunk region. Plain C++, so
// that it is testable without a GPU.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/octree_backend.hpp"
#include "kernels/arena_layout.hpp"
#include "kernels/device_layout.hpp"

namespace simlod::detail::cuda {

/// Host copy of the device tree: node records and links (node_count each) and the chunk
/// region from dynamic_begin up to chunk_top * chunk_bytes.
struct HostTreeCopy {
  std::vector<DeviceNode> nodes;
  std::vector<NodeLink> links;
  std::vector<std::byte> chunks;
};

/// Statistics from the device counters; `points` = points inserted so far (host count).
[[nodiscard]] OctreeStats tree_stats(const Control& control, const ArenaLayout& layout,
                                     std::uint64_t points);

/// The snapshot in device node order (nodes[0] = root, children at first_child + octant).
/// Throws simlod::Error when the copy is inconsistent (a list that leaves the chunk region or
/// disagrees with its node's counts), which would be a bug of the backend.
[[nodiscard]] NodeSnapshot build_snapshot(const HostTreeCopy& copy, const OctreeGeometry& geometry,
                                          std::uint32_t chunk_capacity, std::uint64_t chunk_bytes);

}  // namespace simlod::detail::cuda
