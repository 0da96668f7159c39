// The CUDA bulk builder's split passes (kernels/bulk/bulk_view.hpp): counting the points into
// blocks of counters, refining cells over the leaf limit, the leaves' cells, chunks and the
// points written into them (the node layout between them is layout_pass.cu's).
#include "kernels/bulk/bulk_passes.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_ops.hpp"
#include "kernels/common/warp_ops.cuh"
#include "kernels/tuning.hpp"

namespace simlod::detail::cuda::bulk {
namespace {

static_assert(kBulkRootLevels + 1 <= 10 && kBulkBlockLevels + 1 <= 10,
              "pyramid_level() and finest_cell() compute in 32 bits");

__device__ uint4 load_point(const BulkView& v, std::uint32_t i) {
  return load_readonly(reinterpret_cast<const uint4*>(v.d_points + i));
}

__device__ QuantPoint quantized(const BulkView& v, const uint4& p) {
  if (v.quantized_input) return QuantPoint{p.x, p.y, p.z};
  return quantize(Point{__uint_as_float(p.x), __uint_as_float(p.y), __uint_as_float(p.z), p.w},
                  v.tree.quant_scale);
}

/// The passes over the points take kSplitPoints each a thread, a block's in strides of its
/// size, all loaded before any is used: more loads in flight than a point a thread.
constexpr std::uint32_t kSplitPoints = 4;

/// Calls fn(point, index) for this thread's points.
template <class Fn>
__device__ void for_each_point(const BulkView& v, Fn fn) {
  const std::uint64_t first = std::uint64_t{blockIdx.x} * kSplitPoints * blockDim.x + threadIdx.x;
  uint4 p[kSplitPoints];
#pragma unroll
  for (std::uint32_t k = 0; k < kSplitPoints; ++k) {
    const std::uint64_t i = first + std::uint64_t{k} * blockDim.x;
    if (i < v.points) p[k] = load_point(v, static_cast<std::uint32_t>(i));
  }
#pragma unroll
  for (std::uint32_t k = 0; k < kSplitPoints; ++k) {
    const std::uint64_t i = first + std::uint64_t{k} * blockDim.x;
    if (i < v.points) fn(p[k], static_cast<std::uint32_t>(i));
  }
}

__global__ void count_kernel(BulkView v, std::uint32_t first_block) {
  for_each_point(v, [&](const uint4& p, std::uint32_t) {
    const QuantPoint q = quantized(v, p);
    // The counter's index fits 32 bits (the root pyramid and 4,681 counters a block).
    std::uint32_t at = 0;
    if (first_block == 0) {  // the first round: no cell is refined yet, all count in the root
      const CountBlock b = v.d_blocks[0];
      at = static_cast<std::uint32_t>(pyramid_level(b.k)) + finest_cell(q, b);
    } else {
      std::uint32_t block = 0, cell = 0;
      (void)v.walk(q, block, cell);
      if (block < first_block) return;  // counted in an earlier round
      const CountBlock b = v.d_blocks[block];
      at = static_cast<std::uint32_t>(b.offset + pyramid_level(b.k) + cell);
    }
    // One atomic per group of lanes with the same cell: in scan or Morton order most of a warp
    // counts into one or two cells, and same-address atomics serialise in L2.
    add_keyed(v.d_count, at);
  });
}

/// Blocks [first, last) by blockIdx.y (strided), their finest cells by blockIdx.x (strided).
template <class Fn>
__device__ void for_each_finest(const BulkView& v, std::uint32_t first, std::uint32_t last, Fn fn) {
  for (std::uint32_t block = first + blockIdx.y; block < last; block += gridDim.y) {
    const CountBlock b = v.d_blocks[block];
    const std::uint32_t cells = 1u << (3 * b.k);
    const std::uint64_t finest = b.offset + pyramid_level(b.k);
    for (std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x; c < cells;
         c += gridDim.x * blockDim.x) {
      fn(b, finest, c);
    }
  }
}

__global__ void refine_kernel(BulkView v, std::uint32_t first, std::uint32_t last,
                              std::uint32_t next, std::uint64_t root_size, bool assign) {
  for_each_finest(v, first, last, [&](const CountBlock& b, std::uint64_t finest, std::uint32_t c) {
    const std::uint32_t level = b.level + b.k;
    if (v.d_count[finest + c] <= v.limit || level >= v.max_depth) return;
    const std::uint32_t k = atomicAdd(v.d_counter, 1u);
    if (!assign) return;
    const std::uint32_t id = next + k;
    CountBlock child{};
    child.level = level;
    child.k = min_u32(kBulkBlockLevels, v.max_depth - level);
    child.x = b.x << b.k | compact_bits_3d(c);
    child.y = b.y << b.k | compact_bits_3d(c >> 1);
    child.z = b.z << b.k | compact_bits_3d(c >> 2);
    child.offset = root_size + std::uint64_t{id - 1} * pyramid_size(kBulkBlockLevels);
    v.d_blocks[id] = child;
    v.d_link[finest + c] = kExtBit | id;
  });
}

/// Level j of the root block from level j + 1.
__global__ void reduce_root_kernel(BulkView v, std::uint32_t j) {
  const std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= (std::uint64_t{1} << (3 * j))) return;
  const std::uint32_t* below = v.d_count + pyramid_level(j + 1) + 8 * i;
  std::uint32_t sum = 0;
  for (int o = 0; o < 8; ++o) sum += below[o];
  v.d_count[pyramid_level(j) + i] = sum;
}

/// Every refining block's pyramid, one CUDA block per counter block (strided).
__global__ void reduce_blocks_kernel(BulkView v, std::uint32_t blocks) {
  for (std::uint32_t block = 1 + blockIdx.x; block < blocks; block += gridDim.x) {
    const CountBlock b = v.d_blocks[block];
    for (std::uint32_t j = b.k - 1; j >= 1; --j) {
      std::uint32_t* level = v.d_count + b.offset + pyramid_level(j);
      const std::uint32_t* below = v.d_count + b.offset + pyramid_level(j + 1);
      for (std::uint32_t i = threadIdx.x; i < (1u << (3 * j)); i += blockDim.x) {
        std::uint32_t sum = 0;
        for (int o = 0; o < 8; ++o) sum += below[8 * i + o];
        level[i] = sum;
      }
      __syncthreads();
    }
  }
}

__global__ void leaf_links_kernel(BulkView v, std::uint32_t first, std::uint32_t last) {
  for_each_finest(v, first, last, [&](const CountBlock& b, std::uint64_t finest, std::uint32_t c) {
    const std::uint32_t e = v.d_link[finest + c];
    if (e != kNil && (e & kExtBit) != 0) return;  // refined
    // The deepest node on the cell's chain in this block is its leaf; none at all only when
    // the root itself is a leaf.
    std::uint32_t leaf = 0;
    for (std::uint32_t j = b.k; j >= 1; --j) {
      const std::uint32_t id = v.d_node[b.offset + pyramid_level(j) + (c >> (3 * (b.k - j)))];
      if (id != kNil) {
        leaf = id;
        break;
      }
    }
    v.d_link[finest + c] = leaf;
  });
}

__global__ void leaf_chunks_kernel(BulkView v, std::uint32_t nodes) {
  const std::uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= nodes) return;
  const bool leaf = v.tree.d_links[id].first_child == kNil;
  const std::uint32_t cap = v.tree.params.chunk_capacity;
  v.d_flags[id] = leaf ? (v.tree.d_nodes[id].count + cap - 1) / cap : 0u;
}

__global__ void give_chunks_kernel(BulkView v, std::uint32_t nodes) {
  const std::uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= nodes) return;
  const std::uint32_t k = v.d_flags[id];
  if (k == 0) return;
  const std::uint32_t head = v.d_chunks[id];
  DeviceNode& n = v.tree.d_nodes[id];
  n.chunks = k;
  n.head = head;
  n.tail = head + k - 1;
  for (std::uint32_t j = 0; j < k; ++j) {
    *v.tree.chunk_next(head + j) = j + 1 < k ? head + j + 1 : kNil;
    v.d_owner[head + j] = id;
  }
}

__global__ void insert_kernel(BulkView v) {
  for_each_point(v, [&](const uint4& p, std::uint32_t index) {
    std::uint32_t block = 0, cell = 0;
    const QuantPoint q = quantized(v, p);
    const std::uint32_t leaf = v.walk(q, block, cell);
    if (leaf == kNil || (leaf & kExtBit) != 0) {
      v.tree.flag(kOverflowChunks);  // a bug: a point without its leaf
      return;
    }
    const std::uint32_t slot = node_slot(v.d_cursor, leaf);
    const std::uint32_t cap = v.tree.params.chunk_capacity;
    const std::uint32_t chunk = v.tree.d_nodes[leaf].head + slot / cap;
    if (v.tree.leaf_layout.quantized) {  // rounded to its final leaf (detail/point_codec.hpp)
      const std::uint32_t level = v.tree.d_nodes[leaf].level;
      v.tree.put_point(chunk, slot % cap,
                       Point{__uint_as_float(p.x), __uint_as_float(p.y), __uint_as_float(p.z), p.w},
                       round_to_leaf(q, level), level);
    } else {
      *reinterpret_cast<uint4*>(v.tree.chunk_data(chunk) + slot % cap) = p;
    }
    if (v.tree.record_bytes != 0) {
      const std::uint32_t bytes = v.tree.record_bytes;
      copy_record(v.tree.chunk_records(chunk) + std::uint64_t{slot % cap} * bytes,
                  v.d_records + std::uint64_t{index} * bytes, bytes);
    }
  });
}

unsigned blocks_of(std::uint64_t n) { return blocks_for(n, kBulkBlock); }

/// Blocks for for_each_point over every point.
unsigned point_blocks(const BulkView& v) {
  return blocks_for(v.points, kBulkBlock * static_cast<int>(kSplitPoints));
}

/// Grid for for_each_finest over `blocks` counter blocks of up to 8^k cells.
dim3 finest_grid(std::uint32_t blocks, std::uint32_t k) {
  const std::uint64_t cells = std::uint64_t{1} << (3 * k);
  return dim3(blocks_for(cells, kBulkBlock, 4096), blocks < 65535 ? blocks : 65535);
}

}  // namespace

void launch_count(const BulkView& v, std::uint32_t first_block, cudaStream_t s) {
  count_kernel<<<point_blocks(v), kBulkBlock, 0, s>>>(v, first_block);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk count");
}

void launch_refine(const BulkView& v, std::uint32_t first, std::uint32_t last, std::uint32_t next,
                   std::uint32_t root_levels, bool assign, cudaStream_t s) {
  const std::uint32_t k = first == 0 ? root_levels : kBulkBlockLevels;
  refine_kernel<<<finest_grid(last - first, k), kBulkBlock, 0, s>>>(
      v, first, last, next, pyramid_size(root_levels), assign);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk refine");
}

void launch_reduce(const BulkView& v, std::uint32_t blocks, std::uint32_t root_levels,
                   cudaStream_t s) {
  for (std::uint32_t j = root_levels - 1; j >= 1; --j) {
    reduce_root_kernel<<<blocks_of(std::uint64_t{1} << (3 * j)), kBulkBlock, 0, s>>>(v, j);
    SIMLOD_CUDA_CHECK_LAUNCH("bulk reduce");
  }
  if (blocks > 1) {
    reduce_blocks_kernel<<<blocks - 1 < 4096 ? blocks - 1 : 4096, kBulkBlock, 0, s>>>(v, blocks);
    SIMLOD_CUDA_CHECK_LAUNCH("bulk reduce blocks");
  }
}

void launch_leaf_links(const BulkView& v, std::uint32_t blocks, std::uint32_t root_levels,
                       cudaStream_t s) {
  leaf_links_kernel<<<finest_grid(1, root_levels), kBulkBlock, 0, s>>>(v, 0, 1);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk leaf links");
  if (blocks > 1) {
    leaf_links_kernel<<<finest_grid(blocks - 1, kBulkBlockLevels), kBulkBlock, 0, s>>>(v, 1,
                                                                                       blocks);
    SIMLOD_CUDA_CHECK_LAUNCH("bulk leaf links of refining blocks");
  }
}

void launch_leaf_chunks(const BulkView& v, std::uint32_t nodes, cudaStream_t s) {
  leaf_chunks_kernel<<<blocks_of(nodes), kBulkBlock, 0, s>>>(v, nodes);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk leaf chunks");
}

void launch_give_chunks(const BulkView& v, std::uint32_t nodes, cudaStream_t s) {
  give_chunks_kernel<<<blocks_of(nodes), kBulkBlock, 0, s>>>(v, nodes);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk give chunks");
}

void launch_insert(const BulkView& v, cudaStream_t s) {
  insert_kernel<<<point_blocks(v), kBulkBlock, 0, s>>>(v);
  SIMLOD_CUDA_CHECK_LAUNCH("bulk insert");
}

}  // namespace simlod::detail::cuda::bulk
