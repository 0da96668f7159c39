// The CPU bulk builder's entry point: split, voxelize, then the memory check and the writes.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>

#include "core/cpu/bulk/bulk.hpp"
#include "core/cpu/bulk/bulk_tree.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Throws CapacityError when the tree needs more than the reserve.
void require(const TreeStore& store, std::uint64_t points, std::uint64_t chunks, const char* when) {
  if (store.limit == 0) return;
  // The grids: a slot table per inner node, and the chunks of their bricks once voxelized.
  const std::uint64_t need = store.nodes.size() * kNodeBytes +
                             (store.nodes.size() - 1) / 8 * store.grids.layout().table_bytes +
                             (chunks + store.grids.pages()) * store.chunks.chunk_bytes();
  if (need <= store.limit) return;
  throw CapacityError(fmt::format(
      "the octree of {} points needs at least {} bytes ({} nodes, their occupancy grids and {} "
      "chunks of {} bytes{}), more than memory_bytes = {}; nothing was built",
      points, need, store.nodes.size(), chunks, store.chunks.chunk_bytes(), when, store.limit));
}

/// Gives `samples` samples to node `id` as a list of fresh (consecutive) chunks; returns the
/// first chunk.
std::uint32_t give_chunks(TreeStore& store, std::uint32_t id, std::uint64_t samples) {
  CpuNode& n = store.nodes[id];
  const std::uint64_t k = store.chunks_for(samples, n.leaf());
  std::uint32_t first = kNone;
  for (std::uint64_t j = 0; j < k; ++j) {
    const std::uint32_t c = store.chunks.take();
    if (j == 0) {
      first = n.head = c;
    } else {
      store.chunks.link(n.tail, c);
    }
    n.tail = c;
  }
  n.count = samples;
  return first;
}

/// PointEncoding::Quantized16: every point rounded to its leaf's step (detail/point_codec.hpp)
/// before the voxels are sampled from it.
void round_to_leaves(const TreeStore& store, PoolView& pool, bulk::SortedPoints& sorted) {
  pool.parallel_for(store.nodes.size(), 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t id = lo; id < hi; ++id) {
      if (!store.nodes[id].leaf()) continue;
      const std::uint32_t level = store.nodes[id].level;
      for (std::uint64_t i = sorted.begin[id]; i < sorted.end[id]; ++i) {
        sorted.q[i] = round_to_leaf(sorted.q[i], level);
      }
    }
  });
}

void write(TreeStore& store, PoolView& pool, std::span<const Point> points,
           std::span<const std::byte> records, const bulk::SortedPoints& sorted,
           const std::vector<std::vector<bulk::CellSample>>& voxels) {
  std::vector<CpuNode>& nodes = store.nodes;
  std::vector<std::uint32_t> first_chunk(nodes.size(), kNone);
  for (std::uint32_t id = 0; id < nodes.size(); ++id) {
    const std::uint64_t samples =
        nodes[id].leaf() ? sorted.end[id] - sorted.begin[id] : voxels[id].size();
    if (samples == 0) continue;
    first_chunk[id] = give_chunks(store, id, samples);
    (nodes[id].leaf() ? store.point_chunks : store.voxel_chunks) +=
        store.chunks_for(samples, nodes[id].leaf());
    (nodes[id].leaf() ? store.points : store.voxels) += samples;
  }
  const std::uint32_t cap = store.chunks.capacity();
  const PointLayout& point_layout = store.chunks.point_layout();
  const VoxelLayout& layout = store.chunks.voxel_layout();
  const std::uint64_t bytes = store.chunks.record_bytes();
  // A node's chunks are consecutive ids (fresh chunks of an empty store), so sample j lies in
  // chunk first + j / capacity; with channels its record beside it takes that of input point i.
  pool.parallel_for(nodes.size(), 1, [&](unsigned, std::size_t lo, std::size_t hi) {
    for (std::size_t id = lo; id < hi; ++id) {
      if (first_chunk[id] == kNone) continue;
      const CpuNode& n = nodes[id];
      if (n.leaf()) {
        for (std::uint64_t j = 0, i = sorted.begin[id]; i < sorted.end[id]; ++i, ++j) {
          const auto chunk = first_chunk[id] + static_cast<std::uint32_t>(j / cap);
          store_point(store.chunks.bytes(chunk), point_layout, static_cast<std::uint32_t>(j % cap),
                      points[sorted.order[i]], sorted.q[i], n.level);
          if (bytes != 0) {
            std::memcpy(store.chunks.records(chunk) + j % cap * bytes,
                        records.data() + sorted.order[i] * bytes, bytes);
          }
        }
        continue;
      }
      for (std::uint64_t j = 0; j < voxels[id].size(); ++j) {
        const bulk::CellSample v = voxels[id][j];
        const auto chunk = first_chunk[id] + static_cast<std::uint32_t>(j / layout.capacity);
        const auto at = static_cast<std::uint32_t>(j % layout.capacity);
        put_voxel(store.chunks.bytes(chunk), layout, at, v.cell, v.rgba);
        if (bytes != 0) {
          std::memcpy(store.chunks.voxel_records(chunk) + at * bytes,
                      records.data() + v.source * bytes, bytes);
        }
      }
    }
  });
  for (const CpuNode& n : nodes) store.depth = std::max(store.depth, n.level);
}

}  // namespace

void build_bulk(TreeStore& store, PoolView& pool, std::span<const Point> points,
                std::span<const std::byte> records, BuildStats& stats) {
  try {
    const auto split_start = Clock::now();
    bulk::SortedPoints sorted = bulk::split(store, pool, points);
    if (store.chunks.point_layout().quantized) round_to_leaves(store, pool, sorted);
    std::uint64_t point_chunks = 0;
    for (std::uint32_t id = 0; id < store.nodes.size(); ++id) {
      if (store.nodes[id].leaf())
        point_chunks += store.chunks_for(sorted.end[id] - sorted.begin[id], true);
    }
    require(store, points.size(), point_chunks, " for points");
    stats.split_ms = ms_since(split_start);

    const auto voxel_start = Clock::now();
    store.grids.reserve((store.nodes.size() - 1) / 8);
    std::uint64_t filter_bytes = 0;
    const auto voxels = bulk::voxelize(store, pool, points, records, sorted, filter_bytes);
    std::uint64_t voxel_chunks = 0, voxel_count = 0;
    for (const auto& v : voxels) {
      voxel_chunks += store.chunks_for(v.size(), false);
      voxel_count += v.size();
    }
    require(store, points.size(), point_chunks + voxel_chunks, " for points and voxels");
    stats.voxelize_ms = ms_since(voxel_start);

    const auto write_start = Clock::now();
    store.chunks.prepare(point_chunks + voxel_chunks, 0);
    write(store, pool, points, records, sorted, voxels);
    // Writing points belongs to the split, voxels to voxelizing: share by sample count.
    const double write_ms = ms_since(write_start);
    const double share =
        static_cast<double>(points.size()) / static_cast<double>(points.size() + voxel_count);
    stats.split_ms += write_ms * share;
    stats.voxelize_ms += write_ms * (1.0 - share);
    // The sort holds two arrays of 16-byte keys; afterwards the order and the quantised
    // points (16 bytes a point), the voxel lists, the node ranges and the accumulators of the
    // voxel colours (two levels at a time).
    stats.filter_bytes = filter_bytes;
    // The incremental builder's voxel index is made when a batch first needs it.
    store.index.set_ready(false);
    // With channels, the packed records of the input on top.
    stats.scratch_bytes = std::max<std::uint64_t>(
                              points.size() * 32,
                              points.size() * (sizeof(std::uint32_t) + sizeof(QuantPoint)) +
                                  voxel_count * sizeof(bulk::CellSample) +
                                  sorted.begin.size() * 2 * sizeof(std::uint64_t) + filter_bytes) +
                          records.size();
  } catch (const std::bad_alloc&) {
    throw CapacityError(
        fmt::format("host memory ran out while building the octree of {} points; nothing was built",
                    points.size()));
  }
}

}  // namespace simlod::detail::cpu
