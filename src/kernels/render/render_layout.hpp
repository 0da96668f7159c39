// Device records of the CUDA renderer (plain C++: the host reads the counters back).
//
// RenderCounters: 560 bytes, alignment 8, one per framebuffer in device memory, zeroed before
// each frame.
//   offset  0  uint32 drawn       drawn nodes
//   offset  4  float  threshold   LOD threshold after the budget
//   offset  8  uint32 entries     entries in the chunk work list
//   offset 12  uint32 pad
//   offset 16  uint64 leaves      drawn leaves
//   offset 24  uint64 points      samples of the drawn leaves
//   offset 32  uint64 voxels      samples of the drawn inner nodes
//   offset 40  uint64 hist[65]    samples drawn at budget step k (core/render_math.hpp)
//
// Scratch that grows with the tree: ranges, float2 per node (DrawRange: lo, hi); the chunk
// work list, uint2 per chunk of the drawn nodes (chunk id, node id: every chunk of a list but
// its tail is full), at most one entry per chunk the arena has handed out.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/render_math.hpp"

namespace simlod::detail::cuda {

struct RenderCounters {
  std::uint32_t drawn;
  float threshold;
  std::uint32_t entries;
  std::uint32_t pad;
  std::uint64_t leaves;
  std::uint64_t points;
  std::uint64_t voxels;
  std::uint64_t hist[kBudgetSteps + 1];
};

static_assert(sizeof(RenderCounters) == 560 && alignof(RenderCounters) == 8);
static_assert(offsetof(RenderCounters, hist) == 40);

}  // namespace simlod::detail::cuda
