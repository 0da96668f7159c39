// The CUDA executors of FenwickIndex (core/fenwick.cpp calls them in builds with CUDA): plain
// C++ declarations, host spans and opaque device pointers. Each runs on the current device;
// `ms` receives the device time of its kernels (CUDA events, copies to and from the host not
// counted). Layouts passed in point at the index's device table (first_word).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simlod/detail/fenwick_math.hpp"

namespace simlod::detail::cuda {

/// A device copy of a layout's block table (fenwick_combos + 1 entries), freed with
/// fenwick_free.
[[nodiscard]] std::uint64_t* fenwick_upload_table(const std::vector<std::uint64_t>& table);
/// Packs the tree of the values (device memory when `on_device`, else host memory; l.total of
/// them) into new device words (layout `l`, padding zeroed) and returns them; nothing is
/// allocated and `first_bad` names the first value wider than l.bits when there is one (else
/// ~0). Throws CapacityError or CudaError.
[[nodiscard]] void* fenwick_build(const std::uint32_t* values, bool on_device,
                                  const FenwickLayout& l, std::uint64_t& first_bad, double& ms);
void fenwick_free(void* p) noexcept;

enum class FenwickQuery { Prefix, Value, Box, Prefix1, Value1 };
/// out[i] for n queries (host spans): Prefix and Value take 3 coordinates per query, Box 6,
/// Prefix1 and Value1 one key of a one-dimensional index
/// (lo then hi); all checked by the caller.
void fenwick_query(const void* words, const FenwickLayout& l, const std::uint64_t* coords,
                   std::uint64_t* out, std::size_t n, FenwickQuery kind, double& ms);
/// Every element in order into host memory (l.total of them).
void fenwick_values(const void* words, const FenwickLayout& l, std::uint32_t* out, double& ms);
/// Adds `delta` to element k (checked by the caller to stay within the bits).
void fenwick_add(void* words, const FenwickLayout& l, const std::uint64_t* k, std::int64_t delta);
[[nodiscard]] std::vector<std::uint32_t> fenwick_download(const void* words, std::uint64_t count);

}  // namespace simlod::detail::cuda
