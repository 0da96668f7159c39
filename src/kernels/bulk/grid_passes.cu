// The CUDA bulk builder's last passes: it voxelizes into dense grids (the ranks of a level's
// cells come from their words), and the tree keeps them block-sparse
// (detail/occupancy_codec.hpp): the bricks with a set cell are numbered in (grid, brick) order
// and copied into pages, and the slot tables take the dense grids' place.
#include "kernels/bulk/bulk_passes.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/launch.hpp"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda::bulk {
namespace {

/// Word w (0 .. 15) of brick k of dense grid `rank`: brick byte j holds the 8 cells of row
/// (y, z) = (j % 8, j / 8) of the brick, which lie in one byte of the dense grid.
__device__ std::uint32_t dense_brick_word(const TreeView& t, std::uint32_t rank, std::uint32_t k,
                                          std::uint32_t w) {
  const OccupancyLayout& o = t.occupancy;
  const std::uint32_t* dense = t.dense_words(rank);
  if (o.brick_bits < 3) return w < 2 ? dense[w] : 0u;  // the whole grid: at most 64 cells
  const std::uint32_t g = o.grid_bits, per = g - 3, mask = (1u << per) - 1u;
  const std::uint64_t x = std::uint64_t{k & mask} * 8;
  const std::uint32_t by = ((k >> per) & mask) * 8, bz = (k >> (2 * per)) * 8;
  std::uint32_t word = 0;
  for (std::uint32_t j = 0; j < 4; ++j) {
    const std::uint32_t row = 4 * w + j;
    const std::uint64_t bit =
        x + (std::uint64_t{by + (row & 7u)} << g) + (std::uint64_t{bz + (row >> 3)} << (2 * g));
    word |= ((dense[bit >> 5] >> (bit & 31u)) & 0xffu) << (8 * j);
  }
  return word;
}

__global__ void brick_flags_kernel(TreeView t, std::uint32_t first, std::uint64_t items,
                                   std::uint32_t* flags) {
  const std::uint32_t per = t.occupancy.bricks;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < items;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const auto rank = static_cast<std::uint32_t>(first + i / per);
    const auto k = static_cast<std::uint32_t>(i % per);
    std::uint32_t any = 0;
    for (std::uint32_t w = 0; w < kBrickBytes / 4; ++w) any |= dense_brick_word(t, rank, k, w);
    flags[i] = any != 0 ? 1u : 0u;
  }
}

__global__ void brick_copy_kernel(TreeView t, std::uint32_t first, std::uint64_t items,
                                  const std::uint32_t* flags, const std::uint32_t* numbers,
                                  std::uint32_t base, std::uint32_t first_chunk,
                                  std::uint32_t* slots) {
  const std::uint32_t per = t.occupancy.bricks, per_page = t.occupancy.bricks_per_page;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < items;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (flags[i] == 0) {
      slots[i] = kEmptySlot;
      continue;
    }
    const auto rank = static_cast<std::uint32_t>(first + i / per);
    const auto k = static_cast<std::uint32_t>(i % per);
    const std::uint32_t number = base + numbers[i];
    const std::uint32_t unit = t.brick_unit(first_chunk + number / per_page, number % per_page);
    std::uint32_t* brick = t.brick_words(unit);
    for (std::uint32_t w = 0; w < kBrickBytes / 4; ++w) brick[w] = dense_brick_word(t, rank, k, w);
    slots[i] = unit;
  }
}

__global__ void brick_tables_kernel(TreeView t, std::uint64_t items, const std::uint32_t* slots) {
  const std::uint32_t per = t.occupancy.bricks;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < items;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    t.grid_table(static_cast<std::uint32_t>(i / per))[i % per] = slots[i];
  }
}

}  // namespace

void launch_brick_flags(const TreeView& t, std::uint32_t first, std::uint32_t n,
                        std::uint32_t* flags, cudaStream_t stream) {
  const std::uint64_t items = std::uint64_t{n} * t.occupancy.bricks;
  brick_flags_kernel<<<blocks_for(items, kBulkBlock), kBulkBlock, 0, stream>>>(t, first, items,
                                                                               flags);
  SIMLOD_CUDA_CHECK_LAUNCH("brick_flags_kernel");
}

void launch_brick_copy(const TreeView& t, std::uint32_t first, std::uint32_t n,
                       const std::uint32_t* flags, const std::uint32_t* numbers, std::uint32_t base,
                       std::uint32_t first_chunk, std::uint32_t* slots, cudaStream_t stream) {
  const std::uint64_t items = std::uint64_t{n} * t.occupancy.bricks;
  brick_copy_kernel<<<blocks_for(items, kBulkBlock), kBulkBlock, 0, stream>>>(
      t, first, items, flags, numbers, base, first_chunk, slots);
  SIMLOD_CUDA_CHECK_LAUNCH("brick_copy_kernel");
}

void launch_brick_tables(const TreeView& t, std::uint32_t n, const std::uint32_t* slots,
                         cudaStream_t stream) {
  const std::uint64_t items = std::uint64_t{n} * t.occupancy.bricks;
  brick_tables_kernel<<<blocks_for(items, kBulkBlock), kBulkBlock, 0, stream>>>(t, items, slots);
  SIMLOD_CUDA_CHECK_LAUNCH("brick_tables_kernel");
}

}  // namespace simlod::detail::cuda::bulk
