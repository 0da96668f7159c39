// simlod::Framebuffer: validation, then the dispatch (core/dispatch.hpp) to the backend's store.
#include "simlod/framebuffer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <new>

#include "core/dispatch.hpp"
#include "core/framebuffer_store.hpp"
#include "core/render_math.hpp"
#include "simlod/error.hpp"
#include "simlod/image.hpp"

namespace simlod {
namespace {

/// 2^28 pixels (16384 x 16384): pixel indices and sums stay far inside 32 bits per row.
constexpr std::uint64_t kMaxPixels = std::uint64_t{1} << 28;

}  // namespace

namespace detail {

void validate_edl(float strength, float radius, std::string_view where) {
  if (!std::isfinite(strength) || strength < 0.0f) {
    throw InvalidInput(fmt::format("{}: edl_strength {} must be finite and >= 0", where, strength));
  }
  if (!std::isfinite(radius) || radius <= 0.0f || radius > 64.0f) {
    throw InvalidInput(
        fmt::format("{}: edl_radius {} must be finite, > 0 and <= 64", where, radius));
  }
}

ResolveSettings resolve_settings(std::uint32_t background, bool eye_dome_lighting,
                                 float edl_strength, float edl_radius, bool edl_outline) {
  return ResolveSettings{background, eye_dome_lighting, edl_strength, edl_outline,
                         edl_offsets(edl_radius)};
}

}  // namespace detail

Framebuffer::Framebuffer(std::uint32_t width, std::uint32_t height, Backend backend,
                         unsigned cpu_threads, int cuda_device) {
  if (width == 0 || height == 0 || std::uint64_t{width} * height > kMaxPixels) {
    throw InvalidInput(fmt::format(
        "framebuffer size {} x {} is invalid: both sides must be > 0 and the pixels <= {}", width,
        height, kMaxPixels));
  }
  const Backend kind = resolve_backend(backend);
  try {
    store_ =
        std::make_unique<detail::FramebufferStore>(width, height, kind, cpu_threads, cuda_device);
  } catch (const std::bad_alloc&) {
    throw CapacityError(
        fmt::format("not enough host memory for a {} x {} framebuffer", width, height));
  }
}

Framebuffer::Framebuffer(Framebuffer&&) noexcept = default;
Framebuffer& Framebuffer::operator=(Framebuffer&&) noexcept = default;
Framebuffer::~Framebuffer() = default;

detail::FramebufferStore& Framebuffer::store() const {
  if (!store_) throw InvalidInput("this Framebuffer was moved from; assign a new one before use");
  return *store_;
}

std::uint32_t Framebuffer::width() const { return store().width; }
std::uint32_t Framebuffer::height() const { return store().height; }
Backend Framebuffer::backend() const { return store().kind; }

void Framebuffer::resolve(std::uint32_t background, bool eye_dome_lighting, float edl_strength,
                          float edl_radius, bool edl_outline) {
  detail::validate_edl(edl_strength, edl_radius, "resolve");
  (void)detail::resolve(store(), detail::resolve_settings(background, eye_dome_lighting,
                                                          edl_strength, edl_radius, edl_outline));
}

std::vector<std::uint8_t> Framebuffer::download() const { return detail::download(store()); }

std::vector<float> Framebuffer::download_depth() const {
  const std::vector<std::uint64_t> words = detail::download_words(store());
  std::vector<float> depth(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    depth[i] = words[i] == detail::kEmptyPixel
                   ? std::numeric_limits<float>::infinity()
                   : detail::float_of(static_cast<std::uint32_t>(words[i] >> 32));
  }
  return depth;
}

void Framebuffer::save_png(const std::filesystem::path& path) const {
  write_png(path, width(), height(), download());
}

void Framebuffer::wrap_device_rgba8(void* d_pixels, std::size_t pitch_bytes) {
  detail::FramebufferStore& s = store();
  if (s.kind != Backend::Cuda) {
    throw InvalidInput(
        "wrap_device_rgba8: this framebuffer is on the CPU; only CUDA "
        "framebuffers resolve into device buffers");
  }
  if (d_pixels != nullptr && pitch_bytes < std::size_t{s.width} * 4) {
    throw InvalidInput(
        fmt::format("wrap_device_rgba8: pitch {} bytes is below a row of {} "
                    "pixels ({} bytes)",
                    pitch_bytes, s.width, std::size_t{s.width} * 4));
  }
  detail::wrap_device_rgba8(s, d_pixels, pitch_bytes);
}

}  // namespace simlod
