// The occupancy-index replay on CUDA (replay.hpp): one walk kernel per batch with the index's
// lookup and claim, then for the rank-ordered indexes a merge of the batch's new bricks.
#include <algorithm>
#include <bit>
#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <utility>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/device_ops.hpp"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/upload.cuh"
#include "occupancy/replay.hpp"
#include "simlod/detail/fenwick_math.hpp"
#include "simlod/detail/occupancy_codec.hpp"

namespace simlod::bench::occupancy {
namespace {

using detail::brick_bit;
using detail::brick_of;
using detail::kClaimingSlot;
using detail::kEmptySlot;
using detail::OccupancyLayout;

using detail::cuda::blocks_for;
using detail::cuda::DeviceMemory;
using detail::cuda::KernelTimer;
using detail::cuda::load_volatile;
using detail::cuda::make_device;
using detail::cuda::publish;
using detail::cuda::upload;

/// Device memory as an array of T.
template <class T>
T* as(const DeviceMemory& m) {
  return static_cast<T*>(m.get());
}

/// Device memory of `bytes`, every byte `fill`.
DeviceMemory filled(std::uint64_t bytes, int fill, const char* what) {
  DeviceMemory m = make_device(bytes, what);
  SIMLOD_CUDA_CHECK(cudaMemset(m.get(), fill, bytes));
  return m;
}

constexpr unsigned kBlock = 256;
constexpr std::uint32_t kBrickWords = 16;
/// Levels of a node's Fenwick tree over its bricks (at most 2^12 + 1 entries' worth).
constexpr std::uint32_t kMaxFenwickLevels = 16;

/// Blocks of a grid-stride pass over n items.
unsigned blocks(std::uint64_t n) { return blocks_for(n, kBlock, 1u << 20); }

__device__ void zero_brick(std::uint32_t* words) {
  auto* v = reinterpret_cast<uint4*>(words);
  for (std::uint32_t k = 0; k < kBrickWords / 4; ++k) v[k] = make_uint4(0, 0, 0, 0);
}

/// Everything a walk kernel reads or writes (device pointers).
struct View {
  const std::uint32_t* children;
  const std::uint32_t* grid;
  OccupancyLayout occ;
  // SlotTable
  std::uint32_t* tables;
  std::uint32_t* pool;  ///< bricks, 16 words each
  std::uint32_t* counter;
  // RankDirectory
  const unsigned long long* masks;  ///< bricks / 64 words a node
  const std::uint16_t* counts;      ///< bits before each word
  const std::uint32_t* base;        ///< a node's first brick in the pool
  // Fenwick
  const std::uint32_t* fenwick;  ///< fenwick_stride words a node
  std::uint32_t fenwick_stride;
  const std::uint64_t* fenwick_table;  ///< the block table of one node's tree
  // Staging of the rank-ordered indexes
  std::uint32_t* hash_keys;  ///< key + 1, 0 = free
  std::uint32_t* hash_vals;  ///< staged number, kEmptySlot until published
  std::uint32_t hash_mask;
  std::uint32_t* staged_pool;
  std::uint32_t* staged_keys;
  std::uint32_t* staged_at;  ///< hash slot of each staged brick
  std::uint32_t* staged_count;
  unsigned long long* visits;
};

/// The words of the brick of a slot, claiming it when it is empty.
__device__ std::uint32_t* slot_brick(const View& v, std::uint32_t* slot) {
  std::uint32_t s = *slot;
  if (s >= kClaimingSlot) {
    s = atomicCAS(slot, kEmptySlot, kClaimingSlot);
    if (s == kEmptySlot) {
      s = atomicAdd(v.counter, 1u);
      zero_brick(v.pool + std::size_t{s} * kBrickWords);
      publish(slot, s);
    } else {
      while (s == kClaimingSlot) s = load_volatile(slot);
    }
  }
  return v.pool + std::size_t{s} * kBrickWords;
}

/// The words of a new brick of this batch (a rank-ordered index): found or made in the
/// staging hash table.
__device__ std::uint32_t* staged_brick(const View& v, std::uint32_t key) {
  std::uint32_t h = (key * 0x9E3779B1u) & v.hash_mask;
  while (true) {
    std::uint32_t k = v.hash_keys[h];
    if (k == 0) k = atomicCAS(v.hash_keys + h, 0u, key + 1);
    if (k == 0) {
      const std::uint32_t n = atomicAdd(v.staged_count, 1u);
      v.staged_keys[n] = key;
      v.staged_at[n] = h;
      zero_brick(v.staged_pool + std::size_t{n} * kBrickWords);
      publish(v.hash_vals + h, n);
      return v.staged_pool + std::size_t{n} * kBrickWords;
    }
    if (k == key + 1) {
      std::uint32_t n = load_volatile(v.hash_vals + h);
      while (n == kEmptySlot) n = load_volatile(v.hash_vals + h);
      return v.staged_pool + std::size_t{n} * kBrickWords;
    }
    h = (h + 1) & v.hash_mask;
  }
}

/// The words of a brick of the rank-ordered pool (RankDirectory or Fenwick, `table` the
/// Fenwick block table), or nullptr when the node has no such brick yet.
template <IndexKind Kind>
__device__ std::uint32_t* ranked_brick(const View& v, const std::uint64_t* table, std::uint32_t g,
                                       std::uint32_t brick) {
  std::uint32_t rank = 0;
  if constexpr (Kind == IndexKind::RankDirectory) {
    const std::size_t w = std::size_t{g} * (v.occ.bricks / 64) + brick / 64;
    const unsigned long long m = __ldg(v.masks + w);
    if (((m >> (brick & 63u)) & 1ull) == 0) return nullptr;
    rank = __ldg(v.counts + w) + __popcll(m & ((1ull << (brick & 63u)) - 1ull));
  } else {
    const std::uint32_t* tree = v.fenwick + std::size_t{g} * v.fenwick_stride;
    if (detail::fenwick_value_1d(tree, table, 1, brick) == 0) return nullptr;
    rank = static_cast<std::uint32_t>(detail::fenwick_prefix_1d(tree, table, 1, brick));
  }
  return v.pool + std::size_t{__ldg(v.base + g) + rank} * kBrickWords;
}

template <IndexKind Kind>
__global__ void __launch_bounds__(kBlock)
    walk_kernel(View v, const QuantPoint* __restrict__ points, std::size_t n) {
  __shared__ std::uint64_t table[kMaxFenwickLevels + 1];
  if constexpr (Kind == IndexKind::Fenwick) {
    for (unsigned i = threadIdx.x; i <= kMaxFenwickLevels; i += blockDim.x) {
      table[i] = v.fenwick_table[i];
    }
    __syncthreads();
  }
  std::uint32_t visits = 0, sink = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const QuantPoint q = points[i];
    walk(v.children, v.grid, q, [&](std::uint32_t g, std::uint32_t level) {
      ++visits;
      const std::uint32_t cell = detail::cell_index(q, level, v.occ.grid_bits);
      const std::uint32_t brick = brick_of(cell, v.occ);
      const std::uint32_t b = brick_bit(cell, v.occ);
      std::uint32_t* words = nullptr;
      if constexpr (Kind == IndexKind::Walk) {
        sink ^= cell;
        return;
      } else if constexpr (Kind == IndexKind::SlotTable) {
        words = slot_brick(v, v.tables + std::size_t{g} * v.occ.bricks + brick);
      } else {
        words = ranked_brick<Kind>(v, table, g, brick);
        if (words == nullptr) words = staged_brick(v, g * v.occ.bricks + brick);
      }
      std::uint32_t* word = words + (b >> 5);
      const std::uint32_t bit = 1u << (b & 31u);
      if ((*word & bit) == 0) atomicOr(word, bit);
    });
  }
  for (int d = 16; d > 0; d >>= 1) visits += __shfl_down_sync(0xFFFFFFFFu, visits, d);
  if ((threadIdx.x & 31u) == 0) atomicAdd(v.visits, static_cast<unsigned long long>(visits));
  if (sink == 0xFFFFFFFFu) v.visits[1] = sink;  // keeps the Walk variant's cells computed
}

__device__ std::uint32_t lower_bound(const std::uint32_t* a, std::uint32_t n, std::uint32_t key) {
  std::uint32_t lo = 0, hi = n;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (a[mid] < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__global__ void iota_kernel(std::uint32_t* a, std::uint32_t n) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    a[i] = i;
  }
}

__device__ void copy_brick(const std::uint32_t* from, std::uint32_t* to) {
  const auto* f = reinterpret_cast<const uint4*>(from);
  auto* t = reinterpret_cast<uint4*>(to);
  for (std::uint32_t k = 0; k < kBrickWords / 4; ++k) t[k] = f[k];
}

/// The pool in rank order: old brick i moves up by the new keys before it, new brick j (in key
/// order) by the old keys before it.
__global__ void merge_kernel(const std::uint32_t* keys, const std::uint32_t* pool,
                             std::uint32_t old, const std::uint32_t* new_keys,
                             const std::uint32_t* new_at, const std::uint32_t* staged_pool,
                             std::uint32_t added, std::uint32_t* out_keys,
                             std::uint32_t* out_pool) {
  const std::uint32_t total = old + added;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += gridDim.x * blockDim.x) {
    if (i < old) {
      const std::uint32_t key = keys[i];
      const std::uint32_t to = i + lower_bound(new_keys, added, key);
      out_keys[to] = key;
      copy_brick(pool + std::size_t{i} * kBrickWords, out_pool + std::size_t{to} * kBrickWords);
    } else {
      const std::uint32_t j = i - old;
      const std::uint32_t key = new_keys[j];
      const std::uint32_t to = j + lower_bound(keys, old, key);
      out_keys[to] = key;
      copy_brick(staged_pool + std::size_t{new_at[j]} * kBrickWords,
                 out_pool + std::size_t{to} * kBrickWords);
    }
  }
}

/// Writes `value` into the field of `width` bits at bit `bit` (other threads may write other
/// fields of the same words: and/or atomics touch only this field's bits).
__device__ void store_field(std::uint32_t* words, std::uint64_t bit, std::uint32_t width,
                            std::uint32_t value) {
  for (std::uint32_t done = 0; done < width;) {
    const std::uint64_t w = (bit + done) >> 5;
    const std::uint32_t off = static_cast<std::uint32_t>((bit + done) & 31u);
    const std::uint32_t take = min(32 - off, width - done);
    const std::uint32_t mask = (take == 32 ? 0xFFFFFFFFu : ((1u << take) - 1u)) << off;
    const std::uint32_t part = (value >> done) << off;
    atomicAnd(words + w, ~mask);
    atomicOr(words + w, part & mask);
    done += take;
  }
}

/// A block per node after a merge: its first brick, and its index updated with the batch's new
/// bricks of the node (`new_keys`, sorted).
template <IndexKind Kind>
__global__ void node_kernel(View v, unsigned long long* masks, std::uint16_t* counts,
                            std::uint32_t* base, std::uint32_t* fenwick, const std::uint32_t* keys,
                            std::uint32_t total, const std::uint32_t* new_keys,
                            std::uint32_t added) {
  extern __shared__ std::uint32_t delta[];  // Fenwick: one count per element
  __shared__ std::uint32_t run[2];
  const std::uint32_t g = blockIdx.x;
  if (threadIdx.x == 0) {
    base[g] = lower_bound(keys, total, g * v.occ.bricks);
    run[0] = lower_bound(new_keys, added, g * v.occ.bricks);
    run[1] = lower_bound(new_keys, added, (g + 1) * v.occ.bricks);
  }
  __syncthreads();
  if (run[0] == run[1]) return;
  if constexpr (Kind == IndexKind::RankDirectory) {
    unsigned long long* m = masks + std::size_t{g} * (v.occ.bricks / 64);
    for (std::uint32_t j = run[0] + threadIdx.x; j < run[1]; j += blockDim.x) {
      const std::uint32_t brick = new_keys[j] - g * v.occ.bricks;
      atomicOr(m + brick / 64, 1ull << (brick & 63u));
    }
    __syncthreads();
    if (threadIdx.x == 0) {  // 64 words: a running sum
      std::uint32_t sum = 0;
      for (std::uint32_t w = 0; w < v.occ.bricks / 64; ++w) {
        counts[std::size_t{g} * (v.occ.bricks / 64) + w] = static_cast<std::uint16_t>(sum);
        sum += __popcll(m[w]);
      }
    }
  } else {
    for (std::uint32_t i = threadIdx.x; i < v.occ.bricks; i += blockDim.x) delta[i] = 0;
    __syncthreads();
    for (std::uint32_t j = run[0] + threadIdx.x; j < run[1]; j += blockDim.x) {
      // The entries that hold element k: k, k | (k + 1), ... (detail::fenwick_add).
      for (std::uint32_t k = new_keys[j] - g * v.occ.bricks; k < v.occ.bricks; k |= k + 1) {
        atomicAdd(delta + k, 1u);
      }
    }
    __syncthreads();
    std::uint32_t* tree = fenwick + std::size_t{g} * v.fenwick_stride;
    for (std::uint32_t k = threadIdx.x; k < v.occ.bricks; k += blockDim.x) {
      if (delta[k] == 0) continue;
      const std::uint32_t t = detail::fenwick_trailing_ones(k);
      const std::uint64_t value =
          detail::fenwick_entry_1d(tree, v.fenwick_table, 1, t, k >> (t + 1)) + delta[k];
      store_field(tree, v.fenwick_table[t] * 32 + std::uint64_t{k >> (t + 1)} * (1 + t), 1 + t,
                  static_cast<std::uint32_t>(value));
    }
  }
}

/// Frees the staging hash slots of the batch's new bricks.
__global__ void clear_kernel(View v, std::uint32_t added) {
  for (std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < added;
       j += gridDim.x * blockDim.x) {
    v.hash_keys[v.staged_at[j]] = 0;
    v.hash_vals[v.staged_at[j]] = kEmptySlot;
  }
}

/// Cells and digest of every brick the index knows, brick by brick of every node.
template <IndexKind Kind>
__global__ void digest_kernel(View v, std::uint64_t all, unsigned long long* out) {
  __shared__ std::uint64_t table[kMaxFenwickLevels + 1];
  if constexpr (Kind == IndexKind::Fenwick) {
    for (unsigned i = threadIdx.x; i <= kMaxFenwickLevels; i += blockDim.x) {
      table[i] = v.fenwick_table[i];
    }
  }
  __syncthreads();
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < all;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const auto g = static_cast<std::uint32_t>(i / v.occ.bricks);
    const auto brick = static_cast<std::uint32_t>(i % v.occ.bricks);
    const std::uint32_t* words = nullptr;
    if constexpr (Kind == IndexKind::SlotTable) {
      const std::uint32_t s = v.tables[i];
      if (s != kEmptySlot) words = v.pool + std::size_t{s} * kBrickWords;
    } else {
      words = ranked_brick<Kind>(v, table, g, brick);
    }
    if (words == nullptr) continue;
    unsigned long long cells = 0, digest = 0;
    for (std::uint32_t w = 0; w < kBrickWords; ++w) {
      cells += __popc(words[w]);
      digest += occupancy_digest_term(g, brick, w, words[w]);
    }
    atomicAdd(out, cells);
    atomicAdd(out + 1, digest);
    atomicAdd(out + 2, 1ull);
  }
}

template <IndexKind Kind>
void launch_walk(const View& v, const QuantPoint* points, std::size_t n) {
  walk_kernel<Kind><<<blocks(n), kBlock>>>(v, points, n);
  SIMLOD_CUDA_CHECK_LAUNCH("walk_kernel");
}

void walk_batch(IndexKind kind, const View& v, const QuantPoint* points, std::size_t n) {
  switch (kind) {
    case IndexKind::Walk: launch_walk<IndexKind::Walk>(v, points, n); break;
    case IndexKind::SlotTable: launch_walk<IndexKind::SlotTable>(v, points, n); break;
    case IndexKind::RankDirectory: launch_walk<IndexKind::RankDirectory>(v, points, n); break;
    case IndexKind::Fenwick: launch_walk<IndexKind::Fenwick>(v, points, n); break;
  }
}

}  // namespace

ReplayResult replay(const ReplayTree& tree, const std::vector<QuantPoint>& points,
                    std::size_t batch, IndexKind kind) {
  const OccupancyLayout occ = detail::occupancy_layout(tree.grid_bits, 16000);
  if (occ.bricks < 64 || occ.bricks > 4096) {
    throw std::runtime_error("occupancy replay: grids of 32 to 128 cells a side only");
  }
  const std::uint32_t grids = std::max<std::uint32_t>(tree.grids, 1);
  const std::uint64_t slots = std::uint64_t{grids} * occ.bricks;
  const bool ranked = kind == IndexKind::RankDirectory || kind == IndexKind::Fenwick;

  // One node's Fenwick tree: its block table and its words, padded to 16 bytes.
  detail::FenwickLayout fl{};
  fl.bits = 1;
  fl.n[0] = occ.bricks;
  fl.total = occ.bricks;
  fl.levels[0] = detail::fenwick_levels(occ.bricks);
  std::vector<std::uint64_t> ftable(kMaxFenwickLevels + 1, 0);
  detail::fenwick_fill_table(fl, ftable.data());
  for (std::uint32_t t = fl.levels[0] + 1; t <= kMaxFenwickLevels; ++t) {
    ftable[t] = ftable[fl.levels[0]];
  }
  const auto fstride =
      static_cast<std::uint32_t>((ftable[fl.levels[0]] + detail::kFenwickPadWords + 3) / 4 * 4);

  const DeviceMemory children = upload(tree.children, "the tree's children");
  const DeviceMemory grid = upload(tree.grid, "the tree's grid numbers");
  const DeviceMemory d_points = upload(points, "the points");
  const DeviceMemory visits = filled(2 * sizeof(unsigned long long), 0, "the visit count");
  DeviceMemory tables, pool, counter, masks, counts, base, fenwick, fenwick_table, hash_keys,
      hash_vals, staged_pool, staged_keys, staged_at, staged_count, keys, new_pool, new_keys,
      sorted_keys, sorted_at, order, sort_temp;
  View v{};
  v.children = as<std::uint32_t>(children);
  v.grid = as<std::uint32_t>(grid);
  v.occ = occ;
  v.visits = as<unsigned long long>(visits);
  std::size_t sort_bytes = 0;
  const int key_bits = std::bit_width(slots);
  if (kind == IndexKind::SlotTable) {
    tables = filled(slots * 4, 0xFF, "the slot tables");
    pool = make_device(slots * 64, "the brick pool");
    counter = filled(4, 0, "the brick count");
    v.tables = as<std::uint32_t>(tables);
    v.pool = as<std::uint32_t>(pool);
    v.counter = as<std::uint32_t>(counter);
  } else if (ranked) {
    const std::uint64_t hash = std::bit_ceil(2 * slots);
    masks = filled(slots / 8, 0, "the brick bits");
    counts = filled(slots / 64 * 2, 0, "the brick counts");
    base = filled(std::uint64_t{grids} * 4, 0, "the nodes' first bricks");
    fenwick = filled(std::uint64_t{grids} * fstride * 4, 0, "the Fenwick trees");
    fenwick_table = upload(ftable, "the Fenwick block table");
    hash_keys = filled(hash * 4, 0, "the staging keys");
    hash_vals = filled(hash * 4, 0xFF, "the staging values");
    staged_pool = make_device(slots * 64, "the staged bricks");
    staged_keys = make_device(slots * 4, "the staged keys");
    staged_at = make_device(slots * 4, "the staged hash slots");
    staged_count = filled(4, 0, "the staged count");
    pool = make_device(slots * 64, "the brick pool");
    new_pool = make_device(slots * 64, "the merged brick pool");
    keys = make_device(slots * 4, "the brick keys");
    new_keys = make_device(slots * 4, "the merged brick keys");
    sorted_keys = make_device(slots * 4, "the sorted staged keys");
    sorted_at = make_device(slots * 4, "the sorted staged places");
    order = make_device(slots * 4, "the staged places");
    SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, sort_bytes, static_cast<const std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<const std::uint32_t*>(nullptr),
        static_cast<std::uint32_t*>(nullptr), static_cast<int>(slots), 0, key_bits));
    sort_temp = make_device(sort_bytes, "the sort's scratch");
    v.pool = as<std::uint32_t>(pool);
    v.masks = as<unsigned long long>(masks);
    v.counts = as<std::uint16_t>(counts);
    v.base = as<std::uint32_t>(base);
    v.fenwick = as<std::uint32_t>(fenwick);
    v.fenwick_stride = fstride;
    v.fenwick_table = as<std::uint64_t>(fenwick_table);
    v.hash_keys = as<std::uint32_t>(hash_keys);
    v.hash_vals = as<std::uint32_t>(hash_vals);
    v.hash_mask = static_cast<std::uint32_t>(hash - 1);
    v.staged_pool = as<std::uint32_t>(staged_pool);
    v.staged_keys = as<std::uint32_t>(staged_keys);
    v.staged_at = as<std::uint32_t>(staged_at);
    v.staged_count = as<std::uint32_t>(staged_count);
  }

  ReplayResult r;
  std::uint32_t total = 0;  // bricks in the rank-ordered pool
  const auto* all = as<const QuantPoint>(d_points);
  for (std::size_t first = 0; first < points.size(); first += batch) {
    const std::size_t count = std::min(batch, points.size() - first);
    KernelTimer visit_timer;
    walk_batch(kind, v, all + first, count);
    const double visit = visit_timer.ms();
    r.visit_ms += visit;
    double merge = 0;
    if (ranked) {
      std::uint32_t added = 0;
      SIMLOD_CUDA_CHECK(cudaMemcpy(&added, v.staged_count, 4, cudaMemcpyDeviceToHost));
      KernelTimer merge_timer;
      if (added > 0) {
        iota_kernel<<<blocks(added), kBlock>>>(as<std::uint32_t>(order), added);
        SIMLOD_CUDA_CHECK_LAUNCH("iota_kernel");
        SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            as<void>(sort_temp), sort_bytes, v.staged_keys, as<std::uint32_t>(sorted_keys),
            as<std::uint32_t>(order), as<std::uint32_t>(sorted_at), static_cast<int>(added), 0,
            key_bits));
        merge_kernel<<<blocks(total + added), kBlock>>>(
            as<std::uint32_t>(keys), as<std::uint32_t>(pool), total, as<std::uint32_t>(sorted_keys),
            as<std::uint32_t>(sorted_at), v.staged_pool, added, as<std::uint32_t>(new_keys),
            as<std::uint32_t>(new_pool));
        SIMLOD_CUDA_CHECK_LAUNCH("merge_kernel");
        std::swap(keys, new_keys);
        std::swap(pool, new_pool);
        v.pool = as<std::uint32_t>(pool);
        const std::uint32_t merged = total + added;
        const std::size_t shared = kind == IndexKind::Fenwick ? occ.bricks * 4 : 0;
        if (kind == IndexKind::Fenwick) {
          node_kernel<IndexKind::Fenwick><<<grids, kBlock, shared>>>(
              v, as<unsigned long long>(masks), as<std::uint16_t>(counts), as<std::uint32_t>(base),
              as<std::uint32_t>(fenwick), as<std::uint32_t>(keys), merged,
              as<std::uint32_t>(sorted_keys), added);
        } else {
          node_kernel<IndexKind::RankDirectory><<<grids, kBlock, shared>>>(
              v, as<unsigned long long>(masks), as<std::uint16_t>(counts), as<std::uint32_t>(base),
              as<std::uint32_t>(fenwick), as<std::uint32_t>(keys), merged,
              as<std::uint32_t>(sorted_keys), added);
        }
        SIMLOD_CUDA_CHECK_LAUNCH("node_kernel");
        clear_kernel<<<blocks(added), kBlock>>>(v, added);
        SIMLOD_CUDA_CHECK_LAUNCH("clear_kernel");
        SIMLOD_CUDA_CHECK(cudaMemsetAsync(v.staged_count, 0, 4));
        // Staged bricks, hash slots at half load, sort copies; the new pool and keys.
        r.merge_bytes =
            std::max<std::uint64_t>(r.merge_bytes, std::uint64_t{added} * (64 + 4 + 4 + 16 + 12) +
                                                       std::uint64_t{merged} * (64 + 4));
        total = merged;
      }
      merge = merge_timer.ms();
      r.merge_ms += merge;
    }
    r.max_batch_ms = std::max(r.max_batch_ms, visit + merge);
  }
  SIMLOD_CUDA_CHECK(cudaDeviceSynchronize());

  const DeviceMemory out = filled(3 * sizeof(unsigned long long), 0, "the digest");
  const unsigned digest_grid = blocks(slots);
  switch (kind) {
    case IndexKind::Walk: break;
    case IndexKind::SlotTable:
      digest_kernel<IndexKind::SlotTable>
          <<<digest_grid, kBlock>>>(v, slots, as<unsigned long long>(out));
      break;
    case IndexKind::RankDirectory:
      digest_kernel<IndexKind::RankDirectory>
          <<<digest_grid, kBlock>>>(v, slots, as<unsigned long long>(out));
      break;
    case IndexKind::Fenwick:
      digest_kernel<IndexKind::Fenwick>
          <<<digest_grid, kBlock>>>(v, slots, as<unsigned long long>(out));
      break;
  }
  SIMLOD_CUDA_CHECK_LAUNCH("digest_kernel");
  unsigned long long host[3] = {0, 0, 0};
  SIMLOD_CUDA_CHECK(cudaMemcpy(host, out.get(), sizeof(host), cudaMemcpyDeviceToHost));
  unsigned long long visited = 0;
  SIMLOD_CUDA_CHECK(cudaMemcpy(&visited, v.visits, sizeof(visited), cudaMemcpyDeviceToHost));
  r.visits = visited;
  r.cells = host[0];
  r.digest = host[1];
  r.bricks = host[2];
  switch (kind) {
    case IndexKind::Walk: break;
    case IndexKind::SlotTable: r.index_bytes = slots * 4; break;
    case IndexKind::RankDirectory:
      r.index_bytes =
          std::uint64_t{grids} * (occ.bricks / 8 + occ.bricks / 64 * 2 + 4) + r.bricks * 4;
      break;
    case IndexKind::Fenwick:
      r.index_bytes = std::uint64_t{grids} * (std::uint64_t{fstride} * 4 + 4) + r.bricks * 4;
      break;
  }
  return r;
}

}  // namespace simlod::bench::occupancy
