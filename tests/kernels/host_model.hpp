// A sequential host model of the CUDA backend: the same arena and scratch layouts, the same
// per-thread pass
// bodies (kernels/update/pass_bodies.hpp) and the same batch driver
// (kernels/update/batch_driver.hpp), with plain loops where the device runs kernels. It checks the
// backend's bookkeeping (ids, limits, chunk lists, pool ordinals, spill and backlog addressing, the
// capacity check) without a GPU; what it cannot check is the parallel skeleton of the kernels (warp
// aggregation, grid-stride loops, a block per split), which the GPU tests cover.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>

#include "kernels/tree/arena_layout.hpp"
#include "kernels/tree/host_tree.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/batch_driver.hpp"
#include "kernels/update/pass_bodies.hpp"
#include "kernels/update/scratch_layout.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {

class HostModel {
 public:
  HostModel(const OctreeConfig& config, const OctreeGeometry& geometry, std::uint64_t bytes)
      : config_(config),
        geometry_(geometry),
        layout_(plan_arena(bytes, config, geometry)),
        arena_(new uint4[layout_.total_bytes / sizeof(uint4)]),
        scratch_layout_(plan_scratch(layout_)),
        scratch_(new uint4[(scratch_layout_.total_bytes + 15) / sizeof(uint4)]) {
    // Device memory starts with whatever was there: fill with garbage, not zeros.
    std::memset(arena_bytes(), 0xCD, layout_.total_bytes / sizeof(uint4) * sizeof(uint4));
    std::memset(scratch_.get(), 0xCD, scratch_layout_.total_bytes);
    base_ = make_batch_view(make_tree_view(arena_bytes(), layout_, config, geometry),
                            reinterpret_cast<std::byte*>(scratch_.get()), scratch_layout_);
    low_ = layout_.dynamic_begin;  // the fixed tables are backed from the start
    high_ = layout_.total_bytes;
    const BatchView& v = base_;
    *v.d_control = Control{};
    v.d_control->node_count = 1;
    v.d_nodes[0] = kRootNode;
    v.d_links[0] = kRootLink;
  }

  /// Inserts a batch; returns the expand rounds. Throws CapacityError like the backend.
  std::uint32_t insert_batch(std::span<const Point> batch,
                             std::span<const std::byte> records = {}) {
    std::memcpy(base_.d_batch, batch.data(), batch.size() * sizeof(Point));
    if (!records.empty()) std::memcpy(base_.d_batch_records, records.data(), records.size());
    Exec exec{arena_bytes(), base_, this};
    const Control old = control();
    const std::uint32_t rounds =
        run_batch(exec, base_, layout_, old, static_cast<std::uint32_t>(batch.size()), headroom_);
    points_ += batch.size();
    return rounds;
  }

  /// Device memory the model pretends to have for the arena (default: all of it): the
  /// executor's map() refuses to back more, like a device that is full.
  void set_device_bytes(std::uint64_t bytes) { device_bytes_ = bytes; }
  /// Grids granted to expand rounds after round 1 (batch_driver.hpp), for tests of the regrant.
  void set_headroom(std::uint64_t grids) { headroom_ = grids; }
  [[nodiscard]] std::uint64_t headroom() const { return headroom_; }
  /// Arena bytes the model has backed so far (the fixed tables, the chunk end and the grid end).
  [[nodiscard]] std::uint64_t backed() const { return low_ + (layout_.total_bytes - high_); }
  /// Rollbacks so far.
  [[nodiscard]] std::uint32_t rollbacks() const { return rollbacks_; }
  [[nodiscard]] const ArenaLayout& layout() const { return layout_; }

  [[nodiscard]] const Control& control() const { return *base_.d_control; }
  [[nodiscard]] OctreeStats stats() const { return tree_stats(control(), layout_, points_); }

  [[nodiscard]] NodeSnapshot snapshot() const {
    const Control& c = control();
    HostTreeCopy copy;
    copy.nodes.assign(base_.d_nodes, base_.d_nodes + c.node_count);
    copy.links.assign(base_.d_links, base_.d_links + c.node_count);
    copy.chunks.assign(base_.d_chunks,
                       base_.d_chunks + std::uint64_t{c.chunk_top} * layout_.chunk_bytes);
    return build_snapshot(copy, geometry_, layout_);
  }

 private:
  // The executor of batch_driver.hpp: each pass as a loop over its threads, in order.
  struct Exec {
    std::byte* base;
    const BatchView& v0;
    HostModel* model;

    std::byte* arena() const { return base; }
    Control& c() const { return *v0.d_control; }
    void reset_batch(std::uint32_t node_count) {
      std::memset(reinterpret_cast<std::byte*>(&c()) + kControlBatchBegin, 0,
                  sizeof(Control) - kControlBatchBegin);
      std::memset(v0.d_new, 0, std::size_t{node_count} * 4);
    }
    void next_round(const BatchView& v) { cuda::next_round(v); }
    void count(const BatchView& v) {
      if (!expanding(v)) return;
      for (std::uint32_t i = 0; i < v.points(); ++i) {
        std::uint32_t leaf = kNil;
        if (!count_walk(v, i, leaf)) continue;
        const std::uint32_t slot = v.d_new[leaf]++;
        *v.slot_of(i) = uint2{leaf, slot};
        if (slot == 0) v.list_node(c().touched++, leaf);
      }
    }
    void plan(const BatchView& v, std::uint32_t, bool last) {
      PlanSums& out = last ? c().last : c().plan;
      for (std::uint32_t i = 0; i < c().touched; ++i) {
        if (v.d_touched[i] == kNil) continue;
        const DeviceNode& n = v.d_nodes[v.d_touched[i]];
        plan_leaf(out, v.params, n.level, n.count, n.chunks, v.d_new[v.d_touched[i]]);
      }
    }
    void zero_last() { c().last = PlanSums{}; }
    void rollback(const BatchView& v, std::uint32_t old_nodes, std::uint32_t, const Control& old) {
      const std::uint32_t end = recorded_splits(c(), v.split_limit);
      for (std::uint32_t s = 0; s < end; ++s) restore_split(v, v.d_splits[s], old_nodes);
      c() = old;
      model->rollbacks_ += 1;
    }
    void map(std::uint64_t low_end, std::uint64_t high_begin) {
      const std::uint64_t total = model->layout_.total_bytes;
      const std::uint64_t low = std::max(model->low_, low_end);
      const std::uint64_t high = std::min(model->high_, high_begin);
      if (low + (total - std::max(high, low)) > model->device_bytes_) {
        throw CapacityError("the model device is full");
      }
      model->low_ = low;
      model->high_ = std::max(high, low);
    }
    void split(const BatchView& v, std::uint32_t, std::uint32_t) {
      if (!expanding(v)) return;
      const std::uint32_t listed = c().touched;
      for (std::uint32_t i = 0; i < listed; ++i) split_decide(v, i);
      const std::uint32_t end = recorded_splits(c(), v.split_limit);
      for (std::uint32_t s = c().split_base; s < end; ++s) split_execute(v, v.d_splits[s], 0, 1);
    }
    void sample(const BatchView& v) {
      for (std::uint32_t i = 0; i < v.points(); ++i) sample_point(v, i, BacklogSink{});
      close_bricks(v);
    }
    void allocate(const BatchView& v, std::uint32_t) {
      const std::uint32_t listed = c().touched, pool = c().pool_size, top = c().chunk_top;
      for (std::uint32_t i = 0; i < listed; ++i) {
        const std::uint32_t id = v.d_touched[i];
        if (id == kNil) continue;  // a leaf that split
        const std::uint32_t need = chunks_needed(v, id);
        const std::uint32_t first = c().ordinals;
        c().ordinals += need;
        (v.d_links[id].first_child == kNil ? c().point_chunks : c().voxel_chunks) += need;
        allocate_node(v, id, first, need, pool, top);
      }
    }
    /// The model's trees sample first-come: no voxel index.
    IndexView reserve_index(std::uint64_t, std::uint64_t) { return IndexView{}; }
    IndexView reserve_classes(const BatchView& v, std::uint32_t) { return v.index; }
    void fold(const BatchView&, std::uint32_t) {}
    void insert(const BatchView& v) {
      const std::uint32_t pool = c().pool_size, top = c().chunk_top;
      const std::uint32_t total = v.points() + std::min(c().backlog_count, v.backlog_limit);
      for (std::uint32_t i = 0; i < total; ++i) insert_sample(v, i, pool, top);
      retire_chunks(v);
    }
    Control read_control() const { return c(); }
  };

  std::byte* arena_bytes() const { return reinterpret_cast<std::byte*>(arena_.get()); }

  OctreeConfig config_;
  OctreeGeometry geometry_;
  ArenaLayout layout_;
  std::unique_ptr<uint4[]> arena_;
  ScratchLayout scratch_layout_;
  std::unique_ptr<uint4[]> scratch_;
  BatchView base_{};
  std::uint64_t points_ = 0;
  std::uint64_t headroom_ = kExpandHeadroom;
  std::uint64_t device_bytes_ = ~std::uint64_t{0};
  std::uint64_t low_ = 0, high_ = ~std::uint64_t{0};  ///< backed prefix end, suffix start
  std::uint32_t rollbacks_ = 0;
};

}  // namespace simlod::detail::cuda
