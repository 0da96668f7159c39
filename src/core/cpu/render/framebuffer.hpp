// The CPU framebuffer: per-pixel words and colour sums in host memory, written by the CPU
// renderer's threads with 64-bit atomics (std::atomic_ref), and an RGBA8 image.
//
// Layout: words[pixel] (8 bytes, kEmptyPixel when empty); sums[2 * pixel] = r + (g << 32),
// sums[2 * pixel + 1] = b + (count << 32) for RenderQuality::High; rgba[pixel] as Point::rgba.
#pragma once

#include <cstdint>
#include <vector>

#include "core/framebuffer_store.hpp"
#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {

class Framebuffer : public FramebufferSize {
 public:
  Framebuffer(std::uint32_t width, std::uint32_t height, unsigned threads);

  double resolve(const ResolveSettings& settings);
  [[nodiscard]] std::vector<std::uint8_t> download() const;
  [[nodiscard]] std::vector<std::uint64_t> download_words() const { return words_; }

  /// Empties the words; `blend` (High quality) also zeroes the sums, which it allocates once.
  void clear(bool blend);
  [[nodiscard]] std::uint64_t* words() { return words_.data(); }
  [[nodiscard]] std::uint64_t* sums() { return sums_.data(); }
  [[nodiscard]] PoolView& pool() { return pool_; }

 private:
  PoolView pool_;  ///< the library pool, limited to the framebuffer's cpu_threads
  std::vector<std::uint64_t> words_;
  std::vector<std::uint64_t> sums_;
  std::vector<std::uint32_t> rgba_;
  bool blended_ = false;  ///< the last render was High quality: resolve averages the sums
};

}  // namespace simlod::detail::cpu
