// simlod::Framebuffer: the target of rasterize(). It owns a 64-bit depth+colour buffer per
// pixel (and, for RenderQuality::High, per-pixel colour sums) on the device of its backend,
// and an RGBA8 image that resolve() writes (or a device buffer of the application's, see
// wrap_device_rgba8).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "simlod/backend.hpp"

namespace simlod {

struct View;

namespace detail {
struct FramebufferStore;
struct FramebufferAccess;
}  // namespace detail

/// Move-only. Not thread-safe: one call at a time. Every call blocks until its work is done,
/// except rasterize_async() (render.hpp); the calls here wait for a frame it queued first.
class Framebuffer {
 public:
  /// A width x height framebuffer on `backend` (Auto: CUDA when a device is usable).
  /// `cpu_threads` is the CPU backend's thread count (0 = hardware threads), `cuda_device` the
  /// CUDA device (that of the octrees it draws; OctreeConfig::device). Throws
  /// InvalidInput for a zero or too large size (more than 2^28 pixels), CudaError when CUDA is
  /// requested but unusable, CapacityError when the buffers cannot be allocated.
  Framebuffer(std::uint32_t width, std::uint32_t height, Backend backend = Backend::Auto,
              unsigned cpu_threads = 0, int cuda_device = 0);
  Framebuffer(Framebuffer&&) noexcept;
  Framebuffer& operator=(Framebuffer&&) noexcept;
  ~Framebuffer();

  [[nodiscard]] std::uint32_t width() const;
  [[nodiscard]] std::uint32_t height() const;
  [[nodiscard]] Backend backend() const;

  /// Turns the samples of the last rasterize() into RGBA8 pixels (rasterize() already did it
  /// with the view's settings; call this to resolve again with others): `background` where no
  /// sample landed, eye-dome lighting when `eye_dome_lighting` (strength, radius in pixels and
  /// the black outline around the samples as View's eye_dome_lighting, edl_outline). Writes the
  /// framebuffer's own image, or the wrapped device buffer. Throws InvalidInput for a strength
  /// that is negative or not finite or a radius that is not finite, > 0 and <= 64.
  void resolve(std::uint32_t background, bool eye_dome_lighting = false, float edl_strength = 1.0f,
               float edl_radius = 1.4f, bool edl_outline = false);

  /// The resolved image: width * height * 4 bytes (red, green, blue, alpha), top row first.
  [[nodiscard]] std::vector<std::uint8_t> download() const;
  /// Per pixel, the depth of the nearest sample (clip w of a perspective view = distance along
  /// the view axis; (z/w + 1) / 2 of an orthographic one), +infinity where none landed.
  [[nodiscard]] std::vector<float> download_depth() const;
  /// download() written as PNG. Throws IoError when the file cannot be written.
  void save_png(const std::filesystem::path& path) const;

  /// CUDA only: resolve() writes into this device buffer (height rows of width RGBA8 pixels,
  /// `pitch_bytes` apart, e.g. a mapped graphics resource) instead of the framebuffer's own
  /// image; download() then reads it. nullptr returns to the own image. The buffer must stay
  /// valid while wrapped. Throws InvalidInput on the CPU backend or for a pitch < width * 4.
  void wrap_device_rgba8(void* d_pixels, std::size_t pitch_bytes);

 private:
  friend struct detail::FramebufferAccess;
  [[nodiscard]] detail::FramebufferStore& store() const;
  std::unique_ptr<detail::FramebufferStore> store_;
};

}  // namespace simlod
