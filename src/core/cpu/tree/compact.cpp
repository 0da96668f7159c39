// Compaction of the CPU tree store (store.hpp, Octree::compact()).
#include <fmt/format.h>

#include <cstring>
#include <new>
#include <utility>

#include "core/cpu/tree/store.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {

void compact(TreeStore& store, std::uint32_t chunk_capacity) {
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
    std::vector<CpuNode> nodes = store.nodes;
    for (CpuNode& n : nodes) {
      const bool leaf = n.leaf();
      const std::uint32_t from_cap = from.capacity_of(leaf), to_cap = to.capacity_of(leaf);
      n.grid = kNone;
      n.head = n.tail = kNone;
      std::uint32_t c = store.nodes[&n - nodes.data()].head;  // the old list
      std::uint32_t at = 0;                                   // slot in old chunk c
      for (std::uint64_t done = 0; done < n.count;) {
        const std::uint32_t fresh = to.take();
        if (n.tail != kNone) to.link(n.tail, fresh);
        if (n.head == kNone) n.head = fresh;
        n.tail = fresh;
        const std::uint64_t k = std::min<std::uint64_t>(to_cap, n.count - done);
        for (std::uint32_t j = 0; j < k; ++j, ++at) {
          if (at == from_cap) {
            c = from.next(c);
            at = 0;
          }
          if (leaf) {
            copy_point(from.bytes(c), from.point_layout(), at, to.bytes(fresh), to.point_layout(),
                       j);
          } else {
            copy_voxel(from.bytes(c), from.voxel_layout(), at, to.bytes(fresh), to.voxel_layout(),
                       j);
          }
          if (record_bytes != 0) {
            const std::byte* r = leaf ? from.records(c) : from.voxel_records(c);
            std::byte* w = leaf ? to.records(fresh) : to.voxel_records(fresh);
            std::memcpy(w + std::size_t{j} * record_bytes, r + std::size_t{at} * record_bytes,
                        record_bytes);
          }
        }
        done += k;
      }
    }
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
  store.compacted = true;
}

}  // namespace simlod::detail::cpu
