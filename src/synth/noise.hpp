// Smooth 2D value noise with analytic gradient, and its fractal sum (fBm). Used for the terrain
// height field, the density field and colour variation; bounded, so bounds() stays exact.
#pragma once

#include <cstdint>

namespace simlod::synth::detail {

struct Noise2 {
  double value = 0.0;
  double dx = 0.0;  ///< d value / dx
  double dy = 0.0;
};

/// Value noise in [-1, 1] on the integer lattice, quintic interpolation (C2 continuous).
Noise2 value_noise(double x, double y, std::uint64_t seed);

struct FbmParams {
  int octaves = 1;
  double wavelength = 1.0;  ///< of the first octave, in input units
  double amplitude = 1.0;   ///< of the first octave
  double lacunarity = 2.0;
  double gain = 0.5;
};

/// Sum of `octaves` value-noise octaves; |value| <= fbm_bound(params).
Noise2 fbm(double x, double y, std::uint64_t seed, const FbmParams& params);
double fbm_bound(const FbmParams& params);

}  // namespace simlod::synth::detail
