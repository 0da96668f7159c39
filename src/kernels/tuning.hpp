// Tuning constants of the CUDA octree backend, in one place. The algorithm's own parameters
// (SimLOD: 50k points per leaf, 128^3 voxel grid, chunks of 1000 samples, batches of 1M points)
// are OctreeConfig defaults; these only shape how the GPU executes it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simlod::detail::cuda {

/// Threads per block of the per-point passes (count, sample, insert). 256 gives 8 resident
/// blocks per SM at full occupancy on sm_75..sm_90 and keeps tail blocks small; the passes
/// use no shared memory, so nothing else bounds it.
inline constexpr int kPointBlock = 256;

/// Threads per block of the passes over node lists (plan, split decisions, allocate). The plan
/// pass reduces in shared memory (cub::BlockReduce), 256 threads = 8 warps of partial sums.
inline constexpr int kListBlock = 256;

/// Threads per block that execute one split (empty a 16 KiB slot table, copy up to 50k points of
/// the leaf's chunk list to the spill buffer): 256 threads write 4 KiB per step with 16-byte
/// stores, and one block per split lets splits run side by side.
inline constexpr int kSplitBlock = 256;

/// Voxel records a sampling block stages in shared memory (16 B each, 8 KiB) before it
/// reserves their backlog range with one atomic: a single global counter for every voxel
/// would serialise 10^5..10^6 atomics per batch on one L2 slice (~1-2 G/s for one address).
/// Steady-state batches emit well under one voxel per point (256 per block); a full stage
/// falls back to per-warp appends.
inline constexpr unsigned kSampleStage = 512;

/// Upper bound on blocks of the grid-stride passes whose length lives on the device (lists
/// built by an earlier pass). 132 SMs x 8 resident blocks covers an H100 once.
inline constexpr int kMaxListBlocks = 1056;

/// Upper bound on blocks executing splits in one round. SimLOD batches split tens of leaves
/// per round; a few hundred blocks saturate the copy while keeping launch cost flat.
inline constexpr int kMaxSplitBlocks = 512;

/// Expand rounds queued after round 1 before the host looks whether splitting has ended.
/// Rounds after the one that split nothing return at once (a few microseconds of launches),
/// while each look costs a host round trip (~15-20 us of idle GPU). SimLOD batches mostly
/// need 2-5 rounds while the tree grows, 1-2 later.
inline constexpr int kSpeculativeRounds = 4;

/// Points per host-to-device piece of the upload: the host copies piece k+1 into pinned
/// memory while the DMA engine moves piece k. 2^17 points = 2 MiB, large enough that each
/// copy runs near the 55 GB/s pinned rate, small enough that the overlap hides most of it.
inline constexpr std::size_t kUploadPiecePoints = std::size_t{1} << 17;

/// Largest share of the arena given to the node table (records, links, per-node scratch).
/// The table holds as many splits as dense occupancy grids would fit (a 128^3 grid: 256 KiB
/// per 8 nodes of 56 bytes, 0.2% of the arena; the tree's grids are block-sparse and smaller);
/// the cap only matters for tiny grids, where nodes would otherwise take nearly all memory.
inline constexpr double kMaxNodeTableShare = 0.125;

/// Alignment of every arena region (bytes): whole 128-byte cache lines plus room for
/// 16-byte vector loads and stores, and cudaMalloc's own guarantee.
inline constexpr std::uint64_t kArenaAlign = 256;

}  // namespace simlod::detail::cuda

namespace simlod::detail::cuda {

/// Renderer: threads per block of the node-selection passes.
inline constexpr int kSelectBlock = 256;
/// Renderer: threads per block of the splat passes. A block draws one chunk at a time:
/// 1000-sample chunks (SimLOD) = 4 strided steps of 256 threads.
inline constexpr int kSplatBlock = 256;
/// Renderer: splat blocks per SM. The blocks stride over the chunk work list (its length is on
/// the device); 8 resident blocks of 256 threads fill an SM, twice that covers the tail.
inline constexpr int kSplatBlocksPerSm = 16;
/// Renderer: chunk bytes a work-list entry covers in a compacted store (Octree::compact()),
/// whose lists are consecutive chunks: an entry then spans as many of a node's chunks as make
/// about this many bytes (a chunk of the default configuration: 1000 points, 1600 quantised
/// ones, 2666 voxels), so that small chunks cost no more entries than those.
inline constexpr std::uint64_t kRenderEntryBytes = 16'384;

}  // namespace simlod::detail::cuda

namespace simlod::detail::cuda {

/// Smallest step by which the octree's device arena backs more of its address range with
/// memory (kernels/common/device_arena.cuh; each end also grows by half of what it holds). A step
/// is a driver allocation and mapping that the batch needing it waits for: with 64 MiB steps a
/// 10^8-point tree (2.7 GB) grew about 40 times and updates ran 14-21% slower on the GPU test
/// machine (docs/perf-notes.md); 256 MiB and growth by half make it 9-14 times.
inline constexpr std::uint64_t kArenaGrowBytes = std::uint64_t{256} << 20;

/// Grids granted to the expand rounds after round 1 beyond round 1's own splits (the first
/// batch's; doubled whenever a batch runs out, kept for the batches after it). Unused grants
/// cost nothing but address space until they are backed; 64 grids of 128^3 = 16 MiB.
inline constexpr std::uint64_t kExpandHeadroom = 64;

}  // namespace simlod::detail::cuda

namespace simlod::detail::cuda {

/// Device batch buffers (16 MB each at 1M points): the batch being inserted and two in flight.
/// A streaming loop prefetches batches k+1 and k+2 before it inserts k, so the host-to-device
/// copies run back to back; with two buffers the copy of k+1 started only when k was inserted
/// and the stream reached 76-99% of reading alone (docs/results.md).
inline constexpr int kBatchBuffers = 3;

}  // namespace simlod::detail::cuda

namespace simlod::detail::cuda {

/// Bulk builder: levels of the root block of counters. The split counts every point into the
/// cells of level 7 (128^3 uint32 counters = 8 MiB, so that the counting atomics hit L2, 50 MB
/// on the H100) and refines only cells over the leaf limit; CudaLOD counts into 256^3 (64 MiB,
/// beyond L2).
inline constexpr std::uint32_t kBulkRootLevels = 7;
/// Bulk builder: levels of a refining block (CudaLOD's 16^3 sub-grids): a cell over the leaf
/// limit gets 4 more levels of counters, 4,680 in all, counted in one more pass over the points.
inline constexpr std::uint32_t kBulkBlockLevels = 4;
/// Bulk builder: the least room in voxel records a first-come level gets. A level gets room
/// for its bound (every sample a voxel) up to half a record a point or this, whichever is
/// more, and both levels' buffers are that large from the start (8 bytes a point, the
/// builder's largest scratch); a level that emits more runs again with room for all of it.
inline constexpr std::uint64_t kBulkMinRecords = std::uint64_t{1} << 16;
/// Bulk builder: threads per block of its passes; a voxelizing block takes one chunk (1000
/// samples at SimLOD's capacity: 4 strided steps).
inline constexpr int kBulkBlock = 256;
/// Samples a block of the bulk builder's shared-memory sampling takes (kernels/bulk/
/// octant_passes.cu): 8 a thread, their child and cell in registers; a block clears its
/// 32 KiB octant once and pays a few barriers per child, which fewer samples a block would
/// repeat more often. The touched-word list (16-bit indices) holds this many entries.
inline constexpr std::uint32_t kOctantItems = 4096;
/// Threads of a block of that sampling, and the blocks an SM must hold (which caps its
/// registers): 256 threads (16 samples each) and 3 blocks ran at 80 registers, with spills, and
/// 37.5% occupancy, limited by registers and shared memory alike; 512 threads (8 samples each)
/// and 2 blocks fit 64 registers without spills and hold 32 warps an SM (first-come voxelize
/// 4.90 -> 4.14 ms at 10^8 points on the H100). 512 and 3 (40 registers) spill.
inline constexpr int kOctantThreads = 512;
inline constexpr int kOctantMinBlocks = 2;
/// Bricks the bulk builder makes sparse in one step (its flags and numbers: 8 bytes each).
inline constexpr std::uint64_t kBulkBrickItems = std::uint64_t{1} << 24;

}  // namespace simlod::detail::cuda
