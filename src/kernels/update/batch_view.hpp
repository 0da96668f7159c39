// BatchView: what every pass of the incremental builder receives, by value: the store's view
// (kernels/tree/tree_view.hpp) and, beside it, the builder's scratch (its fixed part in its own
// allocation, kernels/update/scratch_layout.hpp; spill buffer and backlog borrowed from the
// arena's gap for one batch) and the batch's parameters and granted limits. Trivially
// copyable; SIMLOD_HD, so that the host model of the tests runs the same arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/common/device_ops.hpp"
#include "kernels/tree/device_layout.hpp"
#include "kernels/tree/tree_view.hpp"
#include "kernels/update/index_view.hpp"
#include "kernels/update/scratch_layout.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {

struct BatchView : TreeView {
  std::uint32_t* d_new;       ///< per node: points counted (leaf) / voxels emitted (inner)
  std::uint32_t* d_base;      ///< per node: ordinal of its first new chunk
  std::uint32_t* d_old_tail;  ///< per node: tail before this batch's chunks
  std::uint32_t* d_touched;   ///< nodes receiving samples this batch (kNil: split since)
  SplitEntry* d_splits;       ///< splits of the round (Control::round_splits entries)
  Point* d_batch;
  uint2* d_batch_slots;    ///< per batch point: (leaf, slot)
  Point* d_spill;          ///< points of split leaves (borrowed from the arena's gap)
  uint2* d_spill_slots;    ///< per spill point: (leaf, slot)
  VoxelRecord* d_backlog;  ///< voxels waiting for chunks (borrowed from the arena's gap)
  // Attribute channels (record_bytes > 0; else nullptr): the channel records of the batch and
  // spill points, and per backlog voxel the point (Batchview::point index) whose colour it took.
  std::byte* d_batch_records;
  std::byte* d_spill_records;
  std::uint32_t* d_backlog_sources;

  std::uint32_t batch_points;  ///< points in d_batch
  std::uint32_t spill_points;  ///< spill points that walk in this pass
  /// Counting rounds after the first: points below this index walk again only when the
  /// leaf they reached has split since; points from it on (new spill points) always walk.
  std::uint32_t walk_all_from;
  // Limits granted by the capacity check (defence in depth: exceeding one sets an overflow
  // bit instead of writing out of bounds).
  std::uint32_t node_limit, grid_limit, chunk_limit, spill_limit, backlog_limit, split_limit;
  std::uint32_t touched_limit;  ///< entries of d_touched
  /// The store's voxel index (filtered colours; words = 0 without one), as reserved for this
  /// batch (kernels/update/voxel_index.cuh).
  IndexView index;

  SIMLOD_HD std::uint32_t points() const { return batch_points + spill_points; }

  /// Point i of the pass: the batch first, then the spill buffer. 16-byte read-only loads
  /// (both buffers are written by earlier launches only).
  SIMLOD_HD Point point(std::uint32_t i) const {
    const Point* p = i < batch_points ? d_batch + i : d_spill + (i - batch_points);
    const uint4 v = load_readonly(reinterpret_cast<const uint4*>(p));
    return Point{float_from_bits(v.x), float_from_bits(v.y), float_from_bits(v.z), v.w};
  }

  /// The quantised position of point i of the pass: quantize() of a batch point or of a
  /// Float32 spill point; a Quantized16 tree's spill point holds its stored q in its x, y, z
  /// words (split_execute), rounded when it was first stored.
  SIMLOD_HD QuantPoint point_q(std::uint32_t i) const {
    if (leaf_layout.quantized && i >= batch_points) {
      const uint4 s = load_readonly(reinterpret_cast<const uint4*>(d_spill + (i - batch_points)));
      return QuantPoint{s.x, s.y, s.z};
    }
    return quantize(point(i), quant_scale);
  }

  /// The position point i is stored with once the counting rounds are done: point_q(),
  /// rounded to the step of the leaf it reached (Quantized16, detail/point_codec.hpp).
  SIMLOD_HD QuantPoint stored_q(std::uint32_t i) const {
    const QuantPoint q = point_q(i);
    if (!leaf_layout.quantized) return q;
    return round_to_leaf(q, d_nodes[slot_of(i)->x].level);
  }

  /// The channel record of point i of the pass (record_bytes > 0).
  SIMLOD_HD const std::byte* record(std::uint32_t i) const {
    return i < batch_points ? d_batch_records + std::uint64_t{i} * record_bytes
                            : d_spill_records + std::uint64_t{i - batch_points} * record_bytes;
  }

  SIMLOD_HD uint2* slot_of(std::uint32_t i) const {
    return i < batch_points ? d_batch_slots + i : d_spill_slots + (i - batch_points);
  }

  /// Puts a node receiving samples on the list at entry `at` (from Control::touched).
  SIMLOD_HD void list_node(std::uint32_t at, std::uint32_t node) const {
    if (at < touched_limit) {
      d_touched[at] = node;
    } else {
      flag(kOverflowTouched);
    }
  }
};

static_assert(std::is_trivially_copyable_v<BatchView>);

/// The store's view with the fixed scratch laid out by `layout` at `scratch` (per-batch fields
/// left zero).
inline BatchView make_batch_view(const TreeView& tree, std::byte* scratch,
                                 const ScratchLayout& layout) {
  BatchView v{};
  static_cast<TreeView&>(v) = tree;
  v.d_new = reinterpret_cast<std::uint32_t*>(scratch + layout.new_counts);
  v.d_base = reinterpret_cast<std::uint32_t*>(scratch + layout.ordinal_base);
  v.d_old_tail = reinterpret_cast<std::uint32_t*>(scratch + layout.old_tail);
  v.d_touched = reinterpret_cast<std::uint32_t*>(scratch + layout.touched);
  v.touched_limit = layout.max_touched;
  v.d_splits = reinterpret_cast<SplitEntry*>(scratch + layout.splits);
  v.d_batch = reinterpret_cast<Point*>(scratch + layout.batch);
  v.d_batch_slots = reinterpret_cast<uint2*>(scratch + layout.batch_slots);
  v.d_batch_records = tree.record_bytes != 0 ? scratch + layout.batch_records : nullptr;
  return v;
}

}  // namespace simlod::detail::cuda
