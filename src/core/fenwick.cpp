// FenwickIndex: the facade, the checks and the CPU backend (the CUDA one is
// kernels/fenwick/fenwick.cu).
#include "simlod/fenwick.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>

#include "kernels/fenwick/fenwick_entry.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace {

constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 32;
constexpr std::uint64_t kNone = ~std::uint64_t{0};

/// Wall-clock milliseconds since construction.
class Stopwatch {
 public:
  [[nodiscard]] double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void check_shape(std::uint64_t n, std::uint32_t bits) {
  if (bits < 1 || bits > 32) {
    throw InvalidInput(fmt::format("FenwickIndex: {} bits per element; it takes 1 to 32", bits));
  }
  if (n == 0) throw InvalidInput("FenwickIndex: no elements");
  if (n > kMaxElements) {
    throw InvalidInput(fmt::format("FenwickIndex: {} elements; it takes at most 2^32", n));
  }
}

[[noreturn]] void too_wide(std::uint64_t index, std::uint64_t value, std::uint32_t bits) {
  throw InvalidInput(
      fmt::format("FenwickIndex: element {} is {}, wider than {} bits", index, value, bits));
}

std::uint64_t total_words(const detail::FenwickLayout& l) {
  return l.first_word[l.levels] + detail::kFenwickPadWords;
}

/// The CPU build: one pass, keeping the running sum at the start of the current block of every
/// level (an entry of level t ending at k covers the 2^t elements from k + 1 - 2^t, a
/// multiple of 2^t, where the running sum was recorded). Entries are written level by level
/// in order.
std::vector<std::uint32_t> cpu_build(std::span<const std::uint32_t> values,
                                     const detail::FenwickLayout& l) {
  std::vector<std::uint32_t> words(total_words(l), 0);
  std::array<std::uint64_t, detail::kFenwickMaxLevels> base{};
  std::array<std::uint64_t, detail::kFenwickMaxLevels> cursor{};  // bit of the next entry
  for (std::uint32_t t = 0; t < l.levels; ++t) cursor[t] = l.first_word[t] * 32;
  std::uint64_t sum = 0;
  for (std::uint64_t k = 0; k < l.n; ++k) {
    sum += values[k];
    const std::uint32_t t = detail::fenwick_trailing_ones(k);
    const std::uint64_t entry = sum - base[t];
    const std::uint32_t width = l.bits + t;
    // Append `width` bits at the level's cursor.
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
    const std::uint64_t next = k + 1;
    const std::uint32_t levels =
        next == 0 ? l.levels : std::min<std::uint32_t>(l.levels, std::countr_zero(next) + 1);
    for (std::uint32_t u = 0; u < levels; ++u) base[u] = sum;
  }
  return words;
}

}  // namespace

struct FenwickIndex::Impl {
  Backend backend = Backend::Cpu;
  detail::FenwickLayout layout;
  std::vector<std::uint32_t> host;  ///< CPU
  void* device = nullptr;           ///< CUDA
  mutable double last_ms = 0.0;

  ~Impl() {
#if SIMLOD_HAS_CUDA
    if (device != nullptr) detail::cuda::fenwick_free(device);
#endif
  }
  [[nodiscard]] const std::uint32_t* words() const {
    return backend == Backend::Cpu ? host.data() : static_cast<const std::uint32_t*>(device);
  }
};

FenwickIndex::FenwickIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FenwickIndex::FenwickIndex(FenwickIndex&&) noexcept = default;
FenwickIndex& FenwickIndex::operator=(FenwickIndex&&) noexcept = default;
FenwickIndex::~FenwickIndex() = default;

FenwickIndex FenwickIndex::build(std::span<const std::uint32_t> values, std::uint32_t bits,
                                 Backend backend) {
  check_shape(values.size(), bits);
  auto impl = std::make_unique<Impl>();
  impl->backend = resolve_backend(backend);
  impl->layout = detail::fenwick_layout(values.size(), bits);
  if (impl->backend == Backend::Cpu) {
    const std::uint64_t limit = bits == 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits);
    for (std::uint64_t i = 0; i < values.size(); ++i) {
      if (values[i] >= limit) too_wide(i, values[i], bits);
    }
    const Stopwatch watch;
    impl->host = cpu_build(values, impl->layout);
    impl->last_ms = watch.ms();
    return FenwickIndex(std::move(impl));
  }
#if SIMLOD_HAS_CUDA
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
  check_shape(n, bits);
#if SIMLOD_HAS_CUDA
  auto impl = std::make_unique<Impl>();
  impl->backend = Backend::Cuda;
  impl->layout = detail::fenwick_layout(n, bits);
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
  check_shape(n, bits);
  const detail::FenwickLayout l = detail::fenwick_layout(n, bits);
  return l.first_word[l.levels] * 4;
}

std::uint64_t FenwickIndex::size() const { return impl_->layout.n; }
std::uint32_t FenwickIndex::bits() const { return impl_->layout.bits; }
Backend FenwickIndex::backend() const { return impl_->backend; }
std::uint64_t FenwickIndex::bytes() const {
  return impl_->layout.first_word[impl_->layout.levels] * 4;
}
FenwickView FenwickIndex::view() const { return {impl_->words(), impl_->layout}; }

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

namespace {

void check_keys(std::span<const std::uint64_t> ks, std::size_t out, std::uint64_t limit,
                const char* what) {
  if (out != ks.size()) {
    throw InvalidInput(
        fmt::format("FenwickIndex::{}: {} keys but room for {} results", what, ks.size(), out));
  }
  for (std::size_t i = 0; i < ks.size(); ++i) {
    if (ks[i] >= limit) {
      throw InvalidInput(
          fmt::format("FenwickIndex::{}: key {} (at {}) is out of range (the "
                      "index holds {} elements)",
                      what, ks[i], i, limit - (what[0] == 'p' ? 1 : 0)));
    }
  }
}

}  // namespace

void FenwickIndex::prefix(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out) const {
  check_keys(ks, out.size(), size() + 1, "prefix");
  if (impl_->backend == Backend::Cpu) {
    const Stopwatch watch;
    for (std::size_t i = 0; i < ks.size(); ++i) {
      out[i] = detail::fenwick_prefix(impl_->host.data(), impl_->layout, ks[i]);
    }
    impl_->last_ms = watch.ms();
    return;
  }
#if SIMLOD_HAS_CUDA
  detail::cuda::fenwick_query(impl_->device, impl_->layout, ks.data(), out.data(), ks.size(), true,
                              impl_->last_ms);
#endif
}

void FenwickIndex::value(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out) const {
  check_keys(ks, out.size(), size(), "value");
  if (impl_->backend == Backend::Cpu) {
    const Stopwatch watch;
    for (std::size_t i = 0; i < ks.size(); ++i) {
      out[i] = detail::fenwick_value(impl_->host.data(), impl_->layout, ks[i]);
    }
    impl_->last_ms = watch.ms();
    return;
  }
#if SIMLOD_HAS_CUDA
  detail::cuda::fenwick_query(impl_->device, impl_->layout, ks.data(), out.data(), ks.size(), false,
                              impl_->last_ms);
#endif
}

void FenwickIndex::values(std::span<std::uint32_t> out) const {
  if (out.size() != size()) {
    throw InvalidInput(fmt::format("FenwickIndex::values: room for {} elements, the index holds {}",
                                   out.size(), size()));
  }
  if (impl_->backend == Backend::Cpu) {
    const Stopwatch watch;
    for (std::uint64_t k = 0; k < size(); ++k) {
      out[k] =
          static_cast<std::uint32_t>(detail::fenwick_value(impl_->host.data(), impl_->layout, k));
    }
    impl_->last_ms = watch.ms();
    return;
  }
#if SIMLOD_HAS_CUDA
  detail::cuda::fenwick_values(impl_->device, impl_->layout, out.data(), impl_->last_ms);
#endif
}

void FenwickIndex::add(std::uint64_t k, std::int64_t delta) {
  if (k >= size()) {
    throw InvalidInput(fmt::format(
        "FenwickIndex::add: element {} is out of range (the index holds {})", k, size()));
  }
  const std::uint64_t old = value(k);
  const std::int64_t now = static_cast<std::int64_t>(old) + delta;
  const std::uint64_t limit = std::uint64_t{1} << bits();
  if (now < 0 || static_cast<std::uint64_t>(now) >= limit) {
    throw InvalidInput(
        fmt::format("FenwickIndex::add: element {} would become {}, outside 0 .. {} ({} bits)", k,
                    now, limit - 1, bits()));
  }
  if (impl_->backend == Backend::Cpu) {
    for (std::uint64_t i = k; i < size(); i |= i + 1) {
      const std::uint64_t e = detail::fenwick_entry(impl_->host.data(), impl_->layout, i);
      detail::fenwick_store(impl_->host.data(), impl_->layout, i,
                            e + static_cast<std::uint64_t>(delta));
    }
    return;
  }
#if SIMLOD_HAS_CUDA
  detail::cuda::fenwick_add(impl_->device, impl_->layout, k, delta);
#endif
}

double FenwickIndex::last_ms() const { return impl_->last_ms; }

std::vector<std::uint32_t> FenwickIndex::words() const {
  if (impl_->backend == Backend::Cpu) return impl_->host;
#if SIMLOD_HAS_CUDA
  return detail::cuda::fenwick_download(impl_->device, total_words(impl_->layout));
#else
  return {};
#endif
}

}  // namespace simlod
