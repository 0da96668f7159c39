// The CUDA bulk builder's sampling through shared memory (grids of 64^3 and 128^3 cells): a
// child's cells are one octant of its parent's grid, which no other child touches, so a block
// sets the cells of its samples in a shared-memory copy of that octant (32 KiB at 128^3), then
// merges the words it touched into the parent's grid, one atomicOr each. The bits the merge
// set are the cells this block took first; their first samples in the block emit the voxels
// (first-come). A block takes kOctantItems samples: a group of leaf chunks or a run of the
// level below's voxel records; where those belong to several children, it takes them child by
// child. perf-notes.md, "Bulk voxelize: a child's octant in shared memory", has the versions
// that were slower (a block per leaf; registers for every item's colour).
#include <cub/block/block_scan.cuh>

#include "kernels/bulk/bulk_passes.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_ops.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda::bulk {
namespace {

constexpr std::uint32_t kPerThread = kOctantItems / kOctantThreads;
static_assert(kPerThread * kOctantThreads == kOctantItems && kPerThread <= 32);

using BlockScan = cub::BlockScan<std::uint32_t, kOctantThreads>;

/// 32-bit words of a child's octant of a 2^g grid (g >= 6: whole words per row).
SIMLOD_HD std::uint32_t octant_words(std::uint32_t g) { return 1u << (3 * (g - 1) - 5); }

/// Leaf chunks a block takes: as many as kOctantItems samples hold.
SIMLOD_HD std::uint32_t chunks_per_block(std::uint32_t cap) { return kOctantItems / cap; }

/// A block's scratch beside its octant: the octant's words it touched for the current child
/// (a child has at most kOctantItems samples in a block, so at most that many words), which
/// then become the list of its items that emit voxels.
struct OctantScratch {
  BlockScan::TempStorage scan;
  std::uint16_t touched[kOctantItems];
  std::uint32_t touched_count, first, child, slot, at;
};

template <bool kEmit>
__global__ void __launch_bounds__(kOctantThreads, kOctantMinBlocks)
    octant_kernel(BulkView v, std::uint32_t level, std::uint32_t child_begin,
                  std::uint32_t inner_begin, std::uint32_t chunk_begin, std::uint32_t chunk_end,
                  std::uint32_t leaf_blocks, std::uint32_t below) {
  extern __shared__ std::uint32_t octant[];
  __shared__ OctantScratch sh;
  const std::uint32_t g = v.tree.params.grid_bits, h = g - 1, half = (1u << h) - 1u;
  const std::uint32_t words = octant_words(g);
  const std::uint32_t cap = v.tree.params.chunk_capacity;
  const bool leaves = blockIdx.x < leaf_blocks;
  const std::uint32_t first_chunk = chunk_begin + blockIdx.x * chunks_per_block(cap);
  const std::uint32_t first_record = (blockIdx.x - leaf_blocks) * kOctantItems;
  for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) octant[i] = 0;
  // This thread's items k (kOctantThreads * k + threadIdx.x of the block's): the child each
  // belongs to (kNil: none, or done) and its local cell in the child's octant.
  std::uint32_t child[kPerThread], local[kPerThread];
#pragma unroll
  for (std::uint32_t k = 0; k < kPerThread; ++k) {
    const std::uint32_t i = k * kOctantThreads + threadIdx.x;
    child[k] = kNil;
    local[k] = 0;
    if (leaves) {
      const std::uint32_t chunk = first_chunk + i / cap;
      if (chunk >= chunk_end || i / cap >= chunks_per_block(cap)) continue;
      const std::uint32_t leaf = v.d_owner[chunk];
      const DeviceNode n = v.tree.d_nodes[leaf];
      const std::uint32_t slot = i % cap;
      if ((chunk - n.head) * cap + slot >= n.count) continue;
      const QuantPoint q = v.tree.leaf_point(chunk, slot, n).q;
      const std::uint32_t shift = kQuantBits - level - g;
      child[k] = leaf;
      local[k] =
          ((q.x >> shift) & half) | ((q.y >> shift) & half) << h | ((q.z >> shift) & half) << 2 * h;
    } else {
      if (first_record + i >= below) continue;
      const VoxelRecord r = v.d_below[first_record + i];
      const std::uint32_t m = (1u << g) - 1u;
      child[k] = r.node;
      local[k] =
          (r.cell & m) >> 1 | ((r.cell >> g & m) >> 1) << h | ((r.cell >> 2 * g) >> 1) << 2 * h;
    }
  }
  for (;;) {  // one child of the block's items at a time, the first one left first
    if (threadIdx.x == 0) sh.first = kNil;
    __syncthreads();  // also: the octant is clear and the last child's scratch is read
    if (threadIdx.x == 0) sh.touched_count = 0;
    std::uint32_t mine = kNil;
#pragma unroll
    for (std::uint32_t k = kPerThread; k-- > 0;) {
      if (child[k] != kNil) mine = k * kOctantThreads + threadIdx.x;
    }
    if (mine != kNil) atomicMin(&sh.first, mine);
    __syncthreads();
    const std::uint32_t first = sh.first;
    if (first == kNil) return;  // uniform: every thread read the same value
#pragma unroll
    for (std::uint32_t k = 0; k < kPerThread; ++k) {
      if (k * kOctantThreads + threadIdx.x == first) sh.child = child[k];
    }
    __syncthreads();
    const std::uint32_t node = sh.child;
    std::uint32_t taken = 0;
#pragma unroll
    for (std::uint32_t k = 0; k < kPerThread; ++k) {
      if (child[k] != node) continue;
      child[k] = kNil;  // done
      std::uint32_t* word = octant + (local[k] >> 5);
      const std::uint32_t bit = 1u << (local[k] & 31);
      if ((*word & bit) != 0) continue;
      const std::uint32_t old = atomicOr(word, bit);
      if ((old & bit) == 0) taken |= 1u << k;
      if (old == 0) sh.touched[atomicAdd(&sh.touched_count, 1u)] = local[k] >> 5;
    }
    __syncthreads();
    // Merge the touched words into the parent's grid, a few atomics in flight per thread. A
    // local row of 2^h cells is row_words words, a row of the grid twice that.
    const std::uint32_t rel = node - child_begin, o = rel & 7u;
    const std::uint32_t rank = inner_begin + rel / 8;
    std::uint32_t* grid = v.tree.dense_words(rank);
    const std::uint32_t row_words = 1u << (h - 5), touched = sh.touched_count;
    constexpr std::uint32_t kInFlight = 4;
    for (std::uint32_t base = threadIdx.x; base < touched; base += kInFlight * blockDim.x) {
      std::uint32_t idx[kInFlight], w[kInFlight], old[kInFlight];
#pragma unroll
      for (std::uint32_t f = 0; f < kInFlight; ++f) {
        const std::uint32_t j = base + f * blockDim.x;
        idx[f] = j < touched ? sh.touched[j] : 0u;
        w[f] = j < touched ? octant[idx[f]] : 0u;
        old[f] = 0;
      }
#pragma unroll
      for (std::uint32_t f = 0; f < kInFlight; ++f) {
        if (w[f] == 0) continue;
        const std::uint32_t i = idx[f], wx = i & (row_words - 1), ly = (i >> (h - 5)) & half;
        const std::uint32_t lz = i >> (2 * h - 5);
        const std::uint64_t row =
            (std::uint64_t{(o >> 2) << h | lz} << g) + ((o >> 1 & 1u) << h | ly);
        std::uint32_t* target = grid + row * 2 * row_words + (o & 1u) * row_words + wx;
        if constexpr (kEmit) {
          old[f] = atomicOr(target, w[f]);
        } else {
          atomicOr(target, w[f]);
        }
      }
#pragma unroll
      for (std::uint32_t f = 0; f < kInFlight; ++f) {
        // Emit: the cells this block set first, cleared after the emission; Mark: cleared.
        if (w[f] != 0) octant[idx[f]] = kEmit ? w[f] & ~old[f] : 0u;
      }
    }
    if constexpr (!kEmit) continue;
    __syncthreads();
    std::uint32_t emits = 0;
#pragma unroll
    for (std::uint32_t k = 0; k < kPerThread; ++k) {
      if ((taken >> k & 1u) != 0 && (octant[local[k] >> 5] >> (local[k] & 31) & 1u) != 0) {
        emits |= 1u << k;
      }
    }
    std::uint32_t offset = 0, total = 0;
    BlockScan(sh.scan).ExclusiveSum(static_cast<std::uint32_t>(__popc(emits)), offset, total);
    if (threadIdx.x == 0 && total > 0) {
      sh.slot = atomicAdd(v.d_cursor + rank, total);
      sh.at = atomicAdd(v.d_counter, total);
    }
    for (std::uint32_t j = threadIdx.x; j < touched; j += blockDim.x) octant[sh.touched[j]] = 0;
    __syncthreads();  // the touched list becomes the list of emitting items
#pragma unroll
    for (std::uint32_t k = 0; k < kPerThread; ++k) {
      if ((emits >> k & 1u) != 0) sh.touched[offset++] = k * kOctantThreads + threadIdx.x;
    }
    __syncthreads();
    // The voxels, their samples read again (their cells in the parent's grid, their colours).
    const std::uint32_t parent = v.d_inner[rank];
    for (std::uint32_t e = threadIdx.x; e < total; e += blockDim.x) {
      const std::uint32_t at = sh.at + e;
      if (at >= v.emit_capacity) break;
      const std::uint32_t i = sh.touched[e];
      VoxelRecord out{parent, sh.slot + e, 0, 0};
      std::uint64_t source = 0;
      if (leaves) {
        const std::uint32_t chunk = first_chunk + i / cap;
        const LeafSample p = v.tree.leaf_point(chunk, i % cap, v.tree.d_nodes[node]);
        out.cell = cell_index(p.q, level, g);
        out.rgba = p.point.rgba;
        source = std::uint64_t{chunk} << 32 | (i % cap);
      } else {
        const VoxelRecord r = v.d_below[first_record + i];
        out.cell = parent_cell(r.cell, o, g);
        out.rgba = r.rgba;
        if (v.d_emit_source != nullptr) source = v.voxel_place(r);
      }
      v.d_emit[at] = out;
      if (v.d_emit_source != nullptr) v.d_emit_source[at] = source;
    }
  }
}

template <bool kEmit>
void launch(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
            std::uint32_t inner_begin, std::uint32_t chunk_begin, std::uint32_t chunk_end,
            std::uint32_t below, cudaStream_t s) {
  const std::uint32_t per = chunks_per_block(v.tree.params.chunk_capacity);
  const std::uint32_t leaf_blocks = (chunk_end - chunk_begin + per - 1) / per;
  const std::uint64_t blocks =
      leaf_blocks + (std::uint64_t{below} + kOctantItems - 1) / kOctantItems;
  if (blocks == 0) return;
  const std::uint32_t bytes = octant_words(v.tree.params.grid_bits) * 4;
  octant_kernel<kEmit><<<static_cast<unsigned>(blocks), kOctantThreads, bytes, s>>>(
      v, level, child_begin, inner_begin, chunk_begin, chunk_end, leaf_blocks, below);
  if constexpr (kEmit) {
    SIMLOD_CUDA_CHECK_LAUNCH("bulk octant sample");
  } else {
    SIMLOD_CUDA_CHECK_LAUNCH("bulk octant mark");
  }
}

}  // namespace

bool octant_sampling(const BulkView& v) {
  const std::uint32_t g = v.tree.params.grid_bits;
  return g >= 6 && g <= 7 && v.tree.params.chunk_capacity <= kOctantItems;
}

void launch_octant_sample(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                          std::uint32_t inner_begin, std::uint32_t chunk_begin,
                          std::uint32_t chunk_end, std::uint32_t below, cudaStream_t s) {
  launch<true>(v, level, child_begin, inner_begin, chunk_begin, chunk_end, below, s);
}

void launch_octant_mark(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                        std::uint32_t inner_begin, std::uint32_t chunk_begin,
                        std::uint32_t chunk_end, std::uint32_t below, cudaStream_t s) {
  launch<false>(v, level, child_begin, inner_begin, chunk_begin, chunk_end, below, s);
}

}  // namespace simlod::detail::cuda::bulk
