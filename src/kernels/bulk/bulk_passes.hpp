// The CUDA bulk builder's passes as the host driver (kernels/bulk/build.cu) launches them, each
// on `stream`; the kernels live in split_passes.cu, layout_pass.cu, voxel_passes.cu,
// octant_passes.cu and filter_passes.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/bulk/bulk_view.hpp"

namespace simlod::detail::cuda::bulk {

// Split (split_passes.cu).
/// Counts every point whose walk ends in a block from `first_block` on.
void launch_count(const BulkView& v, std::uint32_t first_block, cudaStream_t stream);
/// Blocks [first, last): counts into d_counter[0] the finest cells to refine (`assign` false),
/// or gives each of them block id next + k (k from d_counter[0], zeroed before) and links it.
void launch_refine(const BulkView& v, std::uint32_t first, std::uint32_t last, std::uint32_t next,
                   std::uint32_t root_levels, bool assign, cudaStream_t stream);
/// Sums every block's finest counters up its pyramid (blocks [0, blocks)).
void launch_reduce(const BulkView& v, std::uint32_t blocks, std::uint32_t root_levels,
                   cudaStream_t stream);
/// The breadth-first layout's results, launch_layout()'s `d_out` (kLayoutWords uint32).
inline constexpr std::uint32_t kLayoutLevels = 25;  ///< levels 0 .. 24: the deepest tree's
/// The first level without inner nodes (the tree's depth), or the level that passed a bound.
inline constexpr std::uint32_t kLayoutDepth = 0;
/// 0, or the nodes (at least) of a layout that passes node_bound or inner_bound.
inline constexpr std::uint32_t kLayoutNeed = 1;
/// + l (2 <= l <= depth + 1): the first node id of level l (levels 0 and 1 start at 0 and 1).
inline constexpr std::uint32_t kLayoutLevelBegin = 2;
/// + l (1 <= l <= depth): the first inner rank of level l (level 0's is 0).
inline constexpr std::uint32_t kLayoutInnerBegin = kLayoutLevelBegin + kLayoutLevels + 2;
/// + l (l <= depth): the points of level l's largest inner node (0: none).
inline constexpr std::uint32_t kLayoutMax = kLayoutInnerBegin + kLayoutLevels + 1;
inline constexpr std::uint32_t kLayoutWords = kLayoutMax + kLayoutLevels;
/// Every level of the layout in one launch (layout_pass.cu): counts and leaf counts of the
/// nodes, the inner nodes' links and ranks (d_inner), their children, and `d_out`. Stops
/// before a level whose nodes would pass `node_bound` or whose inner ranks `inner_bound`.
void launch_layout(const BulkView& v, std::uint64_t points, std::uint32_t node_bound,
                   std::uint32_t inner_bound, std::uint32_t* d_out, cudaStream_t stream);
/// Every finest counter that is not refined gets the id of the leaf that holds its cell.
void launch_leaf_links(const BulkView& v, std::uint32_t blocks, std::uint32_t root_levels,
                       cudaStream_t stream);
/// Per node: the chunks a leaf's points need (d_chunks), 0 for inner nodes.
void launch_leaf_chunks(const BulkView& v, std::uint32_t nodes, cudaStream_t stream);
/// After the scan of d_chunks (first chunk of each leaf, from chunk `first`): heads, tails,
/// next links and chunk owners of the leaves.
void launch_give_chunks(const BulkView& v, std::uint32_t nodes, cudaStream_t stream);
/// Every point (and its channel record) into its leaf.
void launch_insert(const BulkView& v, cudaStream_t stream);

// Voxelize (voxel_passes.cu).
/// Samples the leaves' chunks [chunk_begin, chunk_end) of level l + 1 and the voxels
/// d_below[0, below) of level l + 1 into the grids of their parents at level l, appending the
/// voxels they set to d_emit (d_counter[0]) and counting them per parent (d_cursor by rank);
/// with channels, the place of the sample whose record each takes to d_emit_source.
void launch_sample(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                   std::uint32_t inner_begin, std::uint32_t chunk_begin, std::uint32_t chunk_end,
                   std::uint32_t below, cudaStream_t stream);
// Voxelize through shared memory (octant_passes.cu), for grids of 64^3 and 128^3 cells.
/// Whether the two passes below apply (they then take the place of launch_sample and of
/// launch_filter's FilterStage::Mark).
bool octant_sampling(const BulkView& v);
/// launch_sample's work: each block sets its samples' cells in a shared copy of their child's
/// octant of the parent's grid, merges it into the grid, and emits the cells it set first.
void launch_octant_sample(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                          std::uint32_t inner_begin, std::uint32_t chunk_begin,
                          std::uint32_t chunk_end, std::uint32_t below, cudaStream_t stream);
/// FilterStage::Mark's work in the same way (cells set, nothing emitted).
void launch_octant_mark(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                        std::uint32_t inner_begin, std::uint32_t chunk_begin,
                        std::uint32_t chunk_end, std::uint32_t below, cudaStream_t stream);
/// Chunks the voxels of the inner nodes of a level need (ranks [inner_begin, + n)) into
/// d_chunks[0, n).
void launch_voxel_chunks(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                         cudaStream_t stream);
/// After the scan: their records (count, chunks from `first_chunk` on); d_counter[1] = the
/// chunks taken.
void launch_give_voxel_chunks(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                              std::uint32_t first_chunk, cudaStream_t stream);
/// After the chunks are backed with memory: their next links.
void launch_link_voxel_chunks(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                              cudaStream_t stream);
/// Writes the emitted voxels d_emit[0, n) into their nodes' chunks (with channels, each beside
/// the record at its d_emit_source place).
void launch_write_voxels(const BulkView& v, std::uint32_t n, cudaStream_t stream);

// Block-sparse occupancy (grid_passes.cu): the dense grids of ranks [first, first + n) become
// bricks and slot tables (detail/occupancy_codec.hpp). Item i = (rank first + i / bricks,
// brick i % bricks) of n * bricks items.
/// flags[i] = 1 when brick i has a set cell, else 0.
void launch_brick_flags(const TreeView& t, std::uint32_t first, std::uint32_t n,
                        std::uint32_t* flags, cudaStream_t stream);
/// Copies every flagged brick i to brick number base + numbers[i] (numbers: the flags
/// exclusively scanned) of the pages from chunk `first_chunk` on; slots[i] = its unit, or
/// kEmptySlot.
void launch_brick_copy(const TreeView& t, std::uint32_t first, std::uint32_t n,
                       const std::uint32_t* flags, const std::uint32_t* numbers, std::uint32_t base,
                       std::uint32_t first_chunk, std::uint32_t* slots, cudaStream_t stream);
/// Once no dense grid is read any more: the slot tables of grids [0, n) from slots (n * bricks,
/// grid by grid) into place (TreeView::grid_table).
void launch_brick_tables(const TreeView& t, std::uint32_t n, const std::uint32_t* slots,
                         cudaStream_t stream);

// Filtered voxelize (filter_passes.cu; Sampling::Random, Average and Weighted), over the same
// samples as launch_sample: all levels' grids are d_level_words[0, words), inner ranks
// descending; a level's voxels are numbered from v.voxel_base.
/// What a filter pass does with each sample: sets its cell's bit (Mark); folds it into d_keys
/// or d_sums (Fold); Random with channels, after the fold, raises d_digests (Digest) and then
/// d_sources (Source) for the samples that tie with the voxel's key (filter_accumulate.cuh).
enum class FilterStage { Mark, Fold, Digest, Source };
void launch_filter(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                   std::uint32_t inner_begin, std::uint32_t chunk_begin, std::uint32_t chunk_end,
                   std::uint32_t below, FilterStage stage, cudaStream_t stream);
/// The mark of the inner children: every set cell of the grids of inner ranks [first, + n) (the
/// level below's, children from node id child_begin on) sets its parent cell in the grid of its
/// parent (inner ranks from inner_begin on).
void launch_mark_parents(const BulkView& v, std::uint32_t first, std::uint32_t n,
                         std::uint32_t child_begin, std::uint32_t inner_begin,
                         std::uint64_t words_per_grid, cudaStream_t stream);
/// counts[i] = set cells of words [8 i, 8 i + 8), counts[(words + 7) / 8] = 0: to be scanned
/// into d_groups.
void launch_groups(const BulkView& v, std::uint64_t words, std::uint32_t* counts,
                   cudaStream_t stream);
/// d_cursor of inner ranks [inner_begin, + n): their voxels.
void launch_filter_counts(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                          std::uint64_t words_per_grid, cudaStream_t stream);
/// Every set cell's voxel into its node's chunks (cell order) and its record d_emit[index];
/// Random with channels: the channel record of d_sources[index] beside it. The level's grids
/// start at word `level_off` of all levels'.
void launch_filter_emit(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                        std::uint64_t words_per_grid, std::uint64_t level_off, cudaStream_t stream);

}  // namespace simlod::detail::cuda::bulk
