// Full-reference image quality metrics on 8-bit RGB (alpha ignored), for comparing a rendered
// image against a reference rendering of the same camera (simlod-compare).
#pragma once

#include <cstdint>
#include <span>

namespace simlod::examples {

/// A read-only RGBA8 image: width * height * 4 bytes, top row first (Framebuffer::download()).
struct RgbaImage {
  std::span<const std::uint8_t> pixels;
  std::uint32_t width = 0, height = 0;
};

/// Mean squared error over every pixel and the channels red, green and blue. Throws
/// InvalidInput when the images differ in size or a pixel buffer does not match its size.
double mse_rgb(const RgbaImage& a, const RgbaImage& b);

/// Peak signal-to-noise ratio in dB, 10 log10(255^2 / MSE); +infinity for identical images.
/// Throws as mse_rgb().
double psnr_rgb(const RgbaImage& a, const RgbaImage& b);

/// The SSIM constants of Wang et al. 2004, "Image quality assessment: from error visibility to
/// structural similarity": a window x window Gaussian of standard deviation `sigma` (normalised
/// to sum 1), C1 = (k1 L)^2, C2 = (k2 L)^2 with L = `range`.
struct SsimParams {
  std::uint32_t window = 11;
  double sigma = 1.5;
  double k1 = 0.01, k2 = 0.03;
  double range = 255.0;
};

/// Mean structural similarity: computed per channel (red, green, blue) at every window position
/// that lies wholly inside the image ("valid", no padding), averaged over the positions and
/// the three channels. 1 exactly for identical images. Throws InvalidInput as mse_rgb(), and
/// for images smaller than the window or an even or zero window.
double ssim_rgb(const RgbaImage& a, const RgbaImage& b, const SsimParams& params = {});

}  // namespace simlod::examples
