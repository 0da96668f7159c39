// The image metrics of simlod-compare (examples/common/image_metrics.hpp) against their
// definitions: PSNR by hand, SSIM against a brute-force transcription of Wang et al. 2004.
#include "common/image_metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "simlod/error.hpp"

namespace {

using simlod::examples::psnr_rgb;
using simlod::examples::RgbaImage;
using simlod::examples::ssim_rgb;

std::vector<std::uint8_t> random_pixels(std::uint32_t w, std::uint32_t h, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> px(std::size_t{w} * h * 4);
  for (auto& v : px) v = static_cast<std::uint8_t>(byte(rng));
  return px;
}

/// SSIM as the paper states it: per window position, the weighted means, variances and
/// covariance straight from the 2-D Gaussian weights (two passes, no running sums), then the
/// mean over the valid positions and the three channels.
double brute_force_ssim(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b,
                        int w, int h) {
  constexpr int k = 11;
  constexpr double sigma = 1.5, c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
  double weight[k][k], total = 0.0;
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      weight[i][j] = std::exp(-((i - 5) * (i - 5) + (j - 5) * (j - 5)) / (2 * sigma * sigma));
      total += weight[i][j];
    }
  }
  double sum = 0.0;
  int windows = 0;
  for (int c = 0; c < 3; ++c) {
    for (int y = 0; y + k <= h; ++y) {
      for (int x = 0; x + k <= w; ++x) {
        const auto at = [&](const std::vector<std::uint8_t>& im, int i, int j) {
          return static_cast<double>(im[((y + i) * w + x + j) * 4 + c]);
        };
        double mx = 0, my = 0;
        for (int i = 0; i < k; ++i) {
          for (int j = 0; j < k; ++j) {
            mx += weight[i][j] / total * at(a, i, j);
            my += weight[i][j] / total * at(b, i, j);
          }
        }
        double vx = 0, vy = 0, cxy = 0;
        for (int i = 0; i < k; ++i) {
          for (int j = 0; j < k; ++j) {
            const double dx = at(a, i, j) - mx, dy = at(b, i, j) - my;
            vx += weight[i][j] / total * dx * dx;
            vy += weight[i][j] / total * dy * dy;
            cxy += weight[i][j] / total * dx * dy;
          }
        }
        sum += (2 * mx * my + c1) * (2 * cxy + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
        ++windows;
      }
    }
  }
  return sum / windows;
}

TEST(ImageMetrics, IdenticalImagesGiveInfinitePsnrAndSsimOfExactlyOne) {
  const auto px = random_pixels(40, 30, 1);
  const RgbaImage im{px, 40, 30};
  EXPECT_EQ(psnr_rgb(im, im), std::numeric_limits<double>::infinity());
  EXPECT_EQ(ssim_rgb(im, im), 1.0);
  const std::vector<std::uint8_t> flat(40 * 30 * 4, 77);  // no variance at all
  EXPECT_EQ(ssim_rgb({flat, 40, 30}, {flat, 40, 30}), 1.0);
}

TEST(ImageMetrics, ConstantOffsetGivesTheExactPsnr) {
  auto a = random_pixels(23, 19, 2);
  for (auto& v : a) v = static_cast<std::uint8_t>(v % 240);
  auto b = a;
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = static_cast<std::uint8_t>(i % 4 == 3 ? 0 : b[i] + 12);  // alpha differs: ignored
  }
  const double expected = 10.0 * std::log10(255.0 * 255.0 / 144.0);  // MSE = 12^2
  EXPECT_DOUBLE_EQ(psnr_rgb({a, 23, 19}, {b, 23, 19}), expected);
  EXPECT_NEAR(expected, 26.5472, 1e-4);  // 10 log10(65025 / 144)
}

TEST(ImageMetrics, SsimMatchesTheBruteForceDefinition) {
  for (std::uint32_t seed = 0; seed < 4; ++seed) {
    const auto a = random_pixels(20, 17, 10 + seed);
    auto b = random_pixels(20, 17, 20 + seed);
    if (seed % 2 == 1) {  // correlated images too, not only unrelated noise
      for (std::size_t i = 0; i < b.size(); ++i)
        b[i] = static_cast<std::uint8_t>((a[i] + b[i] / 8) % 256);
    }
    const double got = ssim_rgb({a, 20, 17}, {b, 20, 17});
    EXPECT_NEAR(got, brute_force_ssim(a, b, 20, 17), 1e-9) << "seed " << seed;
  }
}

TEST(ImageMetrics, SsimIsSymmetricAndBelowOneForDifferentImages) {
  const auto a = random_pixels(32, 24, 5);
  auto b = a;
  b[(5 * 32 + 7) * 4 + 1] ^= 0x40;  // one channel of one pixel
  const RgbaImage ia{a, 32, 24}, ib{b, 32, 24};
  EXPECT_EQ(ssim_rgb(ia, ib), ssim_rgb(ib, ia));
  EXPECT_LT(ssim_rgb(ia, ib), 1.0);
  EXPECT_GT(ssim_rgb(ia, ib), 0.9);
  EXPECT_LT(psnr_rgb(ia, ib), std::numeric_limits<double>::infinity());
}

TEST(ImageMetrics, RefusesImagesOfDifferentSize) {
  const auto a = random_pixels(20, 17, 1), b = random_pixels(17, 20, 1);
  const RgbaImage ia{a, 20, 17}, ib{b, 17, 20};
  const auto refuses = [&](auto metric) {
    try {
      metric(ia, ib);
      ADD_FAILURE() << "accepted images of different sizes";
    } catch (const simlod::InvalidInput& e) {
      EXPECT_STREQ(e.what(), "cannot compare images of different sizes: 20x17 and 17x20");
    }
  };
  refuses([](const RgbaImage& x, const RgbaImage& y) { return psnr_rgb(x, y); });
  refuses([](const RgbaImage& x, const RgbaImage& y) { return ssim_rgb(x, y); });
  EXPECT_THROW(psnr_rgb({a, 20, 16}, {a, 20, 16}), simlod::InvalidInput);  // buffer too large
  const auto small = random_pixels(10, 40, 1);  // narrower than the window
  EXPECT_THROW(ssim_rgb({small, 10, 40}, {small, 10, 40}), simlod::InvalidInput);
}

}  // namespace
