// Compaction of the CPU tree store (store.hpp, Octree::compact()).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "core/cpu/tree/store.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {
namespace {

/// Copies `n` samples from slot `from_slot` of chunk `from_chunk` to slot `to_slot` of chunk
/// `to_chunk` (stores of the same encoding and records, other capacities): each of the
/// chunk's arrays (detail/point_codec.hpp, detail/voxel_codec.hpp) and the records as one run.
void copy_run(const ChunkStore& from, std::uint32_t from_chunk, std::uint32_t from_slot,
              ChunkStore& to, std::uint32_t to_chunk, std::uint32_t to_slot, std::uint32_t n,
              bool leaf) {
  const std::byte* a = from.bytes(from_chunk);
  std::byte* b = to.bytes(to_chunk);
  if (leaf && !from.point_layout().quantized) {
    std::memcpy(reinterpret_cast<Point*>(b) + to_slot,
                reinterpret_cast<const Point*>(a) + from_slot, sizeof(Point) * n);
  } else if (leaf) {  // colours, then three codes a point
    std::memcpy(quantized_rgba(b, to_slot), quantized_rgba(a, from_slot), 4 * std::size_t{n});
    std::memcpy(quantized_codes(b, to.point_layout(), to_slot),
                quantized_codes(a, from.point_layout(), from_slot), 6 * std::size_t{n});
  } else {  // colour words, then the cells' high parts (after capacity words)
    const VoxelLayout& fl = from.voxel_layout();
    const VoxelLayout& tl = to.voxel_layout();
    std::memcpy(voxel_word(b, to_slot), voxel_word(a, from_slot), 4 * std::size_t{n});
    std::memcpy(b + std::uint64_t{4} * tl.capacity + std::uint64_t{tl.high_bytes} * to_slot,
                a + std::uint64_t{4} * fl.capacity + std::uint64_t{fl.high_bytes} * from_slot,
                std::size_t{fl.high_bytes} * n);
  }
  const std::uint64_t rb = from.record_bytes();
  if (rb != 0) {
    const std::byte* r = leaf ? from.records(from_chunk) : from.voxel_records(from_chunk);
    std::byte* w = leaf ? to.records(to_chunk) : to.voxel_records(to_chunk);
    std::memcpy(w + rb * to_slot, r + rb * from_slot, rb * n);
  }
}

}  // namespace

void compact(TreeStore& store, PoolView& pool, std::uint32_t chunk_capacity) {
  const ChunkStore& from = store.chunks;
  const std::uint32_t record_bytes = from.record_bytes();
  std::uint64_t point_chunks = 0, voxel_chunks = 0;
  try {
    ChunkStore to(chunk_capacity, record_bytes, store.geometry.grid_bits,
                  from.point_layout().quantized);
    auto chunks_of = [&](const CpuNode& n) {
      const std::uint32_t cap = to.capacity_of(n.leaf());
      return (n.count + cap - 1) / cap;
    };
    for (const CpuNode& n : store.nodes) (n.leaf() ? point_chunks : voxel_chunks) += chunks_of(n);
    const std::uint64_t charged =
        (point_chunks + voxel_chunks) * to.chunk_bytes() + store.nodes.size() * kNodeBytes;
    if (store.limit != 0 && charged > store.limit) {
      throw CapacityError(fmt::format(
          "compact: the tree in chunks of {} samples takes {} bytes, more than memory_bytes = {}; "
          "the octree is unchanged",
          chunk_capacity, charged, store.limit));
    }
    to.prepare(point_chunks + voxel_chunks, 0);
    // The new lists, node by node in id order (each node's chunks consecutive: the store's
    // pool is empty, so take() hands out fresh ids in turn), then the samples, a node per task.
    std::vector<CpuNode> nodes = store.nodes;
    for (CpuNode& n : nodes) {
      n.grid = kNone;
      n.head = n.tail = kNone;
      for (std::uint64_t k = chunks_of(n); k > 0; --k) {
        const std::uint32_t fresh = to.take();
        if (n.tail != kNone) to.link(n.tail, fresh);
        if (n.head == kNone) n.head = fresh;
        n.tail = fresh;
      }
    }
    pool.parallel_for(nodes.size(), 1, [&](unsigned, std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) {
        const CpuNode& n = nodes[i];
        const bool leaf = n.leaf();
        const std::uint32_t from_cap = from.capacity_of(leaf), to_cap = to.capacity_of(leaf);
        std::uint32_t c = store.nodes[i].head, at = 0;  // the old list, slot in chunk c
        std::uint32_t fresh = n.head, j = 0;            // the new chunk, slot in it
        // Runs of samples that lie in one old and one new chunk, copied array by array.
        for (std::uint64_t done = 0; done < n.count;) {
          if (at == from_cap) {
            c = from.next(c);
            at = 0;
          }
          if (j == to_cap) {
            ++fresh;
            j = 0;
          }
          const auto run = static_cast<std::uint32_t>(
              std::min<std::uint64_t>({from_cap - at, to_cap - j, n.count - done}));
          copy_run(from, c, at, to, fresh, j, run, leaf);
          at += run;
          j += run;
          done += run;
        }
      }
    });
    // Nothing throws from here on.
    store.nodes = std::move(nodes);
    store.chunks = std::move(to);
  } catch (const std::bad_alloc&) {
    throw CapacityError(fmt::format(
        "compact: not enough host memory for the tree in chunks of {} samples beside the "
        "current one; the octree is unchanged",
        chunk_capacity));
  }
  store.grids.clear();
  store.index = VoxelIndex(OctreeConfig{});
  store.config.chunk_capacity = chunk_capacity;
  store.point_chunks = point_chunks;
  store.voxel_chunks = voxel_chunks;
}

}  // namespace simlod::detail::cpu
