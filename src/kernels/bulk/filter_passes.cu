// The CUDA bulk builder's filtered voxelizing passes (Sampling::Random, Average, Weighted)
// (kernels/bulk/build.cu drives them). First for all levels, bottom-up, then the index:
//   mark:       every leaf point sets its cell's bit in its parent's grid; every set cell of an
//               inner node's grid sets its parent cell in its parent's grid (the cells of the
//               voxels it will emit);
//   groups:     the set cells per 8 grid words (one 32-byte sector) of all levels' grids, then
//               scanned, so that a cell's voxel index is the number of set cells before it
//               (ranks descend with the address: grids grow down, the deepest level lowest),
//               less those of the deeper levels;
//   counts:     each inner node's voxels (d_cursor by rank), for the chunk passes;
// then level by level, bottom-up:
//   accumulate: every sample folds into its voxel's accumulator (atomicMax of the random key,
//               atomicAdd of the colour sums), the children's voxels with their accumulators
//               (Weighted: into the occupied cells around it, a child voxel at its centre with
//               its colour); kernels/bulk/filter_accumulate.cuh;
//   winner:     Random with channels: two more passes over the samples pick, among those of
//               the voxel's largest key, the largest record digest, then one place (the CPU's
//               tie-break), whose channel record the voxel takes;
//   emit:       every set cell writes its voxel, coloured from its accumulator, into its node's
//               chunks (in cell order) and a record for the level above; a warp shares the
//               set cells of 32 words out over its lanes.
#include "kernels/bulk/bulk_passes.hpp"
#include "kernels/bulk/filter_accumulate.cuh"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_ops.hpp"
#include "kernels/tuning.hpp"
#include "simlod/detail/sampling.hpp"

namespace simlod::detail::cuda::bulk {
namespace {

/// Blocks [0, leaf_chunks) take one leaf chunk each; the rest kBulkBlock voxels below each.
template <Sampling kMode, FilterStage kStage>
__global__ void filter_kernel(BulkView v, std::uint32_t level, std::uint32_t child_begin,
                              std::uint32_t inner_begin, std::uint32_t chunk_begin,
                              std::uint32_t leaf_chunks, std::uint32_t below) {
  constexpr bool kAccumulate = kStage == FilterStage::Fold;
  constexpr bool kWinner = kStage == FilterStage::Digest || kStage == FilterStage::Source;
  const std::uint32_t g = v.tree.params.grid_bits;
  if (blockIdx.x < leaf_chunks) {
    const std::uint32_t chunk = chunk_begin + blockIdx.x;
    const std::uint32_t leaf = v.d_owner[chunk];
    const DeviceNode n = v.tree.d_nodes[leaf];
    const std::uint32_t cap = v.tree.params.chunk_capacity;
    const std::uint32_t m = min_u32(cap, n.count - (chunk - n.head) * cap);
    const std::uint32_t rank = inner_begin + (leaf - child_begin) / 8;
    if constexpr (kMode == Sampling::Average && kAccumulate) {
      average_leaf_chunk(v, chunk, n, m, rank, level);
    } else if constexpr (kMode == Sampling::Weighted && kAccumulate) {
      for (std::uint32_t s = threadIdx.x; s < m; s += blockDim.x) {
        const LeafSample p = v.tree.leaf_point(chunk, s, n);
        const QuantPoint q = p.q;
        const std::uint32_t at[3] = {grid_position(q.x, level, g), grid_position(q.y, level, g),
                                     grid_position(q.z, level, g)};
        spread(v, rank, at, p.point.rgba);
      }
    } else {
      for (std::uint32_t s = threadIdx.x; s < m; s += blockDim.x) {
        const LeafSample p = v.tree.leaf_point(chunk, s, n);
        const QuantPoint q = p.q;
        const std::uint64_t key =
            kStage != FilterStage::Mark ? random_key(q, p.point.rgba, v.seed) : 0;
        const std::uint32_t cell = cell_index(q, level, g);
        if constexpr (kWinner) {
          const std::uint64_t place = std::uint64_t{chunk} << 32 | s;
          sample_winner<kStage>(v, rank, cell, key, place, [&] {
            return record_digest(reinterpret_cast<const std::uint8_t*>(v.record_at(place)),
                                 v.tree.record_bytes);
          });
        } else {
          sample<kMode>(v, rank, cell, kAccumulate, key, ColourSum{});
        }
      }
    }
    return;
  }
  const std::uint32_t t = (blockIdx.x - leaf_chunks) * blockDim.x + threadIdx.x;
  if (t >= below) return;
  const VoxelRecord r = v.d_below[t];
  const std::uint32_t rel = r.node - child_begin;
  if constexpr (kMode == Sampling::Weighted && kAccumulate) {
    // The child's voxel at its cell's centre, with its colour.
    const std::uint32_t mask = (1u << g) - 1u;
    const std::uint32_t at[3] = {child_cell_position(r.cell & mask, rel & 1u, g),
                                 child_cell_position((r.cell >> g) & mask, (rel >> 1) & 1u, g),
                                 child_cell_position(r.cell >> (2 * g), (rel >> 2) & 1u, g)};
    spread(v, inner_begin + rel / 8, at, r.rgba);
    return;
  }
  const std::uint32_t rank = inner_begin + rel / 8, cell = parent_cell(r.cell, rel & 7u, g);
  if constexpr (kWinner) {
    sample_winner<kStage>(v, rank, cell, v.d_keys_below[t], v.d_sources_below[t],
                          [&] { return v.d_digests_below[t]; });
    return;
  }
  ColourSum sum;
  std::uint64_t key = 0;
  if constexpr (kAccumulate) {
    if constexpr (kMode == Sampling::Random) {
      key = v.d_keys_below[t];
    } else {
      sum = sums_at(v.d_sums_below, v.narrow_below, t);
    }
  }
  sample<kMode>(v, rank, cell, kAccumulate, key, sum);
}

/// Every set cell of the grids of inner ranks [first, first + n) sets its parent cell in its
/// parent's grid (inner rank inner_begin + (node - child_begin) / 8); a thread per grid word,
/// one atomic per parent word its cells meet (one for grids of 32 cells a row or more).
__global__ void mark_parents_kernel(BulkView v, std::uint32_t first, std::uint32_t n,
                                    std::uint32_t child_begin, std::uint32_t inner_begin,
                                    std::uint64_t words_per_grid) {
  const std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= words_per_grid * n) return;
  const auto rank = static_cast<std::uint32_t>(first + i / words_per_grid);
  const auto at = static_cast<std::uint32_t>(i % words_per_grid);
  std::uint32_t word = v.tree.dense_words(rank)[at];
  if (word == 0) return;
  const std::uint32_t rel = v.d_inner[rank] - child_begin, g = v.tree.params.grid_bits;
  std::uint32_t* parent = v.tree.dense_words(inner_begin + rel / 8);
  std::uint32_t target = kNil, bits = 0;
  const auto merge = [&] {
    if ((parent[target] & bits) != bits) atomicOr(parent + target, bits);
  };
  for (; word != 0; word &= word - 1) {
    const std::uint32_t cell = parent_cell(at * 32 + __ffs(word) - 1, rel & 7u, g);
    if (cell >> 5 != target) {
      if (bits != 0) merge();
      target = cell >> 5;
      bits = 0;
    }
    bits |= 1u << (cell & 31);
  }
  merge();
}

__global__ void groups_kernel(BulkView v, std::uint64_t words, std::uint64_t groups,
                              std::uint32_t* counts) {
  const std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i > groups) return;
  std::uint32_t c = 0;
  for (std::uint64_t j = i * 8; j < i * 8 + 8 && j < words; ++j) c += __popc(v.d_level_words[j]);
  counts[i] = c;  // counts[groups] = 0: the scan's last entry is the total
}

__global__ void counts_kernel(BulkView v, std::uint32_t inner_begin, std::uint32_t n,
                              std::uint64_t words_per_grid) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const std::uint64_t off = grid_offset(v, inner_begin + t);
  // The word after the grid's last: the next lower rank's first, or the level's end.
  const std::uint64_t end = off + words_per_grid;
  const std::uint32_t last = t == 0 ? v.d_groups[(end + 7) >> 3] - v.voxel_base  // the top
                                    : voxel_index(v, end, 0);
  v.d_cursor[inner_begin + t] = last - voxel_index(v, off, 0);
}

/// Position of the n-th (from 0) set bit of `word`, which has more than n set bits.
__device__ std::uint32_t nth_set_bit(std::uint32_t word, std::uint32_t n) {
  std::uint32_t pos = 0;
  for (std::uint32_t width = 16; width > 0; width >>= 1) {
    const std::uint32_t low = __popc(word & ((1u << width) - 1u));
    if (n >= low) {
      n -= low;
      word >>= width;
      pos += width;
    }
  }
  return pos;
}

/// A warp takes 32 consecutive words and shares their set cells out evenly over its lanes (a
/// thread per word would leave most lanes idle beside a dense word's 32 serial voxels). The
/// level's grids start at word `level_off` of all levels'.
template <Sampling kMode>
__global__ void emit_kernel(BulkView v, std::uint32_t inner_begin, std::uint32_t inner,
                            std::uint64_t words_per_grid, std::uint64_t level_off) {
  const std::uint64_t words = words_per_grid * inner;
  const std::uint64_t w0 = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) & ~31ull;
  if (w0 >= words) return;  // whole warps leave together
  const std::uint32_t lane = threadIdx.x & 31u;
  const std::uint32_t word = w0 + lane < words ? v.d_level_words[level_off + w0 + lane] : 0u;
  // Set cells before each lane's word, within the warp's 32 words.
  const std::uint32_t count = __popc(word);
  std::uint32_t before = count;
  for (std::uint32_t d = 1; d < 32; d <<= 1) {
    const std::uint32_t other = __shfl_up_sync(0xffffffffu, before, d);
    if (lane >= d) before += other;
  }
  const std::uint32_t total = __shfl_sync(0xffffffffu, before, 31);
  before -= count;
  if (total == 0) return;
  const std::uint32_t base = voxel_index(v, level_off + w0, 0);
  const std::uint32_t cap = v.tree.voxels.capacity;
  for (std::uint32_t k0 = 0; k0 < total; k0 += 32) {
    const std::uint32_t k = k0 + lane;
    // The lane whose word holds the warp's k-th set cell: the last with before <= k.
    std::uint32_t j = 0;
    for (std::uint32_t step = 16; step > 0; step >>= 1) {
      const std::uint32_t b = __shfl_sync(0xffffffffu, before, j + step);
      if (b <= k) j += step;
    }
    const std::uint32_t jword = __shfl_sync(0xffffffffu, word, j);
    const std::uint32_t jbefore = __shfl_sync(0xffffffffu, before, j);
    if (k >= total) continue;
    const std::uint64_t off = w0 + j;
    const std::uint32_t rank =
        inner_begin + inner - 1 - static_cast<std::uint32_t>(off / words_per_grid);
    const std::uint32_t node_id = v.d_inner[rank];
    const DeviceNode node = v.tree.d_nodes[node_id];
    const std::uint32_t cell =
        static_cast<std::uint32_t>(off % words_per_grid) * 32 + nth_set_bit(jword, k - jbefore);
    const std::uint32_t idx = base + k;
    std::uint32_t rgba = 0;
    if constexpr (kMode == Sampling::Random) {
      rgba = static_cast<std::uint32_t>(v.d_keys[idx]);
    } else {
      rgba = sums_at(v.d_sums, v.narrow, idx).rgba();
    }
    const std::uint32_t slot = idx - voxel_index(v, grid_offset(v, rank), 0);
    put_voxel(v.tree.chunk_bytes_of(node.head + slot / cap), v.tree.voxels, slot % cap, cell, rgba);
    v.d_emit[idx] = VoxelRecord{node_id, slot, cell, rgba};
    if constexpr (kMode == Sampling::Random) {
      if (v.d_sources != nullptr) {
        copy_record(v.tree.voxel_records(node.head + slot / cap) +
                        std::uint64_t{slot % cap} * v.tree.record_bytes,
                    v.record_at(v.d_sources[idx]), v.tree.record_bytes);
      }
    }
  }
}

unsigned blocks_of(std::uint64_t n) { return blocks_for(n, kBulkBlock); }

template <Sampling kMode, FilterStage kStage>
void launch_stage(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                  std::uint32_t inner_begin, std::uint32_t leaf_chunks, std::uint32_t chunk_begin,
                  std::uint32_t below, cudaStream_t s) {
  const std::uint64_t blocks = leaf_chunks + (std::uint64_t{below} + kBulkBlock - 1) / kBulkBlock;
  if (blocks == 0) return;
  filter_kernel<kMode, kStage><<<static_cast<unsigned>(blocks), kBulkBlock, 0, s>>>(
      v, level, child_begin, inner_begin, chunk_begin, leaf_chunks, below);
}

template <Sampling kMode>
void launch_filter_mode(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                        std::uint32_t inner_begin, std::uint32_t leaf_chunks,
                        std::uint32_t chunk_begin, std::uint32_t below, FilterStage stage,
                        cudaStream_t s) {
  switch (stage) {
    case FilterStage::Mark:
      return launch_stage<kMode, FilterStage::Mark>(v, level, child_begin, inner_begin, leaf_chunks,
                                                    chunk_begin, below, s);
    case FilterStage::Fold:
      return launch_stage<kMode, FilterStage::Fold>(v, level, child_begin, inner_begin, leaf_chunks,
                                                    chunk_begin, below, s);
    case FilterStage::Digest:
      if constexpr (kMode == Sampling::Random) {
        return launch_stage<kMode, FilterStage::Digest>(v, level, child_begin, inner_begin,
                                                        leaf_chunks, chunk_begin, below, s);
      }
      break;
    case FilterStage::Source:
      if constexpr (kMode == Sampling::Random) {
        return launch_stage<kMode, FilterStage::Source>(v, level, child_begin, inner_begin,
                                                        leaf_chunks, chunk_begin, below, s);
      }
      break;
  }
}

}  // namespace

void launch_filter(const BulkView& v, std::uint32_t level, std::uint32_t child_begin,
                   std::uint32_t inner_begin, std::uint32_t chunk_begin, std::uint32_t chunk_end,
                   std::uint32_t below, FilterStage stage, cudaStream_t s) {
  const std::uint32_t leaf_chunks = chunk_end - chunk_begin;
  if (v.sampling == Sampling::Random) {
    launch_filter_mode<Sampling::Random>(v, level, child_begin, inner_begin, leaf_chunks,
                                         chunk_begin, below, stage, s);
  } else if (v.sampling == Sampling::Weighted) {
    launch_filter_mode<Sampling::Weighted>(v, level, child_begin, inner_begin, leaf_chunks,
                                           chunk_begin, below, stage, s);
  } else {
    launch_filter_mode<Sampling::Average>(v, level, child_begin, inner_begin, leaf_chunks,
                                          chunk_begin, below, stage, s);
  }
  SIMLOD_CUDA_CHECK_LAUNCH("bulk filter");
}

void launch_mark_parents(const BulkView& v, std::uint32_t first, std::uint32_t n,
                         std::uint32_t child_begin, std::uint32_t inner_begin,
                         std::uint64_t words_per_grid, cudaStream_t s) {
  if (n == 0) return;
  mark_parents_kernel<<<blocks_of(words_per_grid * n), kBulkBlock, 0, s>>>(
      v, first, n, child_begin, inner_begin, words_per_grid);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk filter parent marks");
}

void launch_groups(const BulkView& v, std::uint64_t words, std::uint32_t* counts, cudaStream_t s) {
  const std::uint64_t groups = (words + 7) / 8;
  groups_kernel<<<blocks_of(groups + 1), kBulkBlock, 0, s>>>(v, words, groups, counts);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk filter groups");
}

void launch_filter_counts(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                          std::uint64_t words_per_grid, cudaStream_t s) {
  counts_kernel<<<blocks_of(n), kBulkBlock, 0, s>>>(v, inner_begin, n, words_per_grid);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk filter counts");
}

void launch_filter_emit(const BulkView& v, std::uint32_t inner_begin, std::uint32_t n,
                        std::uint64_t words_per_grid, std::uint64_t level_off, cudaStream_t s) {
  const std::uint64_t words = words_per_grid * n;
  if (v.sampling == Sampling::Random) {
    emit_kernel<Sampling::Random>
        <<<blocks_of(words), kBulkBlock, 0, s>>>(v, inner_begin, n, words_per_grid, level_off);
  } else {  // Average and Weighted: colour sums
    emit_kernel<Sampling::Average>
        <<<blocks_of(words), kBulkBlock, 0, s>>>(v, inner_begin, n, words_per_grid, level_off);
  }
  SIMLOD_CUDA_CHECK_LAUNCH("bulk filter emit");
}

}  // namespace simlod::detail::cuda::bulk
