// FenwickIndex: the facade, the checks and the CPU backend (the CUDA one is
// kernels/fenwick/fenwick.cu).
#include "simlod/fenwick.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>

#include "core/stopwatch.hpp"
#include "kernels/fenwick/fenwick_entry.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace {

constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 32;
[[maybe_unused]] constexpr std::uint64_t kNone = ~std::uint64_t{0};  // CUDA builds
using Coords = std::array<std::uint64_t, 3>;

/// The layout of `extents` (1-3 of them) and `bits`, its block table in `table`; checked.
detail::FenwickLayout make_layout(std::span<const std::uint64_t> extents, std::uint32_t bits,
                                  std::vector<std::uint64_t>& table) {
  if (bits < 1 || bits > 32) {
    throw InvalidInput(fmt::format("FenwickIndex: {} bits per element; it takes 1 to 32", bits));
  }
  if (extents.empty() || extents.size() > 3) {
    throw InvalidInput(fmt::format("FenwickIndex: {} dimensions; it takes 1 to 3", extents.size()));
  }
  detail::FenwickLayout l;
  l.dims = static_cast<std::uint32_t>(extents.size());
  l.bits = bits;
  std::uint64_t total = 1;
  for (std::size_t a = 0; a < extents.size(); ++a) {
    if (extents[a] == 0) {
      throw InvalidInput(fmt::format("FenwickIndex: no elements (axis {} has extent 0)", a));
    }
    total = extents[a] > kMaxElements / total ? kMaxElements + 1 : total * extents[a];
    l.n[a] = extents[a];
  }
  if (total > kMaxElements) {
    throw InvalidInput("FenwickIndex: more than 2^32 elements; it takes at most 2^32");
  }
  l.total = total;
  for (std::uint32_t a = 0; a < 3; ++a) l.levels[a] = detail::fenwick_levels(l.n[a]);
  table.assign(detail::fenwick_combos(l) + 1, 0);
  detail::fenwick_fill_table(l, table.data());
  l.first_word = table.data();
  return l;
}

[[noreturn]] void too_wide(std::uint64_t index, std::uint64_t value, std::uint32_t bits) {
  throw InvalidInput(
      fmt::format("FenwickIndex: element {} is {}, wider than {} bits", index, value, bits));
}

std::uint64_t total_words(const detail::FenwickLayout& l) {
  return l.first_word[detail::fenwick_combos(l)] + detail::kFenwickPadWords;
}

/// The CPU build in one dimension: one pass, keeping the running sum at the start of the
/// current block of every level (an entry of level t ending at k covers the 2^t elements from
/// k + 1 - 2^t, a multiple of 2^t, where the running sum was recorded). Entries are appended
/// level by level in order.
void cpu_build_1d(std::span<const std::uint32_t> values, const detail::FenwickLayout& l,
                  std::vector<std::uint32_t>& words) {
  std::array<std::uint64_t, detail::kFenwickMaxLevels> base{};
  std::array<std::uint64_t, detail::kFenwickMaxLevels> cursor{};  // bit of the next entry
  for (std::uint32_t t = 0; t < l.levels[0]; ++t) cursor[t] = l.first_word[t] * 32;
  std::uint64_t sum = 0;
  for (std::uint64_t k = 0; k < l.n[0]; ++k) {
    sum += values[k];
    const std::uint32_t t = detail::fenwick_trailing_ones(k);
    const std::uint64_t entry = sum - base[t];
    const std::uint32_t width = l.bits + t;
    for (std::uint32_t done = 0; done < width;) {
      const std::uint64_t bit = cursor[t] + done;
      const std::uint32_t off = static_cast<std::uint32_t>(bit & 31u);
      const std::uint32_t take = std::min(32 - off, width - done);
      words[bit >> 5] |= static_cast<std::uint32_t>((entry >> done) << off) &
                         (take == 32 ? 0xFFFFFFFFu : (((1u << take) - 1u) << off));
      done += take;
    }
    cursor[t] += width;
    // Blocks of every level u <= ctz(k + 1) start at k + 1.
    const std::uint32_t levels = std::min<std::uint32_t>(l.levels[0], std::countr_zero(k + 1) + 1);
    for (std::uint32_t u = 0; u < levels; ++u) base[u] = sum;
  }
}

/// The CPU build in two and three dimensions: prefix sums P over (n + 1) per axis, then every
/// entry from the 2^d corners of its box.
void cpu_build_nd(std::span<const std::uint32_t> values, const detail::FenwickLayout& l,
                  std::vector<std::uint32_t>& words) {
  const std::uint64_t m0 = l.n[0] + 1, m1 = l.n[1] + 1, m2 = l.dims > 2 ? l.n[2] + 1 : 1;
  std::vector<std::uint64_t> p(m0 * m1 * m2, 0);
  auto at = [&](std::uint64_t x, std::uint64_t y, std::uint64_t z) -> std::uint64_t& {
    return p[x + m0 * (y + m1 * z)];
  };
  for (std::uint64_t z = 0; z < (l.dims > 2 ? l.n[2] : 1); ++z) {
    for (std::uint64_t y = 0; y < l.n[1]; ++y) {
      for (std::uint64_t x = 0; x < l.n[0]; ++x) {
        at(x + 1, y + 1, l.dims > 2 ? z + 1 : 0) = values[x + l.n[0] * (y + l.n[1] * z)];
      }
    }
  }
  for (std::uint64_t z = 0; z < m2; ++z) {  // inclusive sums along each axis
    for (std::uint64_t y = 0; y < m1; ++y) {
      for (std::uint64_t x = 1; x < m0; ++x) at(x, y, z) += at(x - 1, y, z);
    }
  }
  for (std::uint64_t z = 0; z < m2; ++z) {
    for (std::uint64_t y = 1; y < m1; ++y) {
      for (std::uint64_t x = 0; x < m0; ++x) at(x, y, z) += at(x, y - 1, z);
    }
  }
  for (std::uint64_t z = 1; z < m2; ++z) {
    for (std::uint64_t y = 0; y < m1; ++y) {
      for (std::uint64_t x = 0; x < m0; ++x) at(x, y, z) += at(x, y, z - 1);
    }
  }
  for (std::uint64_t i = 0; i < l.total; ++i) {
    const std::uint64_t k[3] = {i % l.n[0], (i / l.n[0]) % l.n[1], i / (l.n[0] * l.n[1])};
    std::uint64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (std::uint32_t a = 0; a < l.dims; ++a) {
      hi[a] = k[a] + 1;
      lo[a] = k[a] & (k[a] + 1);
    }
    const std::uint64_t sum = detail::fenwick_box(
        l.dims, lo, hi, [&](const std::uint64_t* c) { return at(c[0], c[1], c[2]); });
    detail::fenwick_store(words.data(), l, k, sum);
  }
}

}  // namespace

struct FenwickIndex::Impl {
  Backend backend = Backend::Cpu;
  std::vector<std::uint64_t> table;  ///< block offsets, host copy
  detail::FenwickLayout layout;      ///< first_word: table (CPU) or device_table (CUDA)
  std::vector<std::uint32_t> host;   ///< CPU words
  void* device = nullptr;            ///< CUDA words
  std::uint64_t* device_table = nullptr;
  mutable double last_ms = 0.0;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
#if SIMLOD_HAS_CUDA
    if (device != nullptr) detail::cuda::fenwick_free(device);
    if (device_table != nullptr) detail::cuda::fenwick_free(device_table);
#endif
  }
  [[nodiscard]] const std::uint32_t* words() const {
    return backend == Backend::Cpu ? host.data() : static_cast<const std::uint32_t*>(device);
  }
  /// The layout with the host table (for host arithmetic on a CUDA index too).
  [[nodiscard]] detail::FenwickLayout host_layout() const {
    detail::FenwickLayout l = layout;
    l.first_word = table.data();
    return l;
  }
  [[nodiscard]] std::uint64_t data_words() const { return table.back(); }
};

FenwickIndex::FenwickIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FenwickIndex::FenwickIndex(FenwickIndex&&) noexcept = default;
FenwickIndex& FenwickIndex::operator=(FenwickIndex&&) noexcept = default;
FenwickIndex::~FenwickIndex() = default;

FenwickIndex FenwickIndex::build(std::span<const std::uint32_t> values, std::uint32_t bits,
                                 Backend backend) {
  const std::uint64_t n = values.size();
  return build(values, std::span(&n, 1), bits, backend);
}

FenwickIndex FenwickIndex::build(std::span<const std::uint32_t> values,
                                 std::span<const std::uint64_t> extents, std::uint32_t bits,
                                 Backend backend) {
  auto impl = std::make_unique<Impl>();
  impl->layout = make_layout(extents, bits, impl->table);
  if (values.size() != impl->layout.total) {
    throw InvalidInput(fmt::format("FenwickIndex: {} values for {} elements of the extents",
                                   values.size(), impl->layout.total));
  }
  impl->backend = resolve_backend(backend);
  if (impl->backend == Backend::Cpu) {
    const std::uint64_t limit = bits == 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits);
    for (std::uint64_t i = 0; i < values.size(); ++i) {
      if (values[i] >= limit) too_wide(i, values[i], bits);
    }
    const detail::Stopwatch watch;
    impl->host.assign(total_words(impl->layout), 0);
    if (impl->layout.dims == 1) {
      cpu_build_1d(values, impl->layout, impl->host);
    } else {
      cpu_build_nd(values, impl->layout, impl->host);
    }
    impl->last_ms = watch.ms();
    return FenwickIndex(std::move(impl));
  }
#if SIMLOD_HAS_CUDA
  impl->device_table = detail::cuda::fenwick_upload_table(impl->table);
  impl->layout.first_word = impl->device_table;
  std::uint64_t bad = kNone;
  impl->device =
      detail::cuda::fenwick_build(values.data(), false, impl->layout, bad, impl->last_ms);
  if (bad != kNone) too_wide(bad, values[bad], bits);
  return FenwickIndex(std::move(impl));
#else
  throw CudaError("FenwickIndex: the CUDA backend is unavailable: simlod was built without CUDA");
#endif
}

FenwickIndex FenwickIndex::build_from_device(const std::uint32_t* device_values, std::uint64_t n,
                                             std::uint32_t bits) {
  auto impl = std::make_unique<Impl>();
  impl->layout = make_layout(std::span(&n, 1), bits, impl->table);
#if SIMLOD_HAS_CUDA
  impl->backend = Backend::Cuda;
  impl->device_table = detail::cuda::fenwick_upload_table(impl->table);
  impl->layout.first_word = impl->device_table;
  std::uint64_t bad = kNone;
  impl->device = detail::cuda::fenwick_build(device_values, true, impl->layout, bad, impl->last_ms);
  if (bad != kNone) {
    throw InvalidInput(fmt::format("FenwickIndex: element {} is wider than {} bits", bad, bits));
  }
  return FenwickIndex(std::move(impl));
#else
  (void)device_values;
  throw CudaError("FenwickIndex: the CUDA backend is unavailable: simlod was built without CUDA");
#endif
}

std::uint64_t FenwickIndex::bytes_for(std::uint64_t n, std::uint32_t bits) {
  return bytes_for(std::span(&n, 1), bits);
}

std::uint64_t FenwickIndex::bytes_for(std::span<const std::uint64_t> extents, std::uint32_t bits) {
  std::vector<std::uint64_t> table;
  (void)make_layout(extents, bits, table);
  return table.back() * 4;
}

std::uint64_t FenwickIndex::size() const { return impl_->layout.total; }
std::uint32_t FenwickIndex::dims() const { return impl_->layout.dims; }
std::array<std::uint64_t, 3> FenwickIndex::extents() const {
  return {impl_->layout.n[0], impl_->layout.n[1], impl_->layout.n[2]};
}
std::uint32_t FenwickIndex::bits() const { return impl_->layout.bits; }
Backend FenwickIndex::backend() const { return impl_->backend; }
std::uint64_t FenwickIndex::bytes() const { return impl_->data_words() * 4; }
FenwickView FenwickIndex::view() const { return {impl_->words(), impl_->layout}; }
double FenwickIndex::last_ms() const { return impl_->last_ms; }

namespace {

/// Checks coordinates: ka < n[a] (`inclusive`: <= n[a]) on the axes used, 0 on the others.
void check_coords(const detail::FenwickLayout& l, const Coords& k, bool inclusive,
                  const char* what) {
  for (std::uint32_t a = 0; a < 3; ++a) {
    const std::uint64_t limit = a < l.dims ? l.n[a] + (inclusive ? 1 : 0) : 1;
    if (k[a] >= limit) {
      throw InvalidInput(
          fmt::format("FenwickIndex::{}: coordinate {} on axis {} is out of range (extent {})",
                      what, k[a], a, a < l.dims ? l.n[a] : 1));
    }
  }
}

}  // namespace

void FenwickIndex::keys(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out,
                        bool prefix) const {
  const char* what = prefix ? "prefix" : "value";
  if (out.size() != ks.size()) {
    throw InvalidInput(fmt::format("FenwickIndex::{}: {} keys but room for {} results", what,
                                   ks.size(), out.size()));
  }
  if (dims() != 1) {
    throw InvalidInput(
        fmt::format("FenwickIndex::{}: keys address a one-dimensional index; this one has {} axes "
                    "(give coordinates)",
                    what, dims()));
  }
  for (const std::uint64_t k : ks) check_coords(impl_->layout, {k, 0, 0}, prefix, what);
  run(ks, out, prefix ? 3 : 4);
}

void FenwickIndex::prefix(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out) const {
  keys(ks, out, true);
}

void FenwickIndex::value(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out) const {
  keys(ks, out, false);
}

void FenwickIndex::box_sums(std::span<const std::array<std::uint64_t, 6>> boxes,
                            std::span<std::uint64_t> out) const {
  if (out.size() != boxes.size()) {
    throw InvalidInput(fmt::format("FenwickIndex::box_sums: {} boxes but room for {} results",
                                   boxes.size(), out.size()));
  }
  std::vector<std::uint64_t> coords(6 * boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const auto& b = boxes[i];
    check_coords(impl_->layout, {b[0], b[1], b[2]}, true, "box_sum");
    check_coords(impl_->layout, {b[3], b[4], b[5]}, true, "box_sum");
    for (std::uint32_t a = 0; a < 3; ++a) {
      if (b[a] > b[3 + a]) {
        throw InvalidInput(
            fmt::format("FenwickIndex::box_sum: on axis {} the box runs from {} "
                        "to {}",
                        a, b[a], b[3 + a]));
      }
    }
    std::copy(b.begin(), b.end(), coords.begin() + static_cast<std::ptrdiff_t>(6 * i));
  }
  run(coords, out, 2);
}

std::uint64_t FenwickIndex::prefix(std::uint64_t k) const {
  std::uint64_t out = 0;
  prefix(std::span(&k, 1), std::span(&out, 1));
  return out;
}

std::uint64_t FenwickIndex::value(std::uint64_t k) const {
  std::uint64_t out = 0;
  value(std::span(&k, 1), std::span(&out, 1));
  return out;
}

std::uint64_t FenwickIndex::prefix(const std::array<std::uint64_t, 3>& k) const {
  check_coords(impl_->layout, k, true, "prefix");
  std::uint64_t out = 0;
  run(k, std::span(&out, 1), 0);
  return out;
}

std::uint64_t FenwickIndex::value(const std::array<std::uint64_t, 3>& k) const {
  check_coords(impl_->layout, k, false, "value");
  std::uint64_t out = 0;
  run(k, std::span(&out, 1), 1);
  return out;
}

std::uint64_t FenwickIndex::box_sum(const std::array<std::uint64_t, 3>& lo,
                                    const std::array<std::uint64_t, 3>& hi) const {
  const std::array<std::uint64_t, 6> box{lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]};
  std::uint64_t out = 0;
  box_sums(std::span(&box, 1), std::span(&out, 1));
  return out;
}

void FenwickIndex::run(std::span<const std::uint64_t> coords, std::span<std::uint64_t> out,
                       int kind) const {
  if (impl_->backend == Backend::Cpu) {
    const detail::Stopwatch watch;
    const std::uint32_t* w = impl_->host.data();
    const detail::FenwickLayout& l = impl_->layout;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (kind == 3) {
        out[i] = detail::fenwick_prefix(w, l, coords[i]);
      } else if (kind == 4) {
        out[i] = detail::fenwick_value(w, l, coords[i]);
      } else if (kind == 0) {
        out[i] = detail::fenwick_prefix(w, l, coords.data() + 3 * i);
      } else if (kind == 1) {
        out[i] = detail::fenwick_value(w, l, coords.data() + 3 * i);
      } else {
        const std::uint64_t* lo = coords.data() + 6 * i;
        out[i] = detail::fenwick_box(l.dims, lo, lo + 3, [&](const std::uint64_t* c) {
          return detail::fenwick_prefix(w, l, c);
        });
      }
    }
    impl_->last_ms = watch.ms();
    return;
  }
#if SIMLOD_HAS_CUDA
  using Q = detail::cuda::FenwickQuery;
  detail::cuda::fenwick_query(impl_->device, impl_->layout, coords.data(), out.data(), out.size(),
                              kind == 3   ? Q::Prefix1
                              : kind == 4 ? Q::Value1
                              : kind == 0 ? Q::Prefix
                              : kind == 1 ? Q::Value
                                          : Q::Box,
                              impl_->last_ms);
#endif
}

void FenwickIndex::values(std::span<std::uint32_t> out) const {
  if (out.size() != size()) {
    throw InvalidInput(fmt::format("FenwickIndex::values: room for {} elements, the index holds {}",
                                   out.size(), size()));
  }
  if (impl_->backend == Backend::Cpu) {
    const detail::Stopwatch watch;
    const detail::FenwickLayout& l = impl_->layout;
    for (std::uint64_t i = 0; i < size(); ++i) {
      const std::uint64_t k[3] = {i % l.n[0], (i / l.n[0]) % l.n[1], i / (l.n[0] * l.n[1])};
      out[i] = static_cast<std::uint32_t>(detail::fenwick_value(impl_->host.data(), l, k));
    }
    impl_->last_ms = watch.ms();
    return;
  }
#if SIMLOD_HAS_CUDA
  detail::cuda::fenwick_values(impl_->device, impl_->layout, out.data(), impl_->last_ms);
#endif
}

void FenwickIndex::add(std::uint64_t k, std::int64_t delta) { add(Coords{k, 0, 0}, delta); }

void FenwickIndex::add(const std::array<std::uint64_t, 3>& k, std::int64_t delta) {
  check_coords(impl_->layout, k, false, "add");
  const std::uint64_t old = value(k);
  const std::int64_t now = static_cast<std::int64_t>(old) + delta;
  const std::uint64_t limit = std::uint64_t{1} << bits();
  if (now < 0 || static_cast<std::uint64_t>(now) >= limit) {
    throw InvalidInput(fmt::format(
        "FenwickIndex::add: element ({}, {}, {}) would become {}, outside 0 .. {} ({} bits)", k[0],
        k[1], k[2], now, limit - 1, bits()));
  }
  if (impl_->backend == Backend::Cpu) {
    detail::fenwick_add(impl_->host.data(), impl_->layout, k.data(), delta);
    return;
  }
#if SIMLOD_HAS_CUDA
  detail::cuda::fenwick_add(impl_->device, impl_->layout, k.data(), delta);
#endif
}

std::vector<std::uint32_t> FenwickIndex::words() const {
  if (impl_->backend == Backend::Cpu) return impl_->host;
#if SIMLOD_HAS_CUDA
  return detail::cuda::fenwick_download(impl_->device,
                                        impl_->data_words() + detail::kFenwickPadWords);
#else
  return {};
#endif
}

}  // namespace simlod
