// The passes of one batch (core/octree_store.hpp has the algorithm), each launched on the
// backend's stream. Launchers check the launch and throw CudaError; none synchronises.
// `list_bound` is a host-side upper bound of a device-side list length (the node count).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/update/batch_view.hpp"

namespace simlod::detail::cuda {

/// Expand, counting: points of the pass (batch + spill; after round 1 only those whose leaf
/// split) walk to their leaf, add themselves to d_new[leaf] and record (leaf, slot); the first
/// point of a leaf lists it in d_touched.
void launch_count(const BatchView& v, cudaStream_t stream);

/// After round 1 (into Control::plan) and after the last round (`last`: into Control::last):
/// reduces the listed leaves (kNil entries skipped) for the capacity check. The sums start
/// from zero (reset_batch); a second plan into `last` needs zero_last() first.
void launch_plan(const BatchView& v, std::uint32_t list_bound, bool last, cudaStream_t stream);

/// Expand, splitting: listed leaves over the limit get 8 children and an empty grid, their
/// points go to the spill buffer and their chunks to the pool; their list entries become kNil.
void launch_split(const BatchView& v, std::uint32_t list_bound, std::uint32_t split_bound,
                  cudaStream_t stream);

/// Between expand rounds: ends the expansion if the last round split nothing (the passes of
/// later queued rounds then return at once), else opens the next round.
void launch_next_round(const BatchView& v, cudaStream_t stream);

/// Rollback of the expansion (before sampling): every split recorded this batch of a leaf
/// older than the batch (id < old_nodes) restores its chunk list and becomes a leaf again.
/// The host restores the tree counters afterwards.
void launch_rollback(const BatchView& v, std::uint32_t old_nodes, std::uint32_t split_bound,
                     cudaStream_t stream);

/// Sample: every point sets its cell bit in the inner nodes it passes; the thread that sets a
/// bit appends a voxel to the backlog and lists the node in d_touched.
void launch_sample(const BatchView& v, cudaStream_t stream);

/// Allocate: every listed node gets the chunks its new samples need (pool first, then the
/// arena), linked after its tail.
void launch_allocate(const BatchView& v, std::uint32_t list_bound, cudaStream_t stream);

/// Insert: points and backlog voxels are written to their chunk slots; then the pool and the
/// arena top are updated for the chunks handed out.
void launch_insert(const BatchView& v, cudaStream_t stream);

}  // namespace simlod::detail::cuda
