// Node records of the CPU octree backend.
//
// CpuNode: 40 bytes, alignment 8, one per node in a std::vector indexed by node id (root = 0).
//   offset  0  uint32 level        root = 0, at most OctreeGeometry::max_depth
//   offset  4  uint32 x, y, z      integer position at its level: node min = pos * edge / 2^level
//   offset 16  uint32 first_child  id of its 8 children, consecutive in octant order
//                                  (detail::child_octant); kNone for a leaf
//   offset 20  uint32 grid         occupancy grid id of an inner node; kNone for a leaf
//   offset 24  uint32 head         first chunk of the sample list; kNone while count == 0
//   offset 28  uint32 tail         last chunk (appends go there); kNone while count == 0
//   offset 32  uint64 count        samples stored: points (leaf) or voxels (inner node); a leaf
//                                  at max_depth grows without bound, hence 64 bits
// A node's list holds exactly ceil(count / capacity) chunks, capacity = ChunkStore::capacity()
// points (leaf) or ChunkStore::voxel_layout().capacity voxels (inner node); all but the tail are
// full.
// A split appends 8 nodes, so inner nodes = (nodes - 1) / 8.
//
// NodeScratch: 16 bytes, alignment 4, in a parallel vector; per-batch state, zero between batches.
//   offset  0  uint32 pending      new samples of this batch (counted with atomic adds)
//   offset  4  uint32 cursor       insertion cursor (atomic adds)
//   offset  8  uint32 table        first entry of its new chunks in the batch's chunk table
//   offset 12  uint32 base_tail    tail before the batch (where the first new samples go)
#pragma once

#include <cstdint>
#include <limits>

#include "simlod/detail/point_codec.hpp"

namespace simlod::detail::cpu {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

struct CpuNode {
  std::uint32_t level = 0;
  std::uint32_t x = 0, y = 0, z = 0;
  std::uint32_t first_child = kNone;
  std::uint32_t grid = kNone;
  std::uint32_t head = kNone;
  std::uint32_t tail = kNone;
  std::uint64_t count = 0;

  [[nodiscard]] bool leaf() const { return first_child == kNone; }
  /// Its level and position, as the point codec takes them (detail/point_codec.hpp).
  [[nodiscard]] LeafPlace place() const { return {level, x, y, z}; }

  /// The record of its child in `octant` (detail::child_octant): a leaf without samples.
  [[nodiscard]] CpuNode child(std::uint32_t octant) const {
    CpuNode c;
    c.level = level + 1;
    c.x = x * 2 + (octant & 1u);
    c.y = y * 2 + ((octant >> 1) & 1u);
    c.z = z * 2 + ((octant >> 2) & 1u);
    return c;
  }
};

struct NodeScratch {
  std::uint32_t pending = 0;
  std::uint32_t cursor = 0;
  std::uint32_t table = 0;
  std::uint32_t base_tail = kNone;
};

static_assert(sizeof(CpuNode) == 40 && alignof(CpuNode) == 8, "layout documented above");
static_assert(sizeof(NodeScratch) == 16, "layout documented above");

/// Bytes charged to the memory reserve per node (record + scratch).
inline constexpr std::uint64_t kNodeBytes = sizeof(CpuNode) + sizeof(NodeScratch);

}  // namespace simlod::detail::cpu
