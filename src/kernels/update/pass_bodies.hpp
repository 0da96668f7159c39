// What one thread of each pass does, as SIMLOD_HD functions. The kernels (kernels/*_pass.cu)
// add the parallel skeleton (grid-stride loops, warp-aggregated atomics, a block per split);
// the tests' sequential host model calls the same bodies in plain loops.
#pragma once

#include <cstdint>

#include "kernels/update/batch_view.hpp"

namespace simlod::detail::cuda {

/// False once an expand round has split nothing: the rounds queued after it do nothing.
SIMLOD_HD bool expanding(const BatchView& v) { return v.d_control->expand_done == 0; }

/// Between expand rounds (one thread): ends the expansion when the last round split nothing or
/// ran out of a grant (Control::need: the host rolls back), else opens the next round; split
/// entries accumulate over the rounds so that a rollback finds those of round 1.
SIMLOD_HD void next_round(const BatchView& v) {
  Control& c = *v.d_control;
  if (c.expand_done != 0) return;
  if (c.round_splits == 0 || c.need != 0) {
    c.expand_done = 1;
    return;
  }
  c.split_base += c.round_splits;
  c.round_splits = 0;
  c.extra_rounds += 1;
}

/// Whether point i counts in this round, and the leaf it reaches. Round 1 walks every point;
/// later rounds only points whose leaf split in the round before (and new spill points): the
/// other leaves keep their counts, as no split can change them.
SIMLOD_HD bool count_walk(const BatchView& v, std::uint32_t i, std::uint32_t& leaf) {
  if (i < v.walk_all_from && v.link(v.slot_of(i)->x).first_child == kNil) return false;
  leaf = v.find_leaf(v.point_q(i));
  return true;
}

/// Split decision for entry i of the list of reached leaves: over the limit and above
/// max_depth, the leaf takes 8 node ids, a grid, a spill range and a pool range, becomes inner
/// at once (children: empty leaves, counts zeroed) and is recorded in d_splits with its old
/// chunk list for split_execute (and for a rollback). Its list entry becomes kNil (it receives
/// no points now; its count restarts at 0 for voxels, and sampling lists it again when it gets
/// some). A split beyond the granted nodes, grids or entries changes nothing but its entry
/// (kFailedSplit) and sets Control::need: the host rolls the batch back and grants more.
SIMLOD_HD void split_decide(const BatchView& v, std::uint32_t i) {
  const std::uint32_t leaf = v.d_touched[i];
  if (leaf == kNil) return;
  const DeviceNode node = v.d_nodes[leaf];
  const std::uint64_t total = std::uint64_t{node.count} + v.d_new[leaf];
  if (total <= v.params.max_points_per_leaf || node.level >= v.params.max_depth) return;
  Control& c = *v.d_control;
  const std::uint32_t entry = c.split_base + append_slot(&c.round_splits);
  const std::uint32_t first = atomic_add(&c.node_count, 8u);
  const std::uint32_t grid = atomic_add(&c.grid_count, 1u);
  const std::uint32_t spill_at = atomic_add(&c.spill_count, node.count);
  const std::uint32_t pool_at = atomic_add(&c.pool_size, node.chunks);
  if (entry >= v.split_limit) return (void)atomic_or(&c.need, kNeedGrids);
  const bool granted = first + std::uint64_t{8} <= v.node_limit && grid < v.grid_limit;
  const bool spill_ok = spill_at + std::uint64_t{node.count} <= v.spill_limit;
  if (!granted || !spill_ok) {
    v.d_splits[entry] = SplitEntry{kFailedSplit, kNil, 0, 0, kNil, 0, 0, kNil};
    if (!granted) return (void)atomic_or(&c.need, kNeedGrids);
    return v.flag(kOverflowSpill);
  }

  v.d_splits[entry] =
      SplitEntry{leaf, grid, spill_at, pool_at, node.head, node.count, node.chunks, node.tail};
  for (std::uint32_t k = 0; k < 8; ++k) {
    v.d_nodes[first + k] = DeviceNode{2 * node.x + (k & 1u),
                                      2 * node.y + ((k >> 1) & 1u),
                                      2 * node.z + (k >> 2),
                                      node.level + 1,
                                      0,
                                      0,
                                      kNil,
                                      kNil};
    v.d_links[first + k] = NodeLink{kNil, kNil};
    v.d_new[first + k] = 0;
  }
  v.d_links[leaf] = NodeLink{first, grid};
  v.d_new[leaf] = 0;
  v.d_touched[i] = kNil;
  v.d_nodes[leaf] = DeviceNode{node.x, node.y, node.z, node.level, 0, 0, kNil, kNil};
  atomic_max(&c.depth, node.level + 1);
  atomic_add(&c.point_chunks, 0ull - std::uint64_t{node.chunks});  // they go to the pool
}

/// Share `part` of `parts` (a block's thread) of executing a split: empty the grid's slot
/// table, copy the old list's points to the spill buffer, push its chunks to the pool. All
/// parts walk the list (the next id is a broadcast load); points are copied part-strided,
/// Quantized16 ones as their stored q and colour (BatchView::point_q()).
SIMLOD_HD void split_execute(const BatchView& v, const SplitEntry& e, std::uint32_t part,
                             std::uint32_t parts) {
  if (e.node == kFailedSplit) return;
  uint4* table = reinterpret_cast<uint4*>(v.grid_table(e.grid));
  const std::uint64_t words = v.occupancy.table_bytes / sizeof(uint4);
  const uint4 empty = make_uint4(kEmptySlot, kEmptySlot, kEmptySlot, kEmptySlot);
  for (std::uint64_t w = part; w < words; w += parts) table[w] = empty;
  const std::uint32_t cap = v.params.chunk_capacity;
  std::uint32_t chunk = e.head;
  for (std::uint32_t k = 0; k < e.chunks; ++k) {
    // The list is a chain of dependent loads: fetch the next id before copying this chunk,
    // so that its latency overlaps the copy.
    const std::uint32_t next = k + 1 < e.chunks ? *v.chunk_next(chunk) : kNil;
    const std::uint32_t done = k * cap;
    const std::uint32_t n = min_u32(cap, e.count - done);
    uint4* to = reinterpret_cast<uint4*>(v.d_spill + e.spill_at + done);
    if (v.leaf_layout.quantized) {
      const DeviceNode leaf = v.d_nodes[e.node];  // level and position kept by split_decide
      for (std::uint32_t j = part; j < n; j += parts) {
        const LeafSample s = v.leaf_point(chunk, j, leaf);
        to[j] = make_uint4(s.q.x, s.q.y, s.q.z, s.point.rgba);
      }
    } else {
      const uint4* from = reinterpret_cast<const uint4*>(v.chunk_data(chunk));
      for (std::uint32_t j = part; j < n; j += parts) to[j] = from[j];
    }
    if (v.record_bytes != 0) {  // the channel records, word by word
      const auto* rf = reinterpret_cast<const std::uint32_t*>(v.chunk_records(chunk));
      auto* rt = reinterpret_cast<std::uint32_t*>(
          v.d_spill_records + (std::uint64_t{e.spill_at} + done) * v.record_bytes);
      const std::uint32_t words = n * (v.record_bytes / 4);
      for (std::uint32_t j = part; j < words; j += parts) rt[j] = rf[j];
    }
    if (part == 0) v.d_pool[e.pool_at + k] = chunk;
    chunk = next;
  }
}

/// Rollback of one recorded split of this batch (before sampling): a leaf that existed before
/// the batch (id < `old_nodes`) gets its chunk list back and loses its children; splits of
/// nodes the batch created need nothing (those nodes are dropped with the node count). The
/// chunks are untouched by the split (they were only copied and their ids pushed to the pool).
SIMLOD_HD void restore_split(const BatchView& v, const SplitEntry& e, std::uint32_t old_nodes) {
  if (e.node == kFailedSplit || e.node >= old_nodes) return;
  DeviceNode n = v.d_nodes[e.node];
  n.count = e.count;
  n.chunks = e.chunks;
  n.head = e.head;
  n.tail = e.tail;
  v.d_nodes[e.node] = n;
  v.d_links[e.node] = NodeLink{kNil, kNil};
}

/// Split entries recorded by this batch's rounds so far (read after the expansion).
SIMLOD_HD std::uint32_t recorded_splits(const Control& c, std::uint32_t split_limit) {
  return min_u32(c.split_base + c.round_splits, split_limit);
}

/// Backlog entry `at` of a voxel whose colour came from point `source`; false past the limit.
SIMLOD_HD bool put_backlog(const BatchView& v, std::uint32_t at, const VoxelRecord& r,
                           std::uint32_t source) {
  if (at >= v.backlog_limit) return false;
  v.d_backlog[at] = r;
  if (v.d_backlog_sources != nullptr) v.d_backlog_sources[at] = source;
  return true;
}

/// Where sample_point puts voxel records (of point `source`): straight into the backlog.
struct BacklogSink {
  SIMLOD_HD void put(const BatchView& v, const VoxelRecord& r, std::uint32_t source) const {
    if (!put_backlog(v, append_slot(&v.d_control->backlog_count), r, source)) {
      v.flag(kOverflowBacklog);
    }
  }
};

/// Claims the brick of a slot that read empty: the thread whose compare-and-swap takes the
/// slot claims the next brick number (its page is the last page, or a page of chunks the batch
/// takes from chunk_top on, close_bricks()), zeroes the brick and publishes its unit. Returns
/// that unit, the slot's unit if it had one, kClaimingSlot while another thread claims it,
/// or kNil past the granted chunks (an internal error, flagged). Never waits.
SIMLOD_HD std::uint32_t try_claim_brick(const BatchView& v, std::uint32_t* slot) {
  const std::uint32_t s = atomic_cas(slot, kEmptySlot, kClaimingSlot);
  if (s != kEmptySlot) return s;
  const Control& c = *v.d_control;
  const std::uint32_t n = c.bricks + atomic_add(&v.d_control->new_bricks, 1u);
  const std::uint32_t per = v.occupancy.bricks_per_page;
  const std::uint32_t chunk = v.page_chunk(n / per, c.bricks, c.brick_page, c.chunk_top);
  if (chunk >= v.chunk_limit) {
    v.flag(kOverflowChunks);
    publish(slot, kEmptySlot);
    return kNil;
  }
  const std::uint32_t unit = v.brick_unit(chunk, n % per);
  uint4* brick = reinterpret_cast<uint4*>(v.brick_words(unit));
  for (std::uint32_t k = 0; k < kBrickBytes / 16; ++k) brick[k] = make_uint4(0, 0, 0, 0);
  publish(slot, unit);
  return unit;
}

/// After the sample pass (one thread): the pages the batch's bricks opened become chunks
/// chunk_top, chunk_top + 1, ... (before the allocate pass hands out chunks), and the bricks
/// count.
SIMLOD_HD void close_bricks(const BatchView& v) {
  Control& c = *v.d_control;
  const std::uint32_t before = c.bricks, after = c.bricks + c.new_bricks;
  const auto pages_before = static_cast<std::uint32_t>(brick_pages(before, v.occupancy));
  const auto pages_after = static_cast<std::uint32_t>(brick_pages(after, v.occupancy));
  if (pages_after > pages_before) {
    c.brick_page = c.chunk_top + (pages_after - pages_before - 1);
    c.chunk_top += pages_after - pages_before;
  }
  c.bricks = after;
}

/// The unit of a brick whose slot read `unit` (possibly a stale kEmptySlot or kClaimingSlot:
/// an SM's L1 keeps what it read before another SM claimed the brick, so it is read again
/// from L2 first). On the device, the lanes of a warp that need the same slot elect one lane,
/// which claims or waits for it; every lane's claim completes before any lane waits, so a
/// warp never spins while it holds a claim that another warp waits for.
SIMLOD_HD std::uint32_t brick_unit_of(const BatchView& v, std::uint32_t* slot, std::uint32_t unit) {
  if (unit >= kClaimingSlot) unit = load_volatile(slot);
#if defined(__CUDA_ARCH__)
  const unsigned active = __activemask();
  const unsigned need = __ballot_sync(active, unit >= kClaimingSlot);
  if (unit < kClaimingSlot) return unit;
  const unsigned peers = __match_any_sync(need, reinterpret_cast<unsigned long long>(slot));
  const int leader = __ffs(peers) - 1;
  const bool lead = static_cast<int>(threadIdx.x & 31u) == leader;
  if (lead) unit = try_claim_brick(v, slot);
  __syncwarp(need);
  if (lead) {
    while (unit == kClaimingSlot) unit = load_volatile(slot);
  }
  return __shfl_sync(peers, unit, leader);
#else
  if (unit >= kClaimingSlot) unit = try_claim_brick(v, slot);
  return unit;  // sequential: no slot is left half claimed
#endif
}

/// Sample one point: in every inner node on its walk, make sure its cell bit is set. A plain
/// load first: near the root nearly every cell is taken, and a cached load is far cheaper than
/// a contended atomicOr (a stale 0 only costs the atomic; bits never go back to 0). The
/// thread that sets the bit (set_bit_once: one atomicOr per word and converged group) emits
/// the voxel: the node's next voxel slot (the first lists the node), and a record for the
/// backlog, through `sink` (put(view, record)). The bit lies in the cell's brick
/// (detail/occupancy_codec.hpp), found through the node's slot table.
template <class Sink>
SIMLOD_HD void sample_point(const BatchView& v, std::uint32_t i, const Sink& sink) {
  const Point p = v.point(i);
  const QuantPoint q = v.leaf_layout.quantized ? v.stored_q(i) : quantize(p, v.quant_scale);
  const std::uint32_t g = v.params.grid_bits;
  v.for_each_inner(q, [&](std::uint32_t node, std::uint32_t level, const NodeLink& link) {
    const std::uint32_t cell = cell_index(q, level, g);
    std::uint32_t* slot = v.grid_table(link.grid) + brick_of(cell, v.occupancy);
    const std::uint32_t unit = brick_unit_of(v, slot, *slot);
    if (unit == kNil) return;
    const std::uint32_t b = brick_bit(cell, v.occupancy);
    std::uint32_t* word = v.brick_words(unit) + (b >> 5);
    const std::uint32_t bit = 1u << (b & 31u);
    // A cached load is safe: L1 keeps 32-byte sectors, a brick is two of its own, and no
    // thread reads a brick before its slot is published (after the zeroing).
    if ((*word & bit) == 0 && set_bit_once(word, bit)) {
      const std::uint32_t slot_at = node_slot(v.d_new, node);
      if (slot_at == 0) v.list_node(append_slot(&v.d_control->touched), node);
      sink.put(v, VoxelRecord{node, slot_at, cell, p.rgba}, i);
    }
  });
}

/// New chunks a listed node needs for its new samples.
SIMLOD_HD std::uint32_t chunks_needed(const BatchView& v, std::uint32_t id) {
  const std::uint32_t count = v.d_nodes[id].count;
  const std::uint32_t cap = v.capacity_of(v.link(id).first_child == kNil);
  return static_cast<std::uint32_t>(chunks_for(std::uint64_t{count} + v.d_new[id], cap) -
                                    chunks_for(count, cap));
}

/// Links the node's `need` new chunks (ordinals first .. first+need-1) after its tail and
/// counts its new samples; remembers the old tail and the first ordinal for insert_sample.
SIMLOD_HD void allocate_node(const BatchView& v, std::uint32_t id, std::uint32_t first,
                             std::uint32_t need, std::uint32_t pool_size, std::uint32_t chunk_top) {
  DeviceNode node = v.d_nodes[id];
  v.d_base[id] = first;
  v.d_old_tail[id] = node.tail;
  std::uint32_t prev = node.tail;
  for (std::uint32_t k = 0; k < need; ++k) {
    const std::uint32_t chunk = v.chunk_of_ordinal(first + k, pool_size, chunk_top);
    if (chunk >= v.chunk_limit) return v.flag(kOverflowChunks);  // pooled ids lie below
    *v.chunk_next(chunk) = kNil;
    if (prev == kNil) {
      node.head = chunk;
    } else {
      *v.chunk_next(prev) = chunk;
    }
    prev = chunk;
  }
  node.tail = prev;
  node.count += v.d_new[id];
  node.chunks += need;
  v.d_nodes[id] = node;
}

/// Writes item i of the insert pass: points (batch + spill, slot from the last counting
/// round), then backlog voxels (slot from sampling). Sample j of a node that held c samples
/// goes to list position (c + j) / cap: the old tail while that is c / cap and the tail had
/// room, else the node's new chunk of that index. No walks, no atomics. Returns a voxel's
/// colour word (detail/voxel_codec.hpp); nullptr for a point or on an overflow.
SIMLOD_HD std::uint32_t* insert_sample(const BatchView& v, std::uint32_t i, std::uint32_t pool_size,
                                       std::uint32_t chunk_top) {
  const std::uint32_t points = v.points();
  const bool point = i < points;
  std::uint32_t id, slot;
  std::uint32_t source = i;  ///< the point whose channel record the sample takes
  VoxelRecord r{};
  if (point) {
    const uint2 s = *v.slot_of(i);
    id = s.x;
    slot = s.y;
  } else {
    if (v.record_bytes != 0) source = v.d_backlog_sources[i - points];
    r = v.d_backlog[i - points];
    id = r.node;
    slot = r.slot;
  }
  const std::uint32_t cap = v.capacity_of(point);
  const std::uint32_t before = v.d_nodes[id].count - v.d_new[id];  // allocate_node added them
  const std::uint32_t at = before + slot;
  const std::uint32_t first_pos = before / cap;
  const std::uint32_t pos = at / cap;
  std::uint32_t chunk;
  if (before % cap != 0) {  // the old tail has room: it holds list position first_pos
    chunk = pos == first_pos
                ? v.d_old_tail[id]
                : v.chunk_of_ordinal(v.d_base[id] + (pos - first_pos - 1), pool_size, chunk_top);
  } else {
    chunk = v.chunk_of_ordinal(v.d_base[id] + (pos - first_pos), pool_size, chunk_top);
  }
  if (chunk >= v.chunk_limit) {
    v.flag(kOverflowChunks);
    return nullptr;
  }
  if (point) {
    if (v.leaf_layout.quantized) {
      const QuantPoint q = v.stored_q(i);
      v.put_point(chunk, at % cap, v.point(i), q, v.d_nodes[id].level);
    } else {
      v.put_point(chunk, at % cap, v.point(i), QuantPoint{}, 0);
    }
    if (v.record_bytes != 0) {
      copy_record(v.chunk_records(chunk) + std::uint64_t{at % cap} * v.record_bytes,
                  v.record(source), v.record_bytes);
    }
    return nullptr;
  }
  std::byte* base = v.chunk_bytes_of(chunk);
  put_voxel(base, v.voxels, at % cap, r.cell, r.rgba);
  if (v.record_bytes != 0) {
    copy_record(v.voxel_records(chunk) + std::uint64_t{at % cap} * v.record_bytes, v.record(source),
                v.record_bytes);
  }
  return voxel_word(base, at % cap);
}

/// After the insert pass: the chunks handed out leave the pool (top first), the rest came
/// from the arena; the emitted voxels are stored.
SIMLOD_HD void retire_chunks(const BatchView& v) {
  Control& c = *v.d_control;
  const std::uint32_t handed = c.ordinals;
  if (handed <= c.pool_size) {
    c.pool_size -= handed;
  } else {
    c.chunk_top += handed - c.pool_size;
    c.pool_size = 0;
  }
  c.voxels += min_u32(c.backlog_count, v.backlog_limit);
}

}  // namespace simlod::detail::cuda
