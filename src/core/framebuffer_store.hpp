// The state behind simlod::Framebuffer: per-pixel framebuffer words (and colour sums for
// RenderQuality::High) on one backend, which that backend's renderer writes and resolve()
// turns into RGBA8. CPU: core/cpu/render/framebuffer.hpp; CUDA: kernels/render/framebuffer.cuh.
// Exactly one of `cpu` and `cuda` is set; core/dispatch.hpp picks the functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "core/render_math.hpp"
#include "kernels/entry.hpp"
#include "simlod/backend.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/render.hpp"

namespace simlod::detail {

namespace cpu {
class Framebuffer;  // core/cpu/render/framebuffer.hpp
}

/// How resolve() turns framebuffer words into RGBA8 (View::background, eye_dome_lighting,
/// edl_strength, edl_outline; edl_radius as its offsets). Make it with resolve_settings().
struct ResolveSettings {
  std::uint32_t background = 0;
  bool eye_dome_lighting = false;
  float edl_strength = 1.0f;
  bool edl_outline = false;
  /// The eye-dome neighbours at View::edl_radius, computed once on the host (core code, compiled
  /// without contraction) and handed to either backend, so both use the same pixels.
  EdlOffsets edl_offsets{};
};

/// The settings of a resolve with the eye-dome offsets of `edl_radius` (validated before).
ResolveSettings resolve_settings(std::uint32_t background, bool eye_dome_lighting,
                                 float edl_strength, float edl_radius, bool edl_outline);

/// The size both backends' framebuffers share.
class FramebufferSize {
 public:
  FramebufferSize(std::uint32_t width, std::uint32_t height) : width_(width), height_(height) {}
  [[nodiscard]] std::uint32_t width() const { return width_; }
  [[nodiscard]] std::uint32_t height() const { return height_; }
  [[nodiscard]] std::uint64_t pixels() const { return std::uint64_t{width_} * height_; }

 private:
  std::uint32_t width_, height_;
};

struct FramebufferStore {
  FramebufferStore(std::uint32_t width, std::uint32_t height, Backend backend, unsigned threads,
                   int device);
  ~FramebufferStore();
  FramebufferStore(const FramebufferStore&) = delete;
  FramebufferStore& operator=(const FramebufferStore&) = delete;

  Backend kind;
  std::uint32_t width, height;
  int device;                  ///< CUDA device (CUDA framebuffers)
  bool frame_pending = false;  ///< a frame was queued and its statistics not read yet
  RenderStats last_frame;      ///< statistics of the last frame read back
  std::unique_ptr<cpu::Framebuffer> cpu;
  cuda::Owned<cuda::Framebuffer> cuda{nullptr, nullptr};
};

/// Throws InvalidInput, prefixed by `where`, for an eye-dome strength that is negative or not
/// finite or a radius (pixels) that is not finite, > 0 and <= 64 (View::validate and
/// Framebuffer::resolve).
void validate_edl(float strength, float radius, std::string_view where);

/// Reaches the store of a Framebuffer (for rasterize()).
struct FramebufferAccess {
  static FramebufferStore& store(Framebuffer& fb) { return fb.store(); }
};

}  // namespace simlod::detail
