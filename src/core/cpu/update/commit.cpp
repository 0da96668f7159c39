// Phases 3 and 4, allocate and insert. plan_chunks() computes the exact memory the batch needs
// and reserves it (the last step that may fail); commit() then releases the chunks of split
// leaves to the pool, gives every receiving node its chunks (pool first) and writes the
// samples, and cannot fail.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>

#include "core/cpu/tuning.hpp"
#include "core/cpu/update/updater.hpp"

namespace simlod::detail::cpu {
namespace {

/// Free slots in the tail chunk of a list holding `count` samples.
std::uint64_t tail_room(std::uint64_t count, std::uint32_t capacity) {
  const std::uint64_t fill = count % capacity;
  return fill == 0 ? 0 : capacity - fill;
}

}  // namespace

void Updater::plan_chunks(Batch& b) {
  std::uint64_t total = 0;
  for (const auto* list : {&b.leaves, &b.voxel_nodes}) {
    for (const std::uint32_t id : *list) {
      const bool leaf = nodes_[id].leaf();
      const std::uint64_t room = tail_room(nodes_[id].count, chunks_.capacity_of(leaf));
      const std::uint64_t pending = scratch_[id].pending;
      scratch_[id].table = static_cast<std::uint32_t>(total);
      total += pending > room ? chunks_for(pending - room, leaf) : 0;
    }
  }
  const std::uint64_t reusable = chunks_.pooled() + b.released;
  b.fresh = total > reusable ? total - reusable : 0;
  // The voxel index (filtered colours; none: 0 bytes) takes an entry per new voxel.
  std::uint64_t entries = store_.index.size();
  for (const auto& list : b.voxels) entries += list.size();
  const std::uint64_t index_bytes =
      store_.index.bytes_after_reserve(entries) - store_.index.bytes();
  if (limit_ != 0) {
    require(
        b, b.fresh * chunks_.chunk_bytes() + index_bytes,
        fmt::format("{} new chunks of {} bytes{}, plus the nodes and grids of its splits", b.fresh,
                    chunks_.chunk_bytes(),
                    index_bytes == 0 ? std::string()
                                     : fmt::format(" and {} bytes of voxel index", index_bytes)));
  }
  store_.index.reserve(entries);  // keeps its entries if it throws
  b.table.resize(total);
  const std::size_t receivers = b.leaves.size() + b.voxel_nodes.size();
  const std::size_t parts = pool_.size() * (kInsertPartitionsPerWorker + 1);
  b.offsets.reserve(parts * receivers);  // insert_samples() must not allocate
  chunks_.prepare(total, b.released);
}

void Updater::commit(Batch& b) noexcept {
  for (const auto& s : b.splits) {
    chunks_.release_list(s.before.head);
    point_chunks_ -= chunks_for(s.before.count, true);
    points_ -= s.before.count;  // they come back through the spill buffer
  }
  for (const auto* list : {&b.leaves, &b.voxel_nodes}) {
    for (const std::uint32_t id : *list) {
      CpuNode& n = nodes_[id];
      NodeScratch& s = scratch_[id];
      s.base_tail = n.tail;
      const std::uint64_t room = tail_room(n.count, chunks_.capacity_of(n.leaf()));
      const std::uint64_t k = s.pending > room ? chunks_for(s.pending - room, n.leaf()) : 0;
      for (std::uint64_t j = 0; j < k; ++j) {
        const std::uint32_t c = chunks_.take();
        b.table[s.table + j] = c;
        if (n.tail == kNone) {
          n.head = c;
        } else {
          chunks_.link(n.tail, c);
        }
        n.tail = c;
      }
      (n.leaf() ? point_chunks_ : voxel_chunks_) += k;
    }
  }
  insert_samples(b);
  if (store_.index.enabled()) fold_batch(b);
  if (config_.sampling == Sampling::Weighted) store_.stale_colours = true;
  for (const auto* list : {&b.leaves, &b.voxel_nodes}) {
    for (const std::uint32_t id : *list) {
      CpuNode& n = nodes_[id];
      (n.leaf() ? points_ : voxels_) += scratch_[id].pending;
      n.count += scratch_[id].pending;
      scratch_[id] = NodeScratch{};
    }
  }
  depth_ = std::max(depth_, b.depth);
}

void Updater::insert_samples(Batch& b) noexcept {
  // Where sample k (0-based within this batch) of node `id` goes: the tail's free slots, then
  // the node's new chunks in table order. Node counts are still the pre-batch ones here.
  struct Slot {
    std::uint32_t chunk;
    std::uint32_t at;
  };
  const std::size_t record_bytes = b.record_bytes;
  auto slot = [&](std::uint32_t id, std::uint64_t k, std::uint32_t cap) -> Slot {
    const std::uint64_t count = nodes_[id].count;
    const NodeScratch& s = scratch_[id];
    const std::uint64_t room = tail_room(count, cap);
    if (k < room) return {s.base_tail, static_cast<std::uint32_t>(count % cap + k)};
    const std::uint64_t j = k - room;
    return {b.table[s.table + j / cap], static_cast<std::uint32_t>(j % cap)};
  };
  const std::uint32_t point_cap = chunks_.capacity();
  const PointLayout& point_layout = chunks_.point_layout();
  const VoxelLayout& voxel_layout = chunks_.voxel_layout();

  // Receivers get dense indices (in the cursor field). Partitions are contiguous point ranges
  // plus each worker's voxel list; a counting pass gives every partition its own range of
  // each receiver's slots, so writing needs no atomics and points keep their input order.
  std::uint32_t receivers = 0;
  for (const auto* list : {&b.leaves, &b.voxel_nodes}) {
    for (const std::uint32_t id : *list) scratch_[id].cursor = receivers++;
  }
  const std::size_t n = b.size();
  const std::size_t point_parts =
      std::clamp<std::size_t>(n / kCpuPointGrain, 1, pool_.size() * kInsertPartitionsPerWorker);
  const std::size_t parts = point_parts + b.voxels.size();
  b.offsets.assign(parts * receivers, 0);  // capacity reserved by plan_chunks()
  auto for_each_sample = [&](std::size_t part, auto&& fn) {
    std::uint32_t* row = b.offsets.data() + part * receivers;
    if (part < point_parts) {
      const std::size_t lo = n * part / point_parts, hi = n * (part + 1) / point_parts;
      for (std::size_t i = lo; i < hi; ++i) fn(row, b.node_of[i], i);
    } else {
      const auto& records = b.voxels[part - point_parts];
      for (std::size_t i = 0; i < records.size(); ++i) fn(row, records[i].node, i);
    }
  };
  pool_.parallel_for(parts, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t part = lo; part < hi; ++part) {
      for_each_sample(part, [&](std::uint32_t* row, std::uint32_t id, std::size_t) {
        ++row[scratch_[id].cursor];
      });
    }
  });
  for (std::uint32_t r = 0; r < receivers; ++r) {
    std::uint32_t offset = 0;
    for (std::size_t part = 0; part < parts; ++part) {
      offset += std::exchange(b.offsets[part * receivers + r], offset);
    }
  }
  const bool index = store_.index.enabled();
  pool_.parallel_for(parts, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t part = lo; part < hi; ++part) {
      const bool points = part < point_parts;
      for_each_sample(part, [&](std::uint32_t* row, std::uint32_t id, std::size_t i) {
        const std::uint32_t k = row[scratch_[id].cursor]++;
        if (points) {
          const Slot s = slot(id, k, point_cap);
          store_point(chunks_.bytes(s.chunk), point_layout, s.at, b.point(i), b.q[i],
                      nodes_[id].level);
          if (record_bytes != 0) {
            std::memcpy(chunks_.records(s.chunk) + s.at * record_bytes, b.record(i), record_bytes);
          }
          return;
        }
        const VoxelRecord& v = b.voxels[part - point_parts][i];
        const Slot s = slot(id, k, voxel_layout.capacity);
        std::byte* base = chunks_.bytes(s.chunk);
        put_voxel(base, voxel_layout, s.at, v.cell, v.rgba);
        std::byte* record = nullptr;
        if (record_bytes != 0) {
          record = chunks_.voxel_records(s.chunk) + s.at * record_bytes;
          std::memcpy(record, b.record(v.source), record_bytes);
        }
        if (index) store_.index.add(v.node, v.cell, voxel_word(base, s.at), record);
      });
    }
  });
}

}  // namespace simlod::detail::cpu
