// Host-side views of the CUDA tree store: statistics from the device counters, node records, and
// the snapshot assembled from host copies of the node tables and the chunk region. Plain C++, so
// that it is testable without a GPU.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/octree_store.hpp"
#include "kernels/tree/arena_layout.hpp"
#include "kernels/tree/device_layout.hpp"

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

/// The node reader's record of device node `id`.
[[nodiscard]] NodeInfo node_info(std::uint32_t id, const DeviceNode& node, const NodeLink& link,
                                 const OctreeGeometry& geometry);

/// The snapshot in device node order (nodes[0] = root, children at first_child + octant).
/// Throws simlod::Error when the copy is inconsistent (a list that leaves the chunk region or
/// disagrees with its node's counts), which would be a bug of the backend.
/// The chunks are laid out as `layout` says (device_layout.hpp): a leaf's points, an inner
/// node's compact voxels (decoded to their cell centres), and with attribute channels their
/// records, which come back as the nodes' attributes.
[[nodiscard]] NodeSnapshot build_snapshot(const HostTreeCopy& copy, const OctreeGeometry& geometry,
                                          const ArenaLayout& layout);

}  // namespace simlod::detail::cuda
