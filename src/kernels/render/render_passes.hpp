// The passes of one frame of the CUDA renderer, launched on the framebuffer's stream; none
// synchronises. `nodes` is the node count of the tree (host copy after the last batch).
//   ranges:  a thread per node: DrawRange (core/render_math.hpp) into the scratch,
//            and with a budget the samples per budget step into RenderCounters::hist
//   choose:  one thread: the threshold (raised by the budget)
//   collect: a thread per node: a drawn node is counted and walks its chunk list, appending
//            (chunk, node) entries to the chunk work list (a compacted store's consecutive
//            lists: an entry per entry_chunks() chunks, without reading the links)
//   splat:   a block per work-list entry (one chunk, or entry_chunks() consecutive ones of a
//            node); pass one: 64-bit atomicMin of the
//            framebuffer word after an early depth test; pass two (High quality): samples near
//            the nearest depth add their colour to the pixel's sums
// SimLOD gives each drawn node a block that walks its list; an overview draws only a few
// hundred nodes, too few blocks for 132 SMs, so the work list spreads the chunks instead
// (docs/perf-notes.md).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/render/framebuffer.cuh"
#include "kernels/tree/tree_view.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda {

/// Chunks of a node one work-list entry covers: 1, or for a store with consecutive lists
/// about kRenderEntryBytes of them.
SIMLOD_HD std::uint32_t entry_chunks(const TreeView& t) {
  if (!t.consecutive_chunks) return 1;
  const std::uint64_t k = kRenderEntryBytes / (t.chunk_bytes - 16);  // less the link trailer
  return k > 1 ? static_cast<std::uint32_t>(k) : 1;
}

void launch_select(const TreeView& tree, std::uint32_t nodes, const RenderParams& params,
                   std::uint64_t budget, Framebuffer& fb);

/// `chunks`: a host bound of the work list (chunks handed out by the arena).
void launch_splat(const TreeView& tree, std::uint32_t chunks, const RenderParams& params,
                  bool second_pass, Framebuffer& fb);

}  // namespace simlod::detail::cuda
