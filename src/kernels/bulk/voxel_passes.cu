// The CUDA bulk builder's voxelizing passes: the inner nodes of one level sample their
// children (the leaves' chunks and the voxels of the inner children, which the level below
// emitted) into their occupancy grids; the voxels they set get chunks and are written.
#include <cub/block/block_scan.cuh>

#include "kernels/bulk/bulk_passes.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_ops.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda::bulk {
namespace {

using BlockScan = cub::BlockScan<std::uint32_t, kBulkBlock>;

/// Leaf samples a thread of the sample pass takes per step.
constexpr std::uint32_t kSamplesPerThread = 4;

/// Sets `cell` in the grid of the inner node of global rank `rank`; true for the one caller
/// that set it, which emits the voxel. A plain atomicOr per thread: grouping the lanes of one
/// word first (set_bit_once) costs a match per sample, and ncu showed this pass stalled on
/// branches with half of each warp idle.
__device__ bool take(const BulkView& v, std::uint32_t rank, std::uint32_t cell) {
  std::uint32_t* word = v.tree.dense_words(rank) + (cell >> 5);
  const std::uint32_t bit = 1u << (cell & 31);
  if ((*word & bit) != 0) return false;  // most cells are taken already
  return (atomicOr(word, bit) & bit) == 0;
}

/// The block's emitted voxels of one step get consecutive records with one atomic per block
/// (a single counter for every voxel would serialise millions of atomics on one L2 slice);
/// `slot` is the voxel's index among its node's voxels, `source` the place of the sample whose
/// record it takes (with channels). Every thread of the block calls it.
__device__ void emit(const BulkView& v, BlockScan::TempStorage& scan, std::uint32_t& shared_at,
                     bool emits, std::uint32_t node, std::uint32_t slot, std::uint32_t cell,
                     std::uint32_t rgba, std::uint64_t source) {
  std::uint32_t offset = 0, total = 0;
  BlockScan(scan).ExclusiveSum(emits ? 1u : 0u, offset, total);
  if (threadIdx.x == 0 && total > 0) shared_at = atomicAdd(v.d_counter, total);
  __syncthreads();
  const std::uint32_t at = shared_at + offset;
  if (emits && at < v.emit_capacity) {
    v.d_emit[at] = VoxelRecord{node, slot, cell, rgba};
    if (v.d_emit_source != nullptr) v.d_emit_source[at] = source;
  }
  __syncthreads();  // shared_at and the scan storage are reused by the next step
}

/// Blocks [0, leaf_chunks) take one leaf chunk each (one parent per block); the rest take
/// kBulkBlock voxels below each.
__global__ void sample_kernel(BulkView v, std::uint32_t level, std::uint32_t child_begin,
                              std::uint32_t inner_begin, std::uint32_t chunk_begin,
                              std::uint32_t leaf_chunks, std::uint32_t below) {
  __shared__ BlockScan::TempStorage scan;
  __shared__ std::uint32_t shared_at, shared_slot;
  const std::uint32_t g = v.tree.params.grid_bits;
  if (blockIdx.x < leaf_chunks) {
    const std::uint32_t chunk = chunk_begin + blockIdx.x;
    const std::uint32_t leaf = v.d_owner[chunk];
    const DeviceNode n = v.tree.d_nodes[leaf];
    const std::uint32_t cap = v.tree.params.chunk_capacity;
    const std::uint32_t m = min_u32(cap, n.count - (chunk - n.head) * cap);
    const std::uint32_t rank = inner_begin + (leaf - child_begin) / 8;
    const std::uint32_t parent = v.d_inner[rank];
    // kSamplesPerThread samples a thread per step (a chunk of 1,000 points is one step), so
    // that the step's one scan and two atomics (the parent's slots and the records) are paid
    // per chunk rather than per kBulkBlock samples.
    for (std::uint32_t step = 0; step < m; step += kSamplesPerThread * blockDim.x) {
      std::uint32_t cells[kSamplesPerThread], colours[kSamplesPerThread], taken = 0;
#pragma unroll
      for (std::uint32_t k = 0; k < kSamplesPerThread; ++k) {
        const std::uint32_t s = step + k * blockDim.x + threadIdx.x;
        cells[k] = colours[k] = 0;
        if (s < m) {
          const LeafSample p = v.tree.leaf_point(chunk, s, n);
          cells[k] = cell_index(p.q, level, g);
          colours[k] = p.point.rgba;
          if (take(v, rank, cells[k])) taken |= 1u << k;
        }
      }
      std::uint32_t offset = 0, total = 0;
      BlockScan(scan).ExclusiveSum(static_cast<std::uint32_t>(__popc(taken)), offset, total);
      if (threadIdx.x == 0 && total > 0) {
        shared_slot = atomicAdd(v.d_cursor + rank, total);
        shared_at = atomicAdd(v.d_counter, total);
      }
      __syncthreads();
#pragma unroll
      for (std::uint32_t k = 0; k < kSamplesPerThread; ++k) {
        if ((taken >> k & 1u) == 0) continue;
        const std::uint32_t at = shared_at + offset;
        if (at < v.emit_capacity) {
          v.d_emit[at] = VoxelRecord{parent, shared_slot + offset, cells[k], colours[k]};
          if (v.d_emit_source != nullptr) {
            v.d_emit_source[at] =
                std::uint64_t{chunk} << 32 | (step + k * blockDim.x + threadIdx.x);
          }
        }
        ++offset;
      }
      __syncthreads();  // shared_slot, shared_at and the scan storage are reused
    }
    return;
  }
  const std::uint32_t t = (blockIdx.x - leaf_chunks) * blockDim.x + threadIdx.x;
  bool emits = false;
  std::uint32_t node = 0, slot = 0, cell = 0, rgba = 0;
  std::uint64_t source = 0;
  if (t < below) {
    const VoxelRecord r = v.d_below[t];
    const std::uint32_t rel = r.node - child_begin;
    const std::uint32_t rank = inner_begin + rel / 8;
    cell = parent_cell(r.cell, rel & 7u, g);
    rgba = r.rgba;
    emits = take(v, rank, cell);
    if (emits) {
      node = v.d_inner[rank];
      slot = node_slot(v.d_cursor, rank);  // records come in runs of one node
      if (v.d_emit_source != nullptr) source = v.voxel_place(r);
    }
  }
  emit(v, scan, shared_at, emits, node, slot, cell, rgba, source);
}

__global__ void voxel_chunks_kernel(BulkView v, std::uint32_t inner_begin, std::uint32_t n) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const std::uint32_t cap = v.tree.voxels.capacity;
  v.d_flags[t] = (v.d_cursor[inner_begin + t] + cap - 1) / cap;
}

__global__ void give_voxel_chunks_kernel(BulkView v, std::uint32_t inner_begin, std::uint32_t n,
                                         std::uint32_t first_chunk) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const std::uint32_t k = v.d_flags[t];
  if (t + 1 == n) v.d_counter[1] = v.d_chunks[t] + k;
  DeviceNode& node = v.tree.d_nodes[v.d_inner[inner_begin + t]];
  node.count = v.d_cursor[inner_begin + t];
  node.chunks = k;
  if (k == 0) return;
  node.head = first_chunk + v.d_chunks[t];
  node.tail = node.head + k - 1;
}

__global__ void link_voxel_chunks_kernel(BulkView v, std::uint32_t inner_begin, std::uint32_t n) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const DeviceNode node = v.tree.d_nodes[v.d_inner[inner_begin + t]];
  for (std::uint32_t j = 0; j < node.chunks; ++j) {
    *v.tree.chunk_next(node.head + j) = j + 1 < node.chunks ? node.head + j + 1 : kNil;
  }
}

__global__ void write_voxels_kernel(BulkView v, std::uint32_t n) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const VoxelRecord r = v.d_emit[t];  // n <= emit_capacity: the driver checked
  const std::uint32_t cap = v.tree.voxels.capacity;
  put_voxel(v.tree.chunk_bytes_of(v.tree.d_nodes[r.node].head + r.slot / cap), v.tree.voxels,
            r.slot % cap, r.cell, r.rgba);
  if (v.d_emit_source != nullptr) {
    copy_record(v.record_at(v.voxel_place(r)), v.record_at(v.d_emit_source[t]),
                v.tree.record_bytes);
  }
}

unsigned blocks_of(std::uint64_t n) { return blocks_for(n, kBulkBlock); }

}  // namespace

void launch_sample(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                   std::uint32_t inner_begin, std::uint32_t chunk_begin, std::uint32_t chunk_end,
                   std::uint32_t below, cudaStream_t s) {
  const std::uint32_t leaf_chunks = chunk_end - chunk_begin;
  const std::uint64_t blocks = leaf_chunks + (std::uint64_t{below} + kBulkBlock - 1) / kBulkBlock;
  if (blocks == 0) return;
  sample_kernel<<<static_cast<unsigned>(blocks), kBulkBlock, 0, s>>>(
      v, level, child_begin, inner_begin, chunk_begin, leaf_chunks, below);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk sample");
}

void launch_voxel_chunks(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                         cudaStream_t s) {
  voxel_chunks_kernel<<<blocks_of(n), kBulkBlock, 0, s>>>(v, inner_begin, n);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk voxel chunks");
}

void launch_give_voxel_chunks(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                              std::uint32_t first_chunk, cudaStream_t s) {
  give_voxel_chunks_kernel<<<blocks_of(n), kBulkBlock, 0, s>>>(v, inner_begin, n, first_chunk);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk give voxel chunks");
}

void launch_link_voxel_chunks(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                              cudaStream_t s) {
  link_voxel_chunks_kernel<<<blocks_of(n), kBulkBlock, 0, s>>>(v, inner_begin, n);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk link voxel chunks");
}

void launch_write_voxels(const BulkView& v, std::uint32_t n, cudaStream_t s) {
  if (n == 0) return;
  write_voxels_kernel<<<blocks_of(n), kBulkBlock, 0, s>>>(v, n);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk write voxels");
}

}  // namespace simlod::detail::cuda::bulk
