#include "synth/noise.hpp"

#include <cmath>

#include "synth/rng.hpp"

namespace simlod::synth::detail {
namespace {

double lattice(std::int64_t ix, std::int64_t iy, std::uint64_t seed) {
  const std::uint64_t hx = static_cast<std::uint64_t>(ix) * 0x9E3779B97F4A7C15ull;
  const std::uint64_t hy = static_cast<std::uint64_t>(iy) * 0xC2B2AE3D27D4EB4Full;
  const std::uint64_t h = mix(seed, hx ^ (hy + 0x165667B19E3779F9ull));
  return static_cast<double>(h >> 11) * 0x1.0p-52 - 1.0;  // [-1, 1)
}

}  // namespace

Noise2 value_noise(double x, double y, std::uint64_t seed) {
  const double fx0 = std::floor(x);
  const double fy0 = std::floor(y);
  const auto ix = static_cast<std::int64_t>(fx0);
  const auto iy = static_cast<std::int64_t>(fy0);
  const double fx = x - fx0;
  const double fy = y - fy0;
  // Quintic fade 6t^5 - 15t^4 + 10t^3 and its derivative 30t^2 (t - 1)^2.
  const double u = fx * fx * fx * (fx * (fx * 6.0 - 15.0) + 10.0);
  const double v = fy * fy * fy * (fy * (fy * 6.0 - 15.0) + 10.0);
  const double du = 30.0 * fx * fx * (fx - 1.0) * (fx - 1.0);
  const double dv = 30.0 * fy * fy * (fy - 1.0) * (fy - 1.0);
  const double a = lattice(ix, iy, seed);
  const double b = lattice(ix + 1, iy, seed);
  const double c = lattice(ix, iy + 1, seed);
  const double d = lattice(ix + 1, iy + 1, seed);
  const double k = a - b - c + d;
  return {a + (b - a) * u + (c - a) * v + k * u * v, du * ((b - a) + k * v),
          dv * ((c - a) + k * u)};
}

Noise2 fbm(double x, double y, std::uint64_t seed, const FbmParams& params) {
  Noise2 sum;
  double frequency = 1.0 / params.wavelength;
  double amplitude = params.amplitude;
  for (int o = 0; o < params.octaves; ++o) {
    const Noise2 n =
        value_noise(x * frequency, y * frequency, mix(seed, static_cast<std::uint64_t>(o)));
    sum.value += amplitude * n.value;
    sum.dx += amplitude * frequency * n.dx;
    sum.dy += amplitude * frequency * n.dy;
    frequency *= params.lacunarity;
    amplitude *= params.gain;
  }
  return sum;
}

double fbm_bound(const FbmParams& params) {
  double bound = 0.0;
  double amplitude = params.amplitude;
  for (int o = 0; o < params.octaves; ++o) {
    bound += std::abs(amplitude);
    amplitude *= params.gain;
  }
  return bound;
}

}  // namespace simlod::synth::detail
