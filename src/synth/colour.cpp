#include "synth/colour.hpp"

#include <algorithm>
#include <cmath>

#include "simlod/point.hpp"
#include "synth/noise.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {
namespace {

struct Rgb {
  double r = 0.0, g = 0.0, b = 0.0;
};

Rgb operator*(Rgb c, double s) { return {c.r * s, c.g * s, c.b * s}; }
Rgb mix_rgb(Rgb a, Rgb b, double t) {
  return {lerp(a.r, b.r, t), lerp(a.g, b.g, t), lerp(a.b, b.b, t)};
}

Rgb unpack(std::uint32_t rgba) {
  return {red_of(rgba) / 255.0, green_of(rgba) / 255.0, blue_of(rgba) / 255.0};
}

std::uint32_t pack(Rgb c) {
  auto channel = [](double v) {
    return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
  };
  return pack_rgba(channel(c.r), channel(c.g), channel(c.b));
}

Rgb hsv(double h, double s, double v) {
  h = (h - std::floor(h)) * 6.0;
  const double c = v * s;
  const double x = c * (1.0 - std::abs(std::fmod(h, 2.0) - 1.0));
  const double m = v - c;
  Rgb rgb;
  switch (static_cast<int>(h)) {
    case 0: rgb = {c, x, 0}; break;
    case 1: rgb = {x, c, 0}; break;
    case 2: rgb = {0, c, x}; break;
    case 3: rgb = {0, x, c}; break;
    case 4: rgb = {x, 0, c}; break;
    default: rgb = {c, 0, x}; break;
  }
  return {rgb.r + m, rgb.g + m, rgb.b + m};
}

/// Sky light plus a sun from the south-west, baked into the colour.
double light(Vec3 normal, double ambient = 0.55) {
  static const Vec3 kSun = normalized({-0.45, -0.3, 0.84});
  return ambient + (1.0 - ambient) * std::max(0.0, dot(normal, kSun));
}

Rgb land_colour(const Scene& scene, double x, double y, const HeightSample& land) {
  const std::uint64_t seed = stream_key(scene.seed, Stream::Noise);
  const double lushness = 0.5 + 0.5 * value_noise(x / 90.0, y / 90.0, seed).value;
  Rgb c = mix_rgb({0.26, 0.44, 0.16}, {0.56, 0.55, 0.30}, 0.8 * (1.0 - lushness));
  const double slope = std::hypot(land.dx, land.dy);
  c = mix_rgb(c, {0.46, 0.41, 0.35}, smoothstep(0.35, 0.8, slope));
  const double high = scene.terrain.max_height();
  c = mix_rgb(c, {0.50, 0.47, 0.36}, 0.5 * smoothstep(0.55 * high, 0.85 * high, land.height));
  const double wl = scene.terrain.water_level();
  return mix_rgb(c, {0.72, 0.66, 0.50}, smoothstep(wl + 1.2, wl + 0.3, land.height));
}

}  // namespace

std::uint32_t terrain_colour(const Scene& scene, double x, double y, const HeightSample& land,
                             bool water, Vec3 normal, Rng& rng) {
  const double jitter = 0.9 + 0.2 * rng.uniform();
  if (water) return pack(Rgb{0.15, 0.26, 0.31} * jitter);
  Rgb c;
  if (scene.town.on_street(x, y)) {
    const bool marking =
        std::abs(scene.town.street_offset(x, y)) < 0.12 && std::fmod(x + y + 4000.0, 6.0) < 3.0;
    c = marking ? Rgb{0.85, 0.85, 0.82} : Rgb{0.30, 0.30, 0.32};
  } else if (scene.town.in_plaza(x, y)) {
    const bool joint = std::fmod(x + 4000.0, 2.0) < 0.08 || std::fmod(y + 4000.0, 2.0) < 0.08;
    c = joint ? Rgb{0.45, 0.42, 0.38} : Rgb{0.66, 0.62, 0.56};
  } else {
    c = land_colour(scene, x, y, land);
  }
  return pack(c * (jitter * light(normal)));
}

std::uint32_t surface_colour(const Primitive& p, double u, double v, const SurfacePoint& point,
                             Rng& rng) {
  const Rgb base = unpack(p.rgba);
  const double jitter = 0.92 + 0.16 * rng.uniform();
  Rgb c = base;
  double ambient = 0.55;
  switch (p.material) {
    case Material::Wall: {
      const double along = u * length(p.shape.a);
      const double up = v * length(p.shape.b) - kFoundationDepth;
      const double in_floor = std::fmod(std::max(up, 0.0), 3.2);
      const double in_bay = std::fmod(along, 3.0);
      const bool window = up > 0.5 && in_floor > 0.9 && in_floor < 2.3 && in_bay > 0.8 &&
                          in_bay < 2.2 && along > 1.0 && along < length(p.shape.a) - 1.0;
      if (window) c = Rgb{0.20, 0.25, 0.31} * (0.8 + 0.5 * rng.uniform());
      break;
    }
    case Material::TiledRoof:
      if (std::fmod(point.position.z + 4000.0, 0.32) < 0.06) c = base * 0.75;
      break;
    case Material::FlatRoof: c = base * (0.85 + 0.3 * rng.uniform()); break;
    case Material::Foliage:
    case Material::Needles: c = base * (0.7 + 0.6 * rng.uniform()); break;
    case Material::Pedestal: {
      const double vein = value_noise(point.position.x * 0.7 + point.position.z,
                                      point.position.y * 0.7 - point.position.z, 17)
                              .value;
      c = std::abs(vein) < 0.04 ? Rgb{0.55, 0.55, 0.58} : base;
      ambient = 0.7;
      break;
    }
    case Material::Ring:
      c = std::fmod(v * 12.0, 1.0) < 0.1 ? Rgb{0.95, 0.95, 0.95}
                                         : hsv(u + 0.5 * p.variant, 0.85, 0.95);
      ambient = 0.7;
      break;
    case Material::Orb: {
      const bool flip = (static_cast<int>(v * 9.0) + static_cast<int>(u * 16.0)) % 2 == 0;
      c = flip ? Rgb{0.95, 0.74, 0.15} : Rgb{0.12, 0.22, 0.72};
      ambient = 0.7;
      break;
    }
    case Material::GableWall:
    case Material::Trunk: break;
  }
  return pack(c * (jitter * light(point.normal, ambient)));
}

}  // namespace simlod::synth::detail
