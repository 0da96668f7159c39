// Per-batch working state of the CPU backend: the points being inserted (the batch, then the
// spill buffer of split leaves), where each one ends up, and the undo journal.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/cpu/tree/node.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cpu {

/// A grid bit this batch set: the voxel to write, and what rollback() clears.
struct VoxelRecord {
  std::uint32_t node;
  std::uint32_t cell;
  std::uint32_t rgba;
  std::uint32_t source;  ///< the batch sample (Batch::point) whose colour it took
};

struct Batch {
  struct Split {
    std::uint32_t node;
    CpuNode before;  ///< its leaf record, chunk list included (released on commit)
  };

  std::span<const Point> input;
  std::span<const std::byte> input_records;  ///< channel records of `input` (or empty)
  std::size_t record_bytes = 0;              ///< per record; 0 = no channels
  std::vector<Point> spill;                  ///< stored points of leaves split by this batch
  std::vector<std::byte> spill_records;      ///< their channel records
  std::vector<QuantPoint> q;                 ///< input points, then spill points
  std::vector<std::uint32_t> node_of;  ///< per point: the node its walk reached (finally a leaf)
  std::vector<std::uint32_t> leaves;   ///< leaves receiving points, ascending per round
  std::vector<std::uint32_t> voxel_nodes;              ///< inner nodes receiving voxels, ascending
  std::vector<Split> splits;                           ///< in split order
  std::vector<std::vector<VoxelRecord>> voxels;        ///< per worker
  std::vector<std::vector<std::uint32_t>> per_worker;  ///< per worker: nodes reached first
  std::vector<std::uint32_t> table;    ///< new chunks of the receivers, by NodeScratch::table
  std::vector<std::uint32_t> offsets;  ///< insert: per partition and receiver, first sample
  std::uint64_t old_nodes = 0, old_grids = 0, old_bricks = 0, charged_before = 0;
  std::uint64_t released = 0;  ///< chunks of split leaves, pooled on commit
  std::uint64_t fresh = 0;     ///< chunks the plan takes from new memory
  std::uint32_t depth = 0;     ///< deepest level created

  /// Starts a batch; vectors keep their capacity, so that steady streaming of equal batches
  /// allocates (and page-faults) nothing.
  void reset(std::span<const Point> batch, std::span<const std::byte> records,
             std::size_t record_size, unsigned workers) {
    input = batch;
    input_records = records;
    record_bytes = record_size;
    spill_records.clear();
    for (auto* v : {&leaves, &voxel_nodes, &table}) v->clear();
    spill.clear();
    q.clear();
    node_of.clear();
    splits.clear();
    voxels.resize(workers);
    per_worker.resize(workers);
    for (auto& v : voxels) v.clear();
    for (auto& v : per_worker) v.clear();
    released = fresh = 0;
    depth = 0;
  }
  /// Frees the scratch memory (after running out of it).
  void release() noexcept { *this = Batch{}; }

  [[nodiscard]] std::size_t size() const { return q.size(); }
  [[nodiscard]] const Point& point(std::size_t i) const {
    return i < input.size() ? input[i] : spill[i - input.size()];
  }
  /// The channel record of sample i (record_bytes > 0).
  [[nodiscard]] const std::byte* record(std::size_t i) const {
    return i < input.size() ? input_records.data() + i * record_bytes
                            : spill_records.data() + (i - input.size()) * record_bytes;
  }
};

}  // namespace simlod::detail::cpu
