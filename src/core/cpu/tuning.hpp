// Tuning constants of the CPU octree backend, in one place. The algorithm's own parameters
// (SimLOD: 50k points per leaf, 128^3 voxel grid, chunks of 1000 samples, batches of 1M
// points) are OctreeConfig defaults; these only shape how the host executes it.
#pragma once

#include <cstddef>

namespace simlod::detail::cpu {

/// Points per parallel block. Large enough that a worker's walk dominates the hand-out cost,
/// small enough that 1000-point batches stay on the calling thread.
inline constexpr std::size_t kCpuPointGrain = 4096;

/// Bytes per chunk slab: chunks are allocated this many bytes at a time (at least one chunk),
/// so growing never moves stored samples and allocation calls stay rare. Small relative to a
/// memory reserve so that the bytes held beyond the charged chunks stay small.
inline constexpr std::size_t kChunkSlabBytes = std::size_t{1} << 20;

/// Slots of a worker's write-combining table for per-node counters
/// (core/cpu/update/local_counts.hpp): a batch reaches hundreds to a few thousand leaves, so 1024
/// slots catch most repeats while the table (8 KiB) stays in L1.
inline constexpr std::size_t kLocalCountSlots = 1024;

/// Parallel partitions per worker when samples are written: a few per worker balance uneven
/// ranges; each partition costs a row of per-node counters.
inline constexpr std::size_t kInsertPartitionsPerWorker = 4;

}  // namespace simlod::detail::cpu
