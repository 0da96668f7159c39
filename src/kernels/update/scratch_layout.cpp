// Layout arithmetic of the incremental builder's fixed scratch (host only, testable).
#include "kernels/update/scratch_layout.hpp"

#include "kernels/tree/device_layout.hpp"
#include "kernels/tuning.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {

ScratchLayout plan_scratch(const ArenaLayout& arena) {
  ScratchLayout s;
  std::uint64_t at = 0;
  auto region = [&](std::uint64_t& offset, std::uint64_t bytes) {
    offset = at;
    at = (at + bytes + kArenaAlign - 1) / kArenaAlign * kArenaAlign;
  };
  const std::uint64_t nodes = arena.max_nodes;
  region(s.new_counts, nodes * 4);
  region(s.ordinal_base, nodes * 4);
  region(s.old_tail, nodes * 4);
  // A leaf that splits keeps its (cleared) entry and may be listed again for its voxels.
  s.max_touched = arena.max_nodes + arena.max_splits;
  region(s.touched, std::uint64_t{s.max_touched} * 4);
  region(s.splits, std::uint64_t{arena.max_splits} * sizeof(SplitEntry));
  region(s.batch, std::uint64_t{arena.max_batch} * sizeof(Point));
  region(s.batch_slots, std::uint64_t{arena.max_batch} * 8);
  region(s.batch_records, std::uint64_t{arena.max_batch} * arena.record_bytes);
  s.total_bytes = at;
  return s;
}

}  // namespace simlod::detail::cuda
