#include "common/image_metrics.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <vector>

#include "simlod/error.hpp"

namespace simlod::examples {

namespace {

void check_pair(const RgbaImage& a, const RgbaImage& b) {
  for (const RgbaImage* im : {&a, &b}) {
    if (im->pixels.size() != std::size_t{im->width} * im->height * 4) {
      throw InvalidInput(fmt::format("an image of {}x{} pixels needs {} bytes, not {}", im->width,
                                     im->height, std::size_t{im->width} * im->height * 4,
                                     im->pixels.size()));
    }
  }
  if (a.width != b.width || a.height != b.height) {
    throw InvalidInput(fmt::format("cannot compare images of different sizes: {}x{} and {}x{}",
                                   a.width, a.height, b.width, b.height));
  }
  if (a.width == 0 || a.height == 0) throw InvalidInput("cannot compare empty images");
}

/// The 1-D Gaussian whose outer product with itself is the 2-D window; both sum to 1.
std::vector<double> gaussian(std::uint32_t size, double sigma) {
  std::vector<double> g(size);
  const double centre = 0.5 * (size - 1);
  double sum = 0.0;
  for (std::uint32_t i = 0; i < size; ++i) {
    const double d = i - centre;
    g[i] = std::exp(-d * d / (2.0 * sigma * sigma));
    sum += g[i];
  }
  for (double& v : g) v /= sum;
  return g;
}

/// Weighted window sums at every valid position of a w x h plane: rows first, then columns
/// (the window is separable, which makes 2k instead of k^2 multiplications per pixel).
std::vector<double> filter_valid(const std::vector<double>& in, std::size_t w, std::size_t h,
                                 const std::vector<double>& g) {
  const std::size_t k = g.size(), ow = w - k + 1, oh = h - k + 1;
  std::vector<double> rows(ow * h);
  for (std::size_t y = 0; y < h; ++y) {
    for (std::size_t x = 0; x < ow; ++x) {
      double s = 0.0;
      for (std::size_t i = 0; i < k; ++i) s += g[i] * in[y * w + x + i];
      rows[y * ow + x] = s;
    }
  }
  std::vector<double> out(ow * oh);
  for (std::size_t y = 0; y < oh; ++y) {
    for (std::size_t x = 0; x < ow; ++x) {
      double s = 0.0;
      for (std::size_t i = 0; i < k; ++i) s += g[i] * rows[(y + i) * ow + x];
      out[y * ow + x] = s;
    }
  }
  return out;
}

}  // namespace

double mse_rgb(const RgbaImage& a, const RgbaImage& b) {
  check_pair(a, b);
  double sum = 0.0;
  for (std::size_t i = 0; i < a.pixels.size(); i += 4) {
    for (std::size_t c = 0; c < 3; ++c) {
      const double d = static_cast<int>(a.pixels[i + c]) - static_cast<int>(b.pixels[i + c]);
      sum += d * d;
    }
  }
  return sum / (3.0 * a.width * a.height);
}

double psnr_rgb(const RgbaImage& a, const RgbaImage& b) {
  const double mse = mse_rgb(a, b);
  if (mse == 0.0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(255.0 * 255.0 / mse);
}

double ssim_rgb(const RgbaImage& a, const RgbaImage& b, const SsimParams& p) {
  check_pair(a, b);
  if (p.window == 0 || p.window % 2 == 0) {
    throw InvalidInput(fmt::format("the SSIM window must be odd, not {}", p.window));
  }
  if (a.width < p.window || a.height < p.window) {
    throw InvalidInput(fmt::format("SSIM needs images of at least {0}x{0} pixels, not {1}x{2}",
                                   p.window, a.width, a.height));
  }
  const std::vector<double> g = gaussian(p.window, p.sigma);
  const double c1 = (p.k1 * p.range) * (p.k1 * p.range);
  const double c2 = (p.k2 * p.range) * (p.k2 * p.range);
  const std::size_t w = a.width, h = a.height, n = w * h;
  double total = 0.0;
  std::size_t windows = 0;
  std::vector<double> x(n), y(n), xx(n), yy(n), xy(n);
  for (std::size_t c = 0; c < 3; ++c) {
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = a.pixels[i * 4 + c];
      y[i] = b.pixels[i * 4 + c];
      xx[i] = x[i] * x[i];
      yy[i] = y[i] * y[i];
      xy[i] = x[i] * y[i];
    }
    const auto mx = filter_valid(x, w, h, g), my = filter_valid(y, w, h, g);
    const auto sxx = filter_valid(xx, w, h, g), syy = filter_valid(yy, w, h, g);
    const auto sxy = filter_valid(xy, w, h, g);
    for (std::size_t i = 0; i < mx.size(); ++i) {
      // Written so that equal images give 1 exactly: 2 * m * m equals m * m + m * m in floating
      // point, and the covariance of an image with itself equals its variance.
      const double mxy = mx[i] * my[i], mxx = mx[i] * mx[i], myy = my[i] * my[i];
      const double vx = sxx[i] - mxx, vy = syy[i] - myy, cxy = sxy[i] - mxy;
      total += ((2.0 * mxy + c1) * (2.0 * cxy + c2)) / ((mxx + myy + c1) * (vx + vy + c2));
    }
    windows += mx.size();
  }
  return total / static_cast<double>(windows);
}

}  // namespace simlod::examples
