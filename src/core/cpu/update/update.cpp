// The CPU builder: its entry point, the per-batch transaction and its undo.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <new>

#include "core/cpu/tuning.hpp"
#include "core/cpu/update/updater.hpp"
#include "core/fault_injection.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {

UpdateScratch::UpdateScratch(unsigned threads)
    : pool(ThreadPool::shared(), threads), batch(std::make_unique<Batch>()) {}
UpdateScratch::~UpdateScratch() = default;

void insert_batch(TreeStore& store, UpdateScratch& scratch, std::span<const Point> batch,
                  std::span<const std::byte> records, UpdateStats& stats) {
  index_tree(store, scratch.pool);  // a tree the bulk builder wrote gets its index first
  Updater(store, scratch).run(batch, records, stats);
}

Updater::Updater(TreeStore& store, UpdateScratch& scratch)
    : store_(store),
      config_(store.config),
      geometry_(store.geometry),
      limit_(store.limit),
      nodes_(store.nodes),
      chunks_(store.chunks),
      grids_(store.grids),
      points_(store.points),
      voxels_(store.voxels),
      point_chunks_(store.point_chunks),
      voxel_chunks_(store.voxel_chunks),
      depth_(store.depth),
      pool_(scratch.pool),
      scratch_(scratch.nodes),
      batch_(*scratch.batch) {
  // The scratch follows the store: a store another builder grew, or a first batch, gets its
  // per-node entries here (zero between batches).
  scratch_.resize(nodes_.size());
}

void Updater::require(const Batch& b, std::uint64_t extra, std::string_view what) const {
  if (limit_ == 0) return;
  const std::uint64_t now = charged();
  if (now + extra <= limit_) return;
  const std::uint64_t free_before = limit_ - std::min(limit_, b.charged_before);
  throw CapacityError(fmt::format(
      "a batch of {} points does not fit into the octree's memory reserve: it needs at least {} "
      "bytes ({}), but only {} of the {} reserved bytes are free; the batch was not inserted",
      b.input.size(), now + extra - b.charged_before, what, free_before, limit_));
}

void Updater::run(std::span<const Point> batch, std::span<const std::byte> records,
                  UpdateStats& stats) {
  Batch& b = batch_;
  b.reset(batch, records, chunks_.record_bytes(), pool_.size());
  b.old_nodes = nodes_.size();
  b.old_grids = grids_.count();
  b.old_bricks = grids_.bricks();
  b.charged_before = charged();
  try {
    b.q.resize(batch.size());
    b.node_of.assign(batch.size(), 0);  // every walk starts at the root
    const float scale = geometry_.quant_scale;
    pool_.parallel_for(batch.size(), kCpuPointGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) b.q[i] = quantize(batch[i], scale);
    });
    fault_point("quantize");
    stats.split_rounds = expand(b);
    fault_point("expand");
    if (chunks_.point_layout().quantized) {
      // A point is rounded to its leaf's step before anything reads its position (its voxel
      // cells, its Random key): from here on it is the point stored (detail/point_codec.hpp).
      pool_.parallel_for(b.size(), kCpuPointGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i)
          b.q[i] = round_to_leaf(b.q[i], nodes_[b.node_of[i]].level);
      });
    }
    sample(b);
    fault_point("sample");
    plan_chunks(b);
    fault_point("plan");
    claim_batch_classes(b);  // after the index's reserve: nothing after this step can fail
  } catch (const std::bad_alloc&) {
    rollback(b);
    b.release();
    throw CapacityError(
        fmt::format("host memory ran out while inserting a batch of {} points; "
                    "the batch was not inserted",
                    batch.size()));
  } catch (...) {
    rollback(b);
    throw;
  }
  commit(b);
  fault_point("commit");
}

void Updater::rollback(Batch& b) noexcept {
  // Clear the bits this batch set in grids that existed before it, and empty the slots of the
  // bricks it claimed there (newer grids go away; so do the batch's bricks and their pages).
  for (const auto& list : b.voxels) {
    for (const VoxelRecord& v : list) {
      const std::uint32_t grid = nodes_[v.node].grid;
      if (grid < b.old_grids) grids_.unset(grid, v.cell, b.old_bricks);
    }
  }
  grids_.drop_bricks(b.old_bricks, chunks_);
  for (auto it = b.splits.rbegin(); it != b.splits.rend(); ++it) nodes_[it->node] = it->before;
  nodes_.resize(b.old_nodes);
  scratch_.resize(b.old_nodes);
  std::fill(scratch_.begin(), scratch_.end(), NodeScratch{});
  grids_.truncate(b.old_grids);
}

}  // namespace simlod::detail::cpu
