// Warp-aggregated atomics: one atomic per warp instead of one per thread where many threads
// bump the same counter (list appends, chunk ordinals) or the same node (Morton-ordered
// points of one leaf).
#pragma once

#include <cooperative_groups.h>

#include <cstdint>

namespace simlod::detail::cuda {

__device__ inline std::uint32_t lane_id() { return threadIdx.x & 31u; }

/// Returns a distinct index from `*counter` for each calling thread, with one atomic per group
/// of converged threads. May be called from divergent code.
__device__ inline std::uint32_t append_index(std::uint32_t* counter) {
  namespace cg = cooperative_groups;
  const cg::coalesced_group g = cg::coalesced_threads();
  std::uint32_t base = 0;
  if (g.thread_rank() == 0) base = atomicAdd(counter, static_cast<std::uint32_t>(g.num_threads()));
  return g.shfl(base, 0) + static_cast<std::uint32_t>(g.thread_rank());
}

/// True when every converged thread passes the same `key` (a shuffle and a vote: cheaper than
/// a match when, as in scan or Morton order, a whole warp usually shares its key).
__device__ inline bool same_key(unsigned active, std::uint32_t key) {
  const std::uint32_t first = __shfl_sync(active, key, __ffs(active) - 1);
  return __all_sync(active, key == first) != 0;
}

/// Adds 1 to `counters[key]` for each calling thread, with one atomic per group of converged
/// threads that share `key`. May be called from divergent code.
__device__ inline void add_keyed(std::uint32_t* counters, std::uint32_t key) {
  const unsigned active = __activemask();
  const unsigned peers = same_key(active, key) ? active : __match_any_sync(active, key);
  if (static_cast<int>(lane_id()) == __ffs(peers) - 1) atomicAdd(counters + key, __popc(peers));
}

/// A distinct slot of `counters[key]` for each calling thread, with one atomic per group of
/// converged threads that share `key` (in Morton order most of a warp samples into one node).
/// May be called from divergent code.
__device__ inline std::uint32_t keyed_slot(std::uint32_t* counters, std::uint32_t key) {
  const unsigned active = __activemask();
  if (same_key(active, key)) {
    const int leader = __ffs(active) - 1;
    std::uint32_t base = 0;
    if (static_cast<int>(lane_id()) == leader) base = atomicAdd(counters + key, __popc(active));
    base = __shfl_sync(active, base, leader);
    return base + __popc(active & ((1u << lane_id()) - 1u));
  }
  namespace cg = cooperative_groups;
  const cg::coalesced_group peers = cg::labeled_partition(cg::coalesced_threads(), key);
  std::uint32_t base = 0;
  if (peers.thread_rank() == 0) {
    base = atomicAdd(counters + key, static_cast<std::uint32_t>(peers.num_threads()));
  }
  return peers.shfl(base, 0) + static_cast<std::uint32_t>(peers.thread_rank());
}

/// Sets `bit` in `*word`; returns true for exactly one caller per bit that was 0 before.
/// Converged threads that target the same word OR their bits together and issue one atomicOr
/// (in Morton order most of a warp samples into the same occupancy word); among threads with
/// the same bit the lowest lane wins. May be called from divergent code.
__device__ inline bool set_bit_once_device(std::uint32_t* word, std::uint32_t bit) {
  const unsigned peers =
      __match_any_sync(__activemask(), reinterpret_cast<unsigned long long>(word));
#if __CUDA_ARCH__ >= 800
  const std::uint32_t bits = __reduce_or_sync(peers, bit);
#else
  std::uint32_t bits = 0;
  for (unsigned m = peers; m != 0; m &= m - 1) bits |= __shfl_sync(peers, bit, __ffs(m) - 1);
#endif
  const int leader = __ffs(peers) - 1;
  std::uint32_t old = 0;
  if (static_cast<int>(lane_id()) == leader) old = atomicOr(word, bits);
  old = __shfl_sync(peers, old, leader);
  const unsigned same_bit = __match_any_sync(peers, bit);
  return (old & bit) == 0 && static_cast<int>(lane_id()) == __ffs(same_bit) - 1;
}

#if __CUDA_ARCH__ >= 800
/// The largest 64-bit `value` of the lanes in `mask` (each of them calls it): the largest high
/// word, then the largest low word of the lanes that hold it.
__device__ inline unsigned long long max_sync(unsigned mask, unsigned long long value) {
  const auto hi = static_cast<std::uint32_t>(value >> 32);
  const std::uint32_t top = __reduce_max_sync(mask, hi);
  const std::uint32_t low =
      __reduce_max_sync(mask, hi == top ? static_cast<std::uint32_t>(value) : 0u);
  return (static_cast<unsigned long long>(top) << 32) | low;
}
#endif

/// Exclusive prefix sum of `value` over the full warp; `total` receives the warp's sum.
/// All 32 lanes must call it.
__device__ inline std::uint32_t warp_exclusive_sum(std::uint32_t value, std::uint32_t& total) {
  std::uint32_t inclusive = value;
  for (int d = 1; d < 32; d *= 2) {
    const std::uint32_t other = __shfl_up_sync(0xFFFFFFFFu, inclusive, d);
    if (static_cast<int>(lane_id()) >= d) inclusive += other;
  }
  total = __shfl_sync(0xFFFFFFFFu, inclusive, 31);
  return inclusive - value;
}

/// Reserves `value` entries of `*counter` per lane with one atomic per warp; returns the
/// lane's first entry. All 32 lanes must call it (lanes without work pass 0).
__device__ inline std::uint32_t warp_reserve(std::uint32_t* counter, std::uint32_t value) {
  std::uint32_t total = 0;
  const std::uint32_t offset = warp_exclusive_sum(value, total);
  std::uint32_t base = 0;
  if (lane_id() == 0 && total > 0) base = atomicAdd(counter, total);
  return __shfl_sync(0xFFFFFFFFu, base, 0) + offset;
}

/// Sum of a 64-bit value over the full warp, valid in lane 0. All 32 lanes must call it.
__device__ inline unsigned long long warp_sum(unsigned long long value) {
  for (int d = 16; d > 0; d /= 2) value += __shfl_down_sync(0xFFFFFFFFu, value, d);
  return value;
}

}  // namespace simlod::detail::cuda
