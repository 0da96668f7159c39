// The contract behind simlod::Framebuffer: a store of per-pixel framebuffer words (and colour
// sums for RenderQuality::High) on one backend, which the backend's renderer writes and
// resolve() turns into RGBA8. CPU: core/cpu_framebuffer.hpp; CUDA: kernels/cuda_framebuffer.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "simlod/backend.hpp"
#include "simlod/framebuffer.hpp"

namespace simlod::detail {

struct ResolveSettings {
  std::uint32_t background = 0;
  bool eye_dome_lighting = false;
  float edl_strength = 1.0f;
  std::uint32_t edl_radius = 1;
};

class FramebufferStore {
 public:
  FramebufferStore(std::uint32_t width, std::uint32_t height) : width_(width), height_(height) {}
  virtual ~FramebufferStore() = default;
  FramebufferStore(const FramebufferStore&) = delete;
  FramebufferStore& operator=(const FramebufferStore&) = delete;

  [[nodiscard]] virtual Backend kind() const = 0;
  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  [[nodiscard]] std::uint64_t pixels() const { return std::uint64_t{width_} * height_; }

  /// Resolves the words (and sums, when the last render was High quality) to RGBA8; returns the
  /// time it took in milliseconds (device time on CUDA).
  virtual double resolve(const ResolveSettings& settings) = 0;
  [[nodiscard]] virtual std::vector<std::uint8_t> download() const = 0;
  /// The framebuffer words, row-major, top row first.
  [[nodiscard]] virtual std::vector<std::uint64_t> download_words() const = 0;
  virtual void wrap_device_rgba8(void* d_pixels, std::size_t pitch_bytes) = 0;

 private:
  std::uint32_t width_, height_;
};

/// Throws InvalidInput, prefixed by `where`, for an eye-dome strength that is negative or not
/// finite or a radius outside 1 .. 64 (View::validate and Framebuffer::resolve).
void validate_edl(float strength, std::uint32_t radius, std::string_view where);

/// Reaches the store of a Framebuffer (for rasterize()).
struct FramebufferAccess {
  static FramebufferStore& store(Framebuffer& fb) { return fb.store(); }
};

std::unique_ptr<FramebufferStore> make_cpu_framebuffer(std::uint32_t width, std::uint32_t height,
                                                       unsigned threads);
/// src/kernels (or src/core/no_cuda, which throws CudaError).
std::unique_ptr<FramebufferStore> make_cuda_framebuffer(std::uint32_t width, std::uint32_t height);

}  // namespace simlod::detail
