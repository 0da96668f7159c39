// The CPU framebuffer: clearing, resolving (threads over rows) and downloading.
#include "core/cpu/render/framebuffer.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/render_math.hpp"

namespace simlod::detail::cpu {
namespace {

/// Rows per block of the parallel loops: enough work to be worth a thread hand-off.
constexpr std::size_t kRowGrain = 16;

}  // namespace

Framebuffer::Framebuffer(std::uint32_t width, std::uint32_t height, unsigned threads)
    : FramebufferSize(width, height),
      pool_(ThreadPool::shared(), threads),
      words_(pixels(), kEmptyPixel),
      rgba_(pixels(), 0) {}

void Framebuffer::clear(bool blend) {
  const std::uint64_t w = width();
  if (blend && sums_.empty()) sums_.resize(2 * pixels());
  pool_.parallel_for(height(), kRowGrain, [&](unsigned, std::size_t begin, std::size_t end) {
    std::fill(words_.begin() + begin * w, words_.begin() + end * w, kEmptyPixel);
    if (blend) std::fill(sums_.begin() + 2 * begin * w, sums_.begin() + 2 * end * w, 0);
  });
  blended_ = blend;
}

double Framebuffer::resolve(const ResolveSettings& s) {
  const auto start = std::chrono::steady_clock::now();
  const std::uint32_t w = width(), h = height();
  pool_.parallel_for(h, kRowGrain, [&](unsigned, std::size_t begin, std::size_t end) {
    for (auto row = static_cast<std::uint32_t>(begin); row < end; ++row) {
      for (std::uint32_t col = 0; col < w; ++col) {
        rgba_[std::uint64_t{row} * w + col] = resolve_pixel(
            words_.data(), blended_ ? sums_.data() : nullptr, w, h, col, row, s.background,
            s.eye_dome_lighting, s.edl_outline, s.edl_strength, s.edl_offsets);
      }
    }
  });
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::vector<std::uint8_t> Framebuffer::download() const {
  std::vector<std::uint8_t> out(rgba_.size() * 4);
  std::memcpy(out.data(), rgba_.data(), out.size());  // rgba is little-endian: r, g, b, a
  return out;
}

}  // namespace simlod::detail::cpu
