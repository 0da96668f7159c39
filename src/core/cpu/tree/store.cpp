// The CPU tree store: the empty tree and the memory it is charged for.
#include "core/cpu/tree/store.hpp"

#include <fmt/format.h>

#include "simlod/detail/channels.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {

TreeStore::TreeStore(const OctreeConfig& config_, const OctreeGeometry& geometry_)
    : config(config_),
      geometry(geometry_),
      limit(config_.memory_bytes),
      chunks(config_.chunk_capacity, channel_layout(config_.channels).record_bytes,
             geometry_.grid_bits, config_.point_encoding == PointEncoding::Quantized16),
      grids(geometry_.grid_bits, chunks.chunk_bytes()),
      index(config_) {
  nodes.emplace_back();  // the root: an empty leaf
  if (limit != 0 && charged() > limit) {
    throw CapacityError(fmt::format("memory_bytes = {} cannot even hold the root node ({} bytes)",
                                    limit, charged()));
  }
}

std::uint64_t TreeStore::charged() const {
  return chunks.allocated() * chunks.chunk_bytes() + grids.table_bytes() +
         nodes.size() * kNodeBytes + index.bytes();
}

std::uint64_t TreeStore::chunks_for(std::uint64_t samples, bool leaf) const {
  const std::uint32_t cap = chunks.capacity_of(leaf);
  return (samples + cap - 1) / cap;
}

}  // namespace simlod::detail::cpu
