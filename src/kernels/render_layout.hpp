// Device records of the CUDA renderer (plain C++: the host reads the counters back).
//
// RenderCounters: 552 bytes, alignment 8, one per framebuffer in device memory, zeroed before
// each frame.
//   offset  0  uint32 drawn       entries in the drawn-node list
//   offset  4  float  threshold   LOD threshold after the budget
//   offset  8  uint64 leaves      drawn leaves
//   offset 16  uint64 points      samples of the drawn leaves
//   offset 24  uint64 voxels      samples of the drawn inner nodes
//   offset 32  uint64 hist[65]    samples drawn at budget step k (simlod/detail/render_math.hpp)
//
// Per-node scratch (capacity grows with the tree): ranges float2 per node (DrawRange: lo, hi)
// and the drawn-node list, uint32 per node.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simlod/detail/render_math.hpp"

namespace simlod::detail {

struct RenderCounters {
  std::uint32_t drawn;
  float threshold;
  std::uint64_t leaves;
  std::uint64_t points;
  std::uint64_t voxels;
  std::uint64_t hist[kBudgetSteps + 1];
};

static_assert(sizeof(RenderCounters) == 552 && alignof(RenderCounters) == 8);
static_assert(offsetof(RenderCounters, hist) == 32);

}  // namespace simlod::detail
