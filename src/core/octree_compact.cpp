// Octree::compact(): the finished tree in a store without what further batches need.
#include <fmt/format.h>

#include "core/octree_impl.hpp"
#include "simlod/error.hpp"
#include "simlod/octree.hpp"

namespace simlod {

void Octree::compact(std::uint32_t chunk_capacity) {
  detail::OctreeImpl& s = impl();
  if (!s.queue.empty()) {
    throw InvalidInput(fmt::format(
        "compact: {} batches are queued; update() or discard_queued() them first (the octree "
        "is unchanged)",
        s.queue.size()));
  }
  OctreeConfig config = s.config;
  config.chunk_capacity = chunk_capacity;
  try {
    detail::validate_config(config);
  } catch (const InvalidInput& e) {
    throw InvalidInput(fmt::format("compact: {} (the octree is unchanged)", e.what()));
  }
  finalize();  // Weighted: the colours of the batches since the last finalize()
  try {
    detail::compact(s.store, chunk_capacity);
  } catch (const CapacityError&) {
    throw;  // nothing changed
  } catch (const std::exception& e) {
    detail::fail(s, e.what());
    throw;
  }
  s.config.chunk_capacity = chunk_capacity;
  s.compacted = true;
}

void Octree::compact() { compact(compact_chunk_capacity(impl().config.point_encoding)); }

namespace detail {

void refuse_if_compacted(const OctreeImpl& s, std::string_view call) {
  if (!s.compacted) return;
  throw InvalidInput(
      fmt::format("{}: this octree was finished by compact() and takes no more points (nothing was "
                  "inserted)",
                  call));
}

}  // namespace detail
}  // namespace simlod
