// RankBitmap: the facade, the checks and the CPU backend (the CUDA one is
// kernels/fenwick/rank_bitmap.cu).
#include "simlod/rank_bitmap.hpp"

#include <fmt/format.h>

#include "core/stopwatch.hpp"
#include "kernels/fenwick/fenwick_entry.hpp"
#include "kernels/fenwick/rank_bitmap_entry.hpp"
#include "simlod/error.hpp"

namespace simlod {

struct RankBitmap::Impl {
  Backend backend = Backend::Cpu;
  std::uint64_t n = 0;
  std::vector<std::uint32_t> host;  ///< CPU words, then counts
  void* device = nullptr;           ///< CUDA words, then counts
  mutable double last_ms = 0.0;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
#if SIMLOD_HAS_CUDA
    if (device != nullptr) detail::cuda::fenwick_free(device);
#endif
  }
  [[nodiscard]] const std::uint32_t* data() const {
    return backend == Backend::Cpu ? host.data() : static_cast<const std::uint32_t*>(device);
  }
  [[nodiscard]] RankBitmapView view() const {
    return {data(), data() + detail::bitmap_words(n), n};
  }
  [[nodiscard]] std::vector<std::uint32_t> download(std::uint64_t first,
                                                    std::uint64_t count) const {
    if (backend == Backend::Cpu) {
      return {host.begin() + static_cast<std::ptrdiff_t>(first),
              host.begin() + static_cast<std::ptrdiff_t>(first + count)};
    }
#if SIMLOD_HAS_CUDA
    return detail::cuda::fenwick_download(static_cast<const std::uint32_t*>(device) + first, count);
#else
    return {};
#endif
  }
};

namespace {

[[noreturn]] void not_a_bit(std::uint64_t index, std::uint32_t value) {
  throw InvalidInput(
      fmt::format("RankBitmap: element {} is {}; elements are 0 or 1", index, value));
}

/// The CPU build: words, then the counts before each block.
void cpu_build(std::span<const std::uint32_t> values, std::vector<std::uint32_t>& out) {
  const std::uint64_t nw = detail::bitmap_words(values.size());
  out.assign(nw + nw / 4, 0);
  for (std::uint64_t i = 0; i < values.size(); ++i) {
    if (values[i] > 1) not_a_bit(i, values[i]);
    out[i >> 5] |= values[i] << (i & 31u);
  }
  std::uint32_t sum = 0;
  for (std::uint64_t j = 0; j < nw / 4; ++j) {
    out[nw + j] = sum;
    for (std::uint64_t w = 4 * j; w < 4 * j + 4; ++w) sum += detail::bitmap_popcount(out[w]);
  }
}

}  // namespace

RankBitmap::RankBitmap(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RankBitmap::RankBitmap(RankBitmap&&) noexcept = default;
RankBitmap& RankBitmap::operator=(RankBitmap&&) noexcept = default;
RankBitmap::~RankBitmap() = default;

RankBitmap RankBitmap::build(std::span<const std::uint32_t> values, Backend backend) {
  if (values.empty()) throw InvalidInput("RankBitmap: no elements");
  if (values.size() > (std::uint64_t{1} << 32)) {
    throw InvalidInput("RankBitmap: more than 2^32 elements; it takes at most 2^32");
  }
  auto impl = std::make_unique<Impl>();
  impl->n = values.size();
  impl->backend = resolve_backend(backend);
  if (impl->backend == Backend::Cpu) {
    const detail::Stopwatch watch;
    cpu_build(values, impl->host);
    impl->last_ms = watch.ms();
    return RankBitmap(std::move(impl));
  }
#if SIMLOD_HAS_CUDA
  std::uint64_t bad = ~std::uint64_t{0};
  impl->device = detail::cuda::bitmap_build(values.data(), values.size(), bad, impl->last_ms);
  if (impl->device == nullptr) not_a_bit(bad, values[bad]);
  return RankBitmap(std::move(impl));
#else
  throw CudaError("RankBitmap: the CUDA backend is unavailable: simlod was built without CUDA");
#endif
}

std::uint64_t RankBitmap::bytes_for(std::uint64_t n) {
  const std::uint64_t nw = detail::bitmap_words(n);
  return 4 * (nw + nw / 4);
}

std::uint64_t RankBitmap::size() const { return impl_->n; }
Backend RankBitmap::backend() const { return impl_->backend; }
std::uint64_t RankBitmap::bytes() const { return bytes_for(impl_->n); }
RankBitmapView RankBitmap::view() const { return impl_->view(); }
double RankBitmap::last_ms() const { return impl_->last_ms; }

std::uint64_t RankBitmap::rank(std::uint64_t k) const {
  std::uint64_t out = 0;
  rank(std::span(&k, 1), std::span(&out, 1));
  return out;
}

void RankBitmap::rank(std::span<const std::uint64_t> ks, std::span<std::uint64_t> out) const {
  if (out.size() != ks.size()) {
    throw InvalidInput(
        fmt::format("RankBitmap::rank: {} keys but room for {} results", ks.size(), out.size()));
  }
  for (const std::uint64_t k : ks) {
    if (k > impl_->n) {
      throw InvalidInput(
          fmt::format("RankBitmap::rank: key {} is out of range (size {})", k, impl_->n));
    }
  }
  if (impl_->backend == Backend::Cpu) {
    const detail::Stopwatch watch;
    const RankBitmapView v = view();
    for (std::size_t i = 0; i < ks.size(); ++i) out[i] = detail::bitmap_rank(v, ks[i]);
    impl_->last_ms = watch.ms();
    return;
  }
#if SIMLOD_HAS_CUDA
  detail::cuda::bitmap_rank(impl_->device, impl_->n, ks.data(), out.data(), ks.size(),
                            impl_->last_ms);
#endif
}

void RankBitmap::values(std::span<std::uint32_t> out) const {
  if (out.size() != impl_->n) {
    throw InvalidInput(fmt::format("RankBitmap::values: room for {} elements, the bitmap holds {}",
                                   out.size(), impl_->n));
  }
  if (impl_->backend == Backend::Cpu) {
    const detail::Stopwatch watch;
    const RankBitmapView v = view();
    for (std::uint64_t i = 0; i < impl_->n; ++i) out[i] = detail::bitmap_get(v, i);
    impl_->last_ms = watch.ms();
    return;
  }
#if SIMLOD_HAS_CUDA
  detail::cuda::bitmap_values(impl_->device, impl_->n, out.data(), impl_->last_ms);
#endif
}

std::vector<std::uint32_t> RankBitmap::words() const {
  return impl_->download(0, detail::bitmap_words(impl_->n));
}

std::vector<std::uint32_t> RankBitmap::counts() const {
  const std::uint64_t nw = detail::bitmap_words(impl_->n);
  return impl_->download(nw, nw / 4);
}

}  // namespace simlod
