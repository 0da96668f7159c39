#include "core/cpu/tree/chunk_store.hpp"

#include <algorithm>
#include <new>

#include "core/cpu/tuning.hpp"

namespace simlod::detail::cpu {

ChunkStore::ChunkStore(std::uint32_t chunk_capacity, std::uint32_t record_bytes,
                       std::uint32_t grid_bits, bool quantized_points)
    : capacity_(chunk_capacity),
      record_bytes_(record_bytes),
      points_(detail::point_layout(chunk_capacity, record_bytes, quantized_points)),
      voxels_(detail::voxel_layout(chunk_bytes(), record_bytes, grid_bits)),
      per_slab_(
          static_cast<std::uint32_t>(std::max<std::uint64_t>(1, kChunkSlabBytes / chunk_bytes()))) {
}

void ChunkStore::prepare(std::uint64_t takes, std::uint64_t releases) {
  pool_.reserve(pool_.size() + releases);
  const std::uint64_t from_pool = std::min<std::uint64_t>(takes, pool_.size() + releases);
  const std::uint64_t fresh = takes - from_pool;
  const std::uint64_t total = next_.size() + fresh;
  if (total >= kNone) throw std::bad_alloc();  // chunk ids are 32-bit
  next_.reserve(total);
  while (std::uint64_t{slabs_.size()} * per_slab_ < total) {
    slabs_.emplace_back(new std::byte[std::size_t{per_slab_} * chunk_bytes()]);
  }
}

std::uint32_t ChunkStore::take() noexcept {
  if (!pool_.empty()) {
    const std::uint32_t c = pool_.back();
    pool_.pop_back();
    next_[c] = kNone;
    return c;
  }
  next_.push_back(kNone);  // capacity reserved by prepare()
  return static_cast<std::uint32_t>(next_.size() - 1);
}

std::uint32_t ChunkStore::take_fresh() {
  const std::uint64_t total = next_.size() + 1;
  if (total >= kNone) throw std::bad_alloc();  // chunk ids are 32-bit
  while (std::uint64_t{slabs_.size()} * per_slab_ < total) {
    slabs_.emplace_back(new std::byte[std::size_t{per_slab_} * chunk_bytes()]);
  }
  next_.push_back(kNone);  // grows geometrically
  return static_cast<std::uint32_t>(next_.size() - 1);
}

std::uint64_t ChunkStore::release_list(std::uint32_t head) noexcept {
  std::uint64_t n = 0;
  for (std::uint32_t c = head; c != kNone; c = next_[c], ++n) pool_.push_back(c);
  return n;
}

std::uint64_t ChunkStore::list_length(std::uint32_t head) const {
  std::uint64_t n = 0;
  for (std::uint32_t c = head; c != kNone; c = next_[c]) ++n;
  return n;
}

}  // namespace simlod::detail::cpu
