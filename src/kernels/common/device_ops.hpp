// The few device operations the pass bodies (kernels/update/pass_bodies.hpp) use, as SIMLOD_HD
// functions: on the device real atomics, read-only loads and warp-aggregated appends; on the
// host plain sequential operations, so that the same bodies run in the sequential host model
// that tests the backend's bookkeeping without a GPU (tests/kernels).
#pragma once

#include <vector_functions.h>
#include <vector_types.h>

#include <cstdint>
#include <cstring>

#include "simlod/detail/float_bits.hpp"
#include "simlod/detail/hd.hpp"

#if defined(__CUDA_ARCH__)
#include "kernels/common/warp_ops.cuh"
#endif

namespace simlod::detail::cuda {

SIMLOD_HD std::uint32_t atomic_add(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, v);
#else
  const std::uint32_t old = *p;
  *p = old + v;
  return old;
#endif
}

SIMLOD_HD void atomic_add(std::uint64_t* p, std::uint64_t v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
#else
  *p += v;
#endif
}

SIMLOD_HD std::uint32_t atomic_or(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicOr(p, v);
#else
  const std::uint32_t old = *p;
  *p = old | v;
  return old;
#endif
}

SIMLOD_HD std::uint32_t atomic_cas(std::uint32_t* p, std::uint32_t expected, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(p, expected, v);
#else
  const std::uint32_t old = *p;
  if (old == expected) *p = v;
  return old;
#endif
}

/// Publishes `v` at `p` after this thread's earlier writes (a fence, then an atomic store).
SIMLOD_HD void publish(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  __threadfence();
  atomicExch(p, v);
#else
  *p = v;
#endif
}

/// A load that sees other threads' writes of this launch (not cached in L1).
SIMLOD_HD std::uint32_t load_volatile(const std::uint32_t* p) {
  return *static_cast<const volatile std::uint32_t*>(p);
}

SIMLOD_HD void atomic_max(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  atomicMax(p, v);
#else
  if (v > *p) *p = v;
#endif
}

/// A distinct entry of the list counted by `*counter` (one atomic per converged warp group on
/// the device).
SIMLOD_HD std::uint32_t append_slot(std::uint32_t* counter) {
#if defined(__CUDA_ARCH__)
  return append_index(counter);
#else
  return (*counter)++;
#endif
}

/// Sets `bit` in `*word`; true for exactly one caller per bit that was 0 before.
SIMLOD_HD bool set_bit_once(std::uint32_t* word, std::uint32_t bit) {
#if defined(__CUDA_ARCH__)
  return set_bit_once_device(word, bit);
#else
  const bool was_clear = (*word & bit) == 0;
  *word |= bit;
  return was_clear;
#endif
}

/// A distinct slot of the per-node counter `counters[node]` (one atomic per group of converged
/// threads with the same node on the device).
SIMLOD_HD std::uint32_t node_slot(std::uint32_t* counters, std::uint32_t node) {
#if defined(__CUDA_ARCH__)
  return keyed_slot(counters, node);
#else
  return counters[node]++;
#endif
}

/// Loads of data that no thread writes during the launch (read-only data cache).
SIMLOD_HD uint4 load_readonly(const uint4* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

SIMLOD_HD uint2 load_readonly(const uint2* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

SIMLOD_HD std::uint32_t load_readonly(const std::uint32_t* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

using detail::bits_from_float;
using detail::float_from_bits;

SIMLOD_HD std::uint32_t min_u32(std::uint32_t a, std::uint32_t b) { return a < b ? a : b; }

}  // namespace simlod::detail::cuda
