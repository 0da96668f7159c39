// The CPU incremental builder: SimLOD's update (core/octree_store.hpp) as a free function over
// the CPU tree store, on host threads. Its per-batch working memory lives apart from the store,
// in UpdateScratch, so that the store holds the tree and nothing else.
//
// A batch is applied as a transaction: expand and sample change the tree only in ways that a
// rollback can undo exactly (new nodes and grids are appended, split leaves keep their chunk
// lists until commit, every grid bit set has a voxel record). The exact memory need is known
// after sampling; only then does the commit take chunks and write samples, and it cannot fail.
// So a batch that does not fit (or runs out of host memory) leaves the store as it was.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/cpu/tree/store.hpp"
#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {

struct Batch;  // core/cpu/update/batch.hpp

/// Working memory of the builder, reused by every batch (vectors keep their capacity, so
/// steady streaming of equal batches allocates nothing), and its share of the thread pool.
struct UpdateScratch {
  explicit UpdateScratch(unsigned threads);
  ~UpdateScratch();
  PoolView pool;                   ///< the library pool, limited to config.cpu_threads
  std::vector<NodeScratch> nodes;  ///< per node of the store; zero between batches
  std::unique_ptr<Batch> batch;
};

/// Sampling::Random, Average: gives a store the bulk builder wrote its voxel index (every
/// voxel's accumulator, from all stored points), which the incremental builder keeps up to
/// date; nothing when the store has one. Throws CapacityError (memory reserve or host memory),
/// leaving the store without an index and otherwise unchanged (filter.cpp).
void index_tree(TreeStore& store, PoolView& pool);

/// Sampling::Weighted, whose colours do not decompose per batch: after batches went in
/// (store.stale_colours), computes every voxel colour again, bottom-up from the stored points,
/// as the bulk builder does, and writes the voxels of each inner node in cell order; nothing
/// otherwise (finalize.cpp). Throws CapacityError when host memory runs out (the colours then
/// stay stale; the tree is otherwise unchanged).
bool finalize_colours(TreeStore& store, PoolView& pool, BuildStats& stats);

/// Inserts one validated, non-empty batch completely, or throws CapacityError (memory reserve
/// or host memory) having changed nothing. Sets stats.split_rounds.
/// `records`: the points' channel records (store.chunks.record_bytes() each), empty without
/// channels.
void insert_batch(TreeStore& store, UpdateScratch& scratch, std::span<const Point> batch,
                  std::span<const std::byte> records, UpdateStats& stats);

}  // namespace simlod::detail::cpu
