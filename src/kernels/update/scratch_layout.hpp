// The incremental builder's fixed scratch: one device allocation beside the store's arena,
// sized at creation from the arena's tables (ArenaLayout::scratch_bytes is its budget). Only
// the builder's passes see it (kernels/update/batch_view.hpp); consumers of the store do not.
//
//   offset 0       new_counts     uint32[max_nodes]    per node: points counted / voxels emitted
//   ordinal_base                  uint32[max_nodes]    per node: ordinal of its first new chunk
//   old_tail                      uint32[max_nodes]    per node: its tail chunk before the batch
//   touched                       uint32[max_touched]  nodes that receive samples this batch
//   splits                        SplitEntry[max_splits]  splits of the batch's rounds
//   batch                         Point[max_batch]     the uploaded batch (the first buffer)
//   batch_slots                   uint2[max_batch]     per batch point: (leaf, slot in leaf)
//   batch_records                 byte[max_batch * record_bytes]  the batch's channel records
//
// What only the batch tells (spill buffer, voxel backlog) is borrowed from the arena's free gap
// after the capacity check (kernels/update/capacity.hpp), so that a batch can use all the
// memory the tree does not, without a second reserve.
#pragma once

#include <cstdint>

#include "kernels/tree/arena_layout.hpp"

namespace simlod::detail::cuda {

struct ScratchLayout {
  std::uint64_t total_bytes = 0;
  std::uint32_t max_touched = 0;  ///< list entries: max_nodes + max_splits
  // Byte offsets from the start of the scratch allocation.
  std::uint64_t new_counts = 0, ordinal_base = 0, old_tail = 0, touched = 0, splits = 0;
  std::uint64_t batch = 0, batch_slots = 0, batch_records = 0;
};

/// The scratch for the tables of `arena`; its total never exceeds arena.scratch_bytes.
[[nodiscard]] ScratchLayout plan_scratch(const ArenaLayout& arena);

}  // namespace simlod::detail::cuda
