// Device records of the CUDA octree backend (plain C++: host code copies them back for stats
// and snapshots). All multi-byte fields are little-endian; offsets are checked by the
// static_asserts at the bottom.
//
// DeviceNode: 32 bytes, alignment 16; table d_nodes indexed by node id (root = 0; the 8
// children of a split are created together, so they are consecutive ids in octant order).
//   offset  0  uint32 x, y, z   integer position at its level: node min = pos * edge / 2^level
//   offset 12  uint32 level     root = 0, at most OctreeGeometry::max_depth
//   offset 16  uint32 count     samples stored: points (leaf) or voxels (inner node)
//   offset 20  uint32 chunks    chunks in its list: always ceil(count / capacity), capacity =
//                               chunk_capacity points (leaf) or ArenaLayout::voxels.capacity
//                               voxels (inner node)
//   offset 24  uint32 head      first chunk of the list, kNil while chunks == 0
//   offset 28  uint32 tail      last chunk (appends go there), kNil while chunks == 0
//
// NodeLink: 8 bytes, alignment 8; table d_links parallel to d_nodes. Kept apart from the
// records because every point reads one link per level while walking the tree: 8 bytes per
// step instead of a 32-byte record, and the links of 10^6 nodes (8 MB) stay in L2.
//   offset  0  uint32 first_child   id of child octant 0, kNil for a leaf
//   offset  4  uint32 grid          occupancy grid id of an inner node, kNil for a leaf
//
// Chunk: chunk_bytes = 16 * chunk_capacity + the records (chunk_capacity * record_bytes,
// padded to 16) + a 16-byte trailer whose first uint32 is the id of the next chunk of the same
// list (kNil at the end); chunk c lies at d_chunks + c * chunk_bytes (16 KB at SimLOD's 1000
// without channels). A leaf's chunk holds chunk_capacity Points (16 bytes each), then with
// attribute channels (OctreeConfig::channels) their records (detail/channels.hpp; record k
// beside point k). An inner node's chunk holds compact voxels and their records in the same
// bytes before the trailer (detail/voxel_codec.hpp, ArenaLayout::voxels: 6 bytes a voxel at
// grids of up to 256 cells a side), as many as the CPU store's chunks hold.
//
// Occupancy grid, block-sparse (detail/occupancy_codec.hpp): grid g is a slot table of
// table_bytes at d_grid_end - (g + 1) * table_bytes (tables grow down from the end of the arena,
// chunks up from its middle); a slot holds kEmptySlot or the 64-byte unit of its brick from
// d_chunks. Bricks lie in pages, which are chunks: brick n in page n / bricks_per_page, whose
// chunk is Control::brick_page for the last page before the batch and chunk_top + k for the
// batch's k-th new page (a batch's sample pass claims bricks; the pages it opened are taken
// from the arena before the allocate pass hands out chunks, close_bricks()).
#pragma once

#include <cstddef>
#include <cstdint>

namespace simlod::detail::cuda {

/// "No node / chunk / grid" in the uint32 ids of the device tables.
inline constexpr std::uint32_t kNil = 0xFFFFFFFFu;

struct alignas(16) DeviceNode {
  std::uint32_t x, y, z;
  std::uint32_t level;
  std::uint32_t count;
  std::uint32_t chunks;
  std::uint32_t head;
  std::uint32_t tail;
};

struct alignas(8) NodeLink {
  std::uint32_t first_child;
  std::uint32_t grid;
};

/// A leaf that splits in the current round: 32 bytes, alignment 16. Written by the split
/// decision pass, read by the pass that copies its points out and empties its grid's table.
struct alignas(16) SplitEntry {
  std::uint32_t node;      ///< offset 0
  std::uint32_t grid;      ///< offset 4: the grid it receives
  std::uint32_t spill_at;  ///< offset 8: where its points go in the spill buffer
  std::uint32_t pool_at;   ///< offset 12: where its chunks go in the chunk pool
  std::uint32_t head;      ///< offset 16: its chunk list before the split
  std::uint32_t count;     ///< offset 20: points stored before the split
  std::uint32_t chunks;    ///< offset 24: chunks of that list
  std::uint32_t tail;      ///< offset 28: its last chunk before the split (for a rollback)
};

/// A split entry whose decision failed (a grant ran out): nothing was changed for it.
inline constexpr std::uint32_t kFailedSplit = 0xFFFFFFFFu;

/// A voxel emitted by the sampling pass, waiting for its chunk: 16 bytes, alignment 16.
struct alignas(16) VoxelRecord {
  std::uint32_t node;  ///< offset 0: inner node
  std::uint32_t slot;  ///< offset 4: its index among the node's new voxels of this batch
  std::uint32_t cell;  ///< offset 8: detail::cell_index in that node
  std::uint32_t rgba;  ///< offset 12: colour of the point that set the cell's bit
};

/// Sums over the leaves a batch reaches, reduced twice: after round 1 of expand (splits and
/// spill of round 1 are exact) and after the last round (no leaf splits any more, so the
/// point chunks are exact and the voxels bounded); the capacity check places and grants the
/// batch's memory from them (kernels/update/capacity.hpp). 72 bytes, alignment 8.
struct PlanSums {
  std::uint64_t splits = 0;        ///< leaves over the limit (they split in this round)
  std::uint64_t spill = 0;         ///< points those leaves store (they move to the spill buffer)
  std::uint64_t freed_chunks = 0;  ///< chunks of those leaves (they go to the pool)
  std::uint64_t counted = 0;       ///< points counted in leaves that do not split
  std::uint64_t point_chunks = 0;  ///< new chunks of the leaves that do not split (exact)
  std::uint64_t point_nodes = 0;   ///< leaves that receive points and do not split
  std::uint64_t voxels = 0;        ///< bound: voxels emitted (one per inner ancestor and point)
  std::uint64_t max_total = 0;     ///< largest stored + counted of a reached leaf
  std::uint64_t leaves = 0;        ///< leaves reached
};

/// Counters that live on the device, at arena offset 0: 352 bytes, alignment 16.
struct alignas(16) Control {
  // The tree (persistent).
  std::uint32_t node_count;    ///< offset  0: nodes in use (ids 0 .. node_count-1)
  std::uint32_t grid_count;    ///< offset  4: grids handed out = inner nodes
  std::uint32_t chunk_top;     ///< offset  8: chunks taken from the arena (in lists or pooled)
  std::uint32_t pool_size;     ///< offset 12: chunks in the pool (d_pool[0 .. pool_size-1])
  std::uint32_t depth;         ///< offset 16: deepest level
  std::uint32_t overflow;      ///< offset 20: kOverflow* bits; any set bit is an internal error
  std::uint32_t bricks;        ///< offset 24: occupancy bricks claimed (brick numbers 0 ..)
  std::uint32_t brick_page;    ///< offset 28: the chunk of the last page of bricks
  std::uint64_t voxels;        ///< offset 32: voxels stored
  std::uint64_t point_chunks;  ///< offset 40: chunks in leaf lists
  std::uint64_t voxel_chunks;  ///< offset 48: chunks in inner-node lists
  std::uint64_t tree_pad2;     ///< offset 56
  // The batch (zeroed when a batch starts).
  std::uint32_t spill_count;    ///< offset 64: points moved to the spill buffer
  std::uint32_t backlog_count;  ///< offset 68: voxels emitted
  std::uint32_t ordinals;       ///< offset 72: chunks handed to nodes (pool first, then arena)
  std::uint32_t touched;        ///< offset 76: entries in d_touched (kNil: a leaf that split)
  PlanSums plan;                ///< offset 80 .. 151
  std::uint32_t round_splits;   ///< offset 152: leaves split in the current round (d_splits)
  std::uint32_t extra_rounds;   ///< offset 156: expand rounds started after round 1
  std::uint32_t expand_done;    ///< offset 160: set when a round split nothing (or a grant ran out)
  std::uint32_t split_base;     ///< offset 164: split entries of the rounds before this one
  std::uint32_t need;           ///< offset 168: kNeed* bits: a grant ran out (batch rolled back)
  std::uint32_t new_bricks;     ///< offset 172: bricks claimed by this batch's sample pass
  std::uint32_t batch_pad[20];  ///< offset 176 .. 255
  PlanSums last;                ///< offset 256 .. 327: the plan after the last expand round
  std::uint32_t batch_pad2[6];  ///< offset 328 .. 351
};

/// Control::overflow bits: a reservation from the capacity check was exceeded (a bug in the
/// bound, never expected); the pass stopped writing instead of corrupting memory.
inline constexpr std::uint32_t kOverflowNodes = 1u << 0;
inline constexpr std::uint32_t kOverflowGrids = 1u << 1;
inline constexpr std::uint32_t kOverflowChunks = 1u << 2;
inline constexpr std::uint32_t kOverflowSpill = 1u << 3;
inline constexpr std::uint32_t kOverflowBacklog = 1u << 4;
inline constexpr std::uint32_t kOverflowSplits = 1u << 5;
inline constexpr std::uint32_t kOverflowTouched = 1u << 6;
inline constexpr std::uint32_t kOverflowIndex = 1u << 7;  ///< voxel index: no room or no entry

/// Control::need bits: the speculative expand rounds wanted more nodes, grids or split entries
/// than granted. Not an error: the host rolls the batch back and runs it again with a larger
/// grant (or in smaller pieces).
inline constexpr std::uint32_t kNeedGrids = 1u << 0;

/// Control is zeroed from here when a batch starts.
inline constexpr std::size_t kControlBatchBegin = 64;

/// Bytes of the node table per node: record, link and four uint32 of per-node scratch
/// (new samples, first chunk ordinal, tail before the batch, touched-list entry).
inline constexpr std::uint64_t kNodeTableBytes = sizeof(DeviceNode) + sizeof(NodeLink) + 4 * 4;

static_assert(sizeof(DeviceNode) == 32 && alignof(DeviceNode) == 16);
static_assert(offsetof(DeviceNode, level) == 12 && offsetof(DeviceNode, tail) == 28);
static_assert(sizeof(NodeLink) == 8 && offsetof(NodeLink, grid) == 4);
static_assert(sizeof(SplitEntry) == 32 && offsetof(SplitEntry, tail) == 28);
static_assert(sizeof(VoxelRecord) == 16 && offsetof(VoxelRecord, rgba) == 12);
static_assert(sizeof(PlanSums) == 72);
static_assert(sizeof(Control) == 352 && alignof(Control) == 16);
static_assert(offsetof(Control, last) == 256);
static_assert(offsetof(Control, voxels) == 32 && offsetof(Control, tree_pad2) == 56);
static_assert(offsetof(Control, spill_count) == kControlBatchBegin);
static_assert(offsetof(Control, plan) == 80);
static_assert(offsetof(Control, round_splits) == 152 && offsetof(Control, expand_done) == 160);
static_assert(offsetof(Control, split_base) == 164 && offsetof(Control, need) == 168);
static_assert(offsetof(Control, bricks) == 24 && offsetof(Control, new_bricks) == 172);

}  // namespace simlod::detail::cuda
