// The CUDA bulk builder's breadth-first node layout (kernels/bulk/bulk_view.hpp) in one launch:
// one block walks the levels from the root down. Per level it classifies the nodes from the
// counter pyramid (inner: more points than the leaf limit, above the depth limit), numbers the
// inner ones by a block scan, and gives each inner node 8 children after the level. The
// layout's nodes are few (about 11,000 at 10^8 points, a level at most a few thousand), so one
// block takes a level in a few passes; one launch per level, with a read-back of the level's
// inner count before the next, left the device idle 0.3 ms per build at 10^8 points.
#include <cub/block/block_scan.cuh>

#include "kernels/bulk/bulk_passes.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_ops.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda::bulk {
namespace {

constexpr int kLayoutThreads = 1024;
using LayoutScan = cub::BlockScan<std::uint32_t, kLayoutThreads>;

/// Node `id` of level `level`: its points (written to the node when it is a leaf; an inner
/// node's count is 0 until its leaves are filled), its cell's node entry, and whether it is
/// inner.
__device__ bool classify_node(const BulkView& v, std::uint32_t level, std::uint32_t id,
                              std::uint32_t points, std::uint32_t& count) {
  const CountBlock b = v.d_blocks[v.d_block_of[id]];
  const std::uint32_t j = level - b.level;
  count = points;  // the root
  if (j > 0) {
    const std::uint64_t at = b.offset + pyramid_level(j) + v.d_index_of[id];
    count = v.d_count[at];
    v.d_node[at] = id;
  }
  const bool inner = count > v.limit && level < v.max_depth;
  v.tree.d_nodes[id].count = inner ? 0u : count;
  return inner;
}

/// Inner node `id` of level `level`, numbered `rank` in its level: its links, its place in
/// the inner list and its 8 children from `next + 8 * rank` on, with their counter cells.
__device__ void emit_children(const BulkView& v, std::uint32_t level, std::uint32_t id,
                              std::uint32_t rank, std::uint32_t next, std::uint32_t inner_begin) {
  const std::uint32_t first = next + 8 * rank;
  v.tree.d_links[id] = NodeLink{first, inner_begin + rank};
  v.d_inner[inner_begin + rank] = id;
  const DeviceNode parent = v.tree.d_nodes[id];
  const std::uint32_t block = v.d_block_of[id];
  const std::uint32_t index = v.d_index_of[id];
  const CountBlock b = v.d_blocks[block];
  std::uint32_t child_block = block;
  std::uint32_t child_index = index * 8;
  if (level - b.level == b.k) {  // its cell is refined by a block of its own
    const std::uint32_t e = v.d_link[b.offset + pyramid_level(b.k) + index];
    if (e == kNil || (e & kExtBit) == 0) {
      v.tree.flag(kOverflowNodes);  // a bug: an inner finest cell without its block
      return;
    }
    child_block = e & ~kExtBit;
    child_index = 0;
  }
  for (std::uint32_t o = 0; o < 8; ++o) {
    const std::uint32_t c = first + o;
    v.tree.d_nodes[c] = DeviceNode{parent.x * 2 + (o & 1u),
                                   parent.y * 2 + ((o >> 1) & 1u),
                                   parent.z * 2 + ((o >> 2) & 1u),
                                   level + 1,
                                   0,
                                   0,
                                   kNil,
                                   kNil};
    v.tree.d_links[c] = NodeLink{kNil, kNil};
    v.d_block_of[c] = child_block;
    v.d_index_of[c] = child_index + o;
  }
}

__global__ void __launch_bounds__(kLayoutThreads)
    layout_kernel(BulkView v, std::uint32_t points, std::uint32_t node_bound,
                  std::uint32_t inner_bound, std::uint32_t* out) {
  __shared__ LayoutScan::TempStorage scan;
  __shared__ std::uint32_t level_max;
  std::uint32_t begin = 0, end = 1, inner_begin = 0;
  for (std::uint32_t level = 0;; ++level) {
    if (threadIdx.x == 0) level_max = 0;
    __syncthreads();
    const std::uint32_t n = end - begin;
    std::uint32_t inner = 0;  // the level's inner nodes so far (the same in every thread)
    for (std::uint32_t base = 0; base < n; base += kLayoutThreads) {
      const std::uint32_t t = base + threadIdx.x;
      std::uint32_t flag = 0;
      if (t < n) {
        std::uint32_t count = 0;
        flag = classify_node(v, level, begin + t, points, count) ? 1u : 0u;
        if (flag != 0) atomicMax(&level_max, count);
      }
      std::uint32_t rank = 0, total = 0;
      LayoutScan(scan).ExclusiveSum(flag, rank, total);
      if (t < n) {
        v.d_flags[t] = flag;
        v.d_ranks[t] = inner + rank;
      }
      inner += total;
      __syncthreads();  // the scan's storage is used again
    }
    if (threadIdx.x == 0) out[kLayoutMax + level] = level_max;
    const std::uint64_t nodes = std::uint64_t{end} + 8ull * inner;
    const std::uint64_t inner_total = std::uint64_t{inner_begin} + inner;
    if (inner == 0 || nodes > node_bound || inner_total > inner_bound) {
      if (threadIdx.x == 0) {
        out[kLayoutDepth] = level;
        out[kLayoutNeed] =
            inner == 0 ? 0u : static_cast<std::uint32_t>(nodes < kNil ? nodes : kNil);
      }
      return;  // uniform: every thread has the same inner, nodes and bounds
    }
    // Each thread emits the nodes it classified (its own d_flags and d_ranks entries).
    for (std::uint32_t t = threadIdx.x; t < n; t += kLayoutThreads) {
      if (v.d_flags[t] != 0) emit_children(v, level, begin + t, v.d_ranks[t], end, inner_begin);
    }
    if (threadIdx.x == 0) {
      out[kLayoutLevelBegin + level + 2] = static_cast<std::uint32_t>(nodes);
      out[kLayoutInnerBegin + level + 1] = static_cast<std::uint32_t>(inner_total);
    }
    __syncthreads();  // the children are written before the next level reads them
    begin = end;
    end = static_cast<std::uint32_t>(nodes);
    inner_begin = static_cast<std::uint32_t>(inner_total);
  }
}

}  // namespace

void launch_layout(const BulkView& v, std::uint64_t points, std::uint32_t node_bound,
                   std::uint32_t inner_bound, std::uint32_t* d_out, cudaStream_t s) {
  layout_kernel<<<1, kLayoutThreads, 0, s>>>(v, static_cast<std::uint32_t>(points), node_bound,
                                             inner_bound, d_out);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk layout");
}

}  // namespace simlod::detail::cuda::bulk
