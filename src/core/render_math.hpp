// Per-sample and per-node arithmetic of the renderer, shared by the CPU renderer and the CUDA
// kernels (SIMLOD_HD). Every float operation is rounded on its own (no fused multiply-add on
// the device, and the library is compiled with -ffp-contract=off on the host), so both
// backends project every sample to the same pixel and depth, bit for bit.
//
// Framebuffer word of a pixel: (float bits of depth) << 32 | rgba; the empty value is all
// ones. Depths are >= 0, whose float bits order like the floats, so the 64-bit minimum keeps
// the nearest sample, and among equally near ones the smaller rgba value.
//
// Internal (not installed): the renderer's arithmetic is not part of the API.
#pragma once

#include <cstdint>

#include "simlod/detail/attribute_palette.hpp"
#include "simlod/detail/channels.hpp"
#include "simlod/detail/hd.hpp"
#include "simlod/point.hpp"

#if !defined(__CUDA_ARCH__)
#include <bit>
#include <cmath>
#endif

namespace simlod::detail {

inline constexpr std::uint64_t kEmptyPixel = ~std::uint64_t{0};
/// Steps of the point budget: threshold * 2^(k/4) for k = 0 .. kBudgetSteps.
inline constexpr std::uint32_t kBudgetSteps = 64;
/// RenderQuality::High averages samples whose depth is at most the nearest one times this.
inline constexpr float kBlendDepthFactor = 1.01f;
/// Eye-dome lighting, as Potree's EDL: shade = exp(-kEdlScale * strength * sum / kEdlNeighbours),
/// the sum taken over the log2 depth steps down to the neighbours on a circle (Potree's scale and
/// neighbour count).
inline constexpr float kEdlScale = 300.0f;
inline constexpr std::uint32_t kEdlNeighbours = 8;
/// Eye-dome lighting: an empty pixel next to a sample is drawn in this colour (Potree's EDL
/// outlines the samples in black).
inline constexpr std::uint32_t kEdlSilhouette = pack_rgba(0, 0, 0, 255);

SIMLOD_HD float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SIMLOD_HD float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
SIMLOD_HD float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
SIMLOD_HD std::uint32_t bits_of(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  return std::bit_cast<std::uint32_t>(f);
#endif
}
SIMLOD_HD float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  return std::bit_cast<float>(u);
#endif
}

inline constexpr std::uint32_t kColorRgb = 0, kColorElevation = 1, kColorIntensity = 2,
                               kColorClassification = 3, kColorReturns = 4, kColorSource = 5;

/// Everything a renderer needs to know about the view: 384 bytes, trivially copyable (kernels
/// receive it by value).
struct RenderParams {
  float mvp[16];  ///< projection * view, column-major
  std::uint32_t width, height;
  float half_width, half_height;  ///< width / 2, height / 2 (exact)
  float threshold;                ///< LOD threshold in pixels (before a budget raises it)
  std::uint32_t depth_from_w;     ///< 1: perspective (depth = w), 0: (z/w + 1) / 2
  float edge;                     ///< cube edge of the octree, octree coordinates
  std::uint32_t color_mode;       ///< kColor*
  float z_low, z_scale;           ///< elevation ramp: t = (z - z_low) * z_scale
  std::uint32_t point_size;       ///< View::point_size: a square of this many pixels a side
  /// Attribute modes: byte offsets of the attribute (intensity, class, return number, source
  /// id) and of the number of returns in a sample's channel record (detail/channels.hpp).
  std::uint32_t channel, channel_returns;
  float intensity_low, intensity_span;  ///< View::intensity_range: low end, high - low
  std::uint32_t pad[2];
  std::uint8_t grey[256];  ///< intensity: grey of t = k / 255 (View::intensity_gamma applied)
};

/// Grey level (0-255) of intensity v over [low, low + span]: t clamped to [0, 1], rounded to
/// 255ths, then `grey` (the gamma curve) looked up. The same arithmetic as color_points().
SIMLOD_HD std::uint32_t intensity_grey(float v, float low, float span, const std::uint8_t* grey) {
  float t = div_rn(add_rn(v, -low), span);
  t = t > 0.0f ? (t < 1.0f ? t : 1.0f) : 0.0f;
#if defined(__CUDA_ARCH__)
  return grey[static_cast<std::uint32_t>(lroundf(mul_rn(t, 255.0f)))];
#else
  return grey[static_cast<std::uint32_t>(std::lround(mul_rn(t, 255.0f)))];
#endif
}

/// The colour of a sample in an attribute mode, from its channel record (alpha kept).
SIMLOD_HD std::uint32_t attribute_color(const RenderParams& p, const std::uint8_t* record,
                                        std::uint32_t rgba) {
  std::uint32_t c = rgba;
  switch (p.color_mode) {
    case kColorIntensity: {
      const std::uint32_t g = intensity_grey(static_cast<float>(channel_uint(record, p.channel, 2)),
                                             p.intensity_low, p.intensity_span, p.grey);
      c = pack_rgba(g, g, g);
      break;
    }
    case kColorClassification: c = classification_rgba(record[p.channel]); break;
    case kColorReturns: c = returns_rgba(record[p.channel], record[p.channel_returns]); break;
    case kColorSource: c = source_rgba(channel_uint(record, p.channel, 2)); break;
    default: break;
  }
  return (c & 0x00FFFFFFu) | (rgba & 0xFF000000u);
}

/// The colour a sample is drawn with: its own, the elevation ramp at its z, or the colour of an
/// attribute in its channel record (`record`; needed by the attribute modes only), alpha kept.
/// Between stops the channels are interpolated in 1/256 steps of integer arithmetic, so both
/// backends give the same bytes.
SIMLOD_HD std::uint32_t sample_color(const RenderParams& p, float z, std::uint32_t rgba,
                                     const std::uint8_t* record = nullptr) {
  if (p.color_mode >= kColorIntensity) return attribute_color(p, record, rgba);
  if (p.color_mode != kColorElevation) return rgba;
  // Evenly spaced stops of ColorBrewer's "Spectral" from blue (low) to red (high): bright at
  // both ends, so that every height reads on a dark background.
  constexpr std::uint32_t kRamp[5][3] = {
      {43, 131, 186}, {171, 221, 164}, {255, 255, 191}, {253, 174, 97}, {215, 25, 28}};
  float t = mul_rn(add_rn(z, -p.z_low), p.z_scale);
  t = t > 0.0f ? (t < 1.0f ? t : 1.0f) : 0.0f;  // NaN-free: z and the range are finite
  const auto f = static_cast<std::uint32_t>(mul_rn(t, 1024.0f));  // 0 .. 1024
  const std::uint32_t stop = f >= 1024 ? 3 : f >> 8, frac = f - stop * 256;
  std::uint32_t c[3];
  for (int i = 0; i < 3; ++i) {
    c[i] = (kRamp[stop][i] * (256 - frac) + kRamp[stop + 1][i] * frac) >> 8;
  }
  return pack_rgba(c[0], c[1], c[2], rgba >> 24);
}

struct Clip {
  float x, y, z, w;
};

/// mvp * (x, y, z, 1), each product and sum rounded on its own.
SIMLOD_HD Clip to_clip(const float* m, float x, float y, float z) {
  auto row = [&](int r) {
    return add_rn(add_rn(add_rn(mul_rn(m[r], x), mul_rn(m[4 + r], y)), mul_rn(m[8 + r], z)),
                  m[12 + r]);
  };
  return Clip{row(0), row(1), row(2), row(3)};
}

/// Screen position in pixels (not floored): x right from the left edge, y down from the top.
SIMLOD_HD float screen_x(const RenderParams& p, const Clip& c) {
  return mul_rn(add_rn(div_rn(c.x, c.w), 1.0f), p.half_width);
}
SIMLOD_HD float screen_y(const RenderParams& p, const Clip& c) {
  return mul_rn(add_rn(1.0f, -div_rn(c.y, c.w)), p.half_height);
}

/// The framebuffer word and pixel index of a sample, false when it is outside the view
/// (behind the camera, nearer than the near plane, beyond the far plane or off the image).
SIMLOD_HD bool project_sample(const RenderParams& p, float x, float y, float z, std::uint32_t rgba,
                              std::uint32_t& pixel, std::uint64_t& word) {
  const Clip c = to_clip(p.mvp, x, y, z);
  if (!(c.w > 0.0f) || !(c.z >= -c.w) || !(c.z <= c.w)) return false;
  const float sx = screen_x(p, c), sy = screen_y(p, c);
  if (!(sx >= 0.0f) || !(sy >= 0.0f)) return false;
  const auto col = static_cast<std::uint32_t>(sx), row = static_cast<std::uint32_t>(sy);
  if (col >= p.width || row >= p.height) return false;
  const float depth = p.depth_from_w ? c.w : mul_rn(add_rn(div_rn(c.z, c.w), 1.0f), 0.5f);
  pixel = row * p.width + col;
  word = (std::uint64_t{bits_of(depth)} << 32) | rgba;
  return true;
}

/// Calls fn(pixel) for every pixel of the point_size x point_size square a sample covers whose
/// own pixel is `pixel` (project_sample): columns col - (s - 1) / 2 .. col + s / 2 and the same
/// rows, cut at the image's edges.
template <class Fn>
SIMLOD_HD void for_each_covered(const RenderParams& p, std::uint32_t pixel, Fn&& fn) {
  if (p.point_size <= 1) {
    fn(pixel);
    return;
  }
  const std::uint32_t row = pixel / p.width, col = pixel - row * p.width;
  const std::uint32_t back = (p.point_size - 1) / 2, ahead = p.point_size / 2;
  const std::uint32_t c0 = col > back ? col - back : 0, r0 = row > back ? row - back : 0;
  const std::uint32_t c1 = col + ahead < p.width ? col + ahead : p.width - 1;
  const std::uint32_t r1 = row + ahead < p.height ? row + ahead : p.height - 1;
  for (std::uint32_t r = r0; r <= r1; ++r) {
    for (std::uint32_t c = c0; c <= c1; ++c) fn(r * p.width + c);
  }
}

/// The threshold of budget step k (k = 0: the view's own; a threshold of 0 starts at 1 pixel).
SIMLOD_HD float budget_threshold(float threshold, std::uint32_t k) {
  if (k == 0) return threshold;
  constexpr float kQuarter[4] = {1.0f, 1.18920712f, 1.41421356f, 1.68179283f};  // 2^(i/4)
  const float base = threshold > 1.0f ? threshold : 1.0f;
  return mul_rn(mul_rn(base, static_cast<float>(1u << (k / 4))), kQuarter[k % 4]);
}

/// The first budget step whose samples fit `budget` (hist[k] = samples drawn at step k, for
/// k = 0 .. kBudgetSteps), kBudgetSteps when none does.
SIMLOD_HD std::uint32_t choose_budget_step(const std::uint64_t* hist, std::uint64_t budget) {
  for (std::uint32_t k = 0; k < kBudgetSteps; ++k) {
    if (hist[k] <= budget) return k;
  }
  return kBudgetSteps;
}

/// High quality, second pass: a sample joins the pixel's average when its depth is at most
/// kBlendDepthFactor times the nearest depth (`nearest` is the pixel's word after pass one).
SIMLOD_HD bool blends(std::uint64_t word, std::uint64_t nearest) {
  const float depth = float_of(static_cast<std::uint32_t>(word >> 32));
  const float limit =
      mul_rn(float_of(static_cast<std::uint32_t>(nearest >> 32)), kBlendDepthFactor);
  return depth <= limit;
}

/// What a blending sample adds to the pixel's two sums (r + g << 32, b + 1 << 32).
SIMLOD_HD std::uint64_t blend_sum0(std::uint32_t rgba) {
  return std::uint64_t{red_of(rgba)} | (std::uint64_t{green_of(rgba)} << 32);
}
SIMLOD_HD std::uint64_t blend_sum1(std::uint32_t rgba) {
  return std::uint64_t{blue_of(rgba)} | (std::uint64_t{1} << 32);
}

/// Node box: minimum corner and edge, octree coordinates, from level and integer position.
struct NodeBox {
  float min[3];
  float size;
};

SIMLOD_HD NodeBox node_box(float edge, std::uint32_t level, std::uint32_t x, std::uint32_t y,
                           std::uint32_t z) {
  const float size = div_rn(edge, static_cast<float>(1u << level));  // exact: a power of 2
  return NodeBox{{mul_rn(static_cast<float>(x), size), mul_rn(static_cast<float>(y), size),
                  mul_rn(static_cast<float>(z), size)},
                 size};
}

inline constexpr float kUnbounded = 3.0e38f;  ///< size of a box reaching the near plane

/// Projected size of a box (larger side of the screen rectangle around its 8 corners, pixels;
/// kUnbounded when a corner is nearer than the near plane) and whether it is outside the
/// frustum (all corners beyond one clip plane: conservative, never drops a visible box).
SIMLOD_HD float projected_size(const RenderParams& p, const NodeBox& b, bool& culled) {
  float lo_x = kUnbounded, lo_y = kUnbounded, hi_x = -kUnbounded, hi_y = -kUnbounded;
  std::uint32_t outside_all = 0x3F;  // bit per plane: every corner so far is beyond it
  bool near_cut = false;
  for (std::uint32_t c = 0; c < 8; ++c) {
    const float cx = (c & 1u) ? add_rn(b.min[0], b.size) : b.min[0];
    const float cy = (c & 2u) ? add_rn(b.min[1], b.size) : b.min[1];
    const float cz = (c & 4u) ? add_rn(b.min[2], b.size) : b.min[2];
    const Clip k = to_clip(p.mvp, cx, cy, cz);
    const std::uint32_t outside = (k.x < -k.w ? 1u : 0u) | (k.x > k.w ? 2u : 0u) |
                                  (k.y < -k.w ? 4u : 0u) | (k.y > k.w ? 8u : 0u) |
                                  (k.z < -k.w ? 16u : 0u) | (k.z > k.w ? 32u : 0u);
    outside_all &= outside;
    if (!(k.w > 0.0f) || k.z < -k.w) {
      near_cut = true;
      continue;
    }
    const float sx = screen_x(p, k), sy = screen_y(p, k);
    lo_x = sx < lo_x ? sx : lo_x;
    hi_x = sx > hi_x ? sx : hi_x;
    lo_y = sy < lo_y ? sy : lo_y;
    hi_y = sy > hi_y ? sy : hi_y;
  }
  culled = outside_all != 0;
  if (near_cut) return kUnbounded;
  const float dx = add_rn(hi_x, -lo_x), dy = add_rn(hi_y, -lo_y);
  return dx > dy ? dx : dy;
}

/// The thresholds T for which a node is drawn: lo <= T < hi. Culled nodes get an empty range.
struct DrawRange {
  float lo, hi;
};

SIMLOD_HD bool draws(const DrawRange& r, float threshold) {
  return r.lo <= threshold && threshold < r.hi;
}

/// Drawn when inside the frustum, the parent's size exceeds T (root: always) and the node's own
/// size is at most T (leaf: always).
SIMLOD_HD DrawRange draw_range(const RenderParams& p, std::uint32_t level, std::uint32_t x,
                               std::uint32_t y, std::uint32_t z, bool leaf) {
  bool culled = false;
  const float own = projected_size(p, node_box(p.edge, level, x, y, z), culled);
  if (culled) return DrawRange{kUnbounded, -kUnbounded};
  float parent = kUnbounded;
  if (level > 0) {
    bool parent_culled = false;
    parent = projected_size(p, node_box(p.edge, level - 1, x >> 1, y >> 1, z >> 1), parent_culled);
  }
  return DrawRange{leaf ? -1.0f : own, parent};
}

/// RGBA8 of a resolved pixel (alpha 255): the nearest sample's colour, or in High quality the
/// rounded mean of the sums (r + g << 32, b + count << 32), shaded by eye-dome lighting.
SIMLOD_HD std::uint32_t resolve_colour(std::uint32_t rgba, const std::uint64_t* sums, float shade) {
  std::uint32_t r = red_of(rgba), g = green_of(rgba), b = blue_of(rgba);
  if (sums != nullptr) {
    const auto n = static_cast<std::uint32_t>(sums[1] >> 32);
    if (n > 0) {
      r = static_cast<std::uint32_t>(((sums[0] & 0xFFFFFFFFu) + n / 2) / n);
      g = static_cast<std::uint32_t>(((sums[0] >> 32) + n / 2) / n);
      b = static_cast<std::uint32_t>(((sums[1] & 0xFFFFFFFFu) + n / 2) / n);
    }
  }
  if (shade < 1.0f) {
    r = static_cast<std::uint32_t>(add_rn(mul_rn(static_cast<float>(r), shade), 0.5f));
    g = static_cast<std::uint32_t>(add_rn(mul_rn(static_cast<float>(g), shade), 0.5f));
    b = static_cast<std::uint32_t>(add_rn(mul_rn(static_cast<float>(b), shade), 0.5f));
  }
  return pack_rgba(r, g, b, 255);
}

/// Pixel offsets (columns right, rows down) of the eye-dome neighbours of a pixel.
struct EdlOffsets {
  std::int32_t col[kEdlNeighbours];
  std::int32_t row[kEdlNeighbours];
};

/// The eye-dome neighbours at `radius` pixels (finite, 0 < radius <= 64): with a = 2 pi i / 8,
/// neighbour i is the pixel that contains (col + 0.5 + radius cos a, row + 0.5 + radius sin a).
/// Radius 1.4 (Potree's) gives the 8 pixels around the centre, 2 reaches 2 pixels along the
/// axes and 1 along the diagonals. The directions are float literals and every operation is
/// rounded on its own, so host and device get the same offsets.
SIMLOD_HD EdlOffsets edl_offsets(float radius) {
  constexpr float kDiagonal = 0.707106781f;  // cos(pi / 4)
  constexpr float kCos[kEdlNeighbours] = {1.0f,  kDiagonal,  0.0f, -kDiagonal,
                                          -1.0f, -kDiagonal, 0.0f, kDiagonal};
  constexpr float kSin[kEdlNeighbours] = {0.0f, kDiagonal,  1.0f,  kDiagonal,
                                          0.0f, -kDiagonal, -1.0f, -kDiagonal};
  EdlOffsets o{};
  for (std::uint32_t i = 0; i < kEdlNeighbours; ++i) {
    o.col[i] = static_cast<std::int32_t>(floorf(add_rn(0.5f, mul_rn(radius, kCos[i]))));
    o.row[i] = static_cast<std::int32_t>(floorf(add_rn(0.5f, mul_rn(radius, kSin[i]))));
  }
  return o;
}

/// The word of neighbour i of pixel (col, row), kEmptyPixel when it lies outside the image.
SIMLOD_HD std::uint64_t edl_neighbour(const std::uint64_t* words, std::uint32_t width,
                                      std::uint32_t height, std::uint32_t col, std::uint32_t row,
                                      const EdlOffsets& offsets, std::uint32_t i) {
  const std::int64_t c = std::int64_t{col} + offsets.col[i];
  const std::int64_t r = std::int64_t{row} + offsets.row[i];
  if (c < 0 || r < 0 || c >= std::int64_t{width} || r >= std::int64_t{height}) return kEmptyPixel;
  return words[static_cast<std::uint64_t>(r) * width + static_cast<std::uint64_t>(c)];
}

/// Eye-dome lighting factor of pixel (col, row), which holds a sample: 1 for no darkening.
/// Neighbours without a sample, or outside the image, add nothing to the sum, which is divided
/// by kEdlNeighbours all the same (Potree's EDL).
SIMLOD_HD float edl_shade(const std::uint64_t* words, std::uint32_t width, std::uint32_t height,
                          std::uint32_t col, std::uint32_t row, const EdlOffsets& offsets,
                          float strength) {
  const std::uint64_t own = words[std::uint64_t{row} * width + col];
  const float depth = float_of(static_cast<std::uint32_t>(own >> 32));
  const float log_own = log2f(depth > 1e-30f ? depth : 1e-30f);
  float sum = 0.0f;
  for (std::uint32_t i = 0; i < kEdlNeighbours; ++i) {
    const std::uint64_t other = edl_neighbour(words, width, height, col, row, offsets, i);
    if (other == kEmptyPixel) continue;
    const float d = float_of(static_cast<std::uint32_t>(other >> 32));
    const float step = add_rn(log_own, -log2f(d > 1e-30f ? d : 1e-30f));
    sum = add_rn(sum, step > 0.0f ? step : 0.0f);
  }
  return expf(-mul_rn(mul_rn(kEdlScale, strength), mul_rn(sum, 1.0f / kEdlNeighbours)));
}

/// Eye-dome lighting of an empty pixel (col, row): true when one of its neighbours holds a
/// sample, which makes it part of the black outline around the samples.
SIMLOD_HD bool edl_silhouette(const std::uint64_t* words, std::uint32_t width, std::uint32_t height,
                              std::uint32_t col, std::uint32_t row, const EdlOffsets& offsets) {
  for (std::uint32_t i = 0; i < kEdlNeighbours; ++i) {
    if (edl_neighbour(words, width, height, col, row, offsets, i) != kEmptyPixel) return true;
  }
  return false;
}

/// RGBA8 of pixel (col, row), both backends' resolve: `background` where no sample landed
/// (kEdlSilhouette there with eye-dome lighting and `outline` when a neighbour holds a
/// sample), else the
/// sample's colour or the mean of `sums` (High quality; nullptr otherwise: two words per pixel),
/// shaded by eye-dome lighting when `edl`.
SIMLOD_HD std::uint32_t resolve_pixel(const std::uint64_t* words, const std::uint64_t* sums,
                                      std::uint32_t width, std::uint32_t height, std::uint32_t col,
                                      std::uint32_t row, std::uint32_t background, bool edl,
                                      bool outline, float edl_strength, const EdlOffsets& offsets) {
  const std::uint64_t i = std::uint64_t{row} * width + col;
  const std::uint64_t word = words[i];
  if (word == kEmptyPixel) {
    return edl && outline && edl_silhouette(words, width, height, col, row, offsets)
               ? kEdlSilhouette
               : background;
  }
  const float shade = edl ? edl_shade(words, width, height, col, row, offsets, edl_strength) : 1.0f;
  return resolve_colour(static_cast<std::uint32_t>(word), sums ? sums + 2 * i : nullptr, shade);
}

}  // namespace simlod::detail
