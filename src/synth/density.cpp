#include "synth/density.hpp"

#include <cmath>

#include "synth/noise.hpp"
#include "synth/rng.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {

DensityField::DensityField(std::uint64_t seed, double focus_x, double focus_y)
    : seed_(stream_key(seed, Stream::Density)), focus_x_(focus_x), focus_y_(focus_y) {}

double DensityField::at(double x, double y) const {
  // The survey's flight strips ran along x; where neighbours overlap, coverage doubles.
  double overlap = 1.0;
  for (int s = 1; s < kSurveyStrips; ++s) {
    const double d = (y - s * kReferenceExtent / kSurveyStrips) / kOverlapWidth;
    overlap += kOverlapBoost * std::exp(-d * d);
  }
  const double fx = (x - focus_x_) / kFocusRadius;
  const double fy = (y - focus_y_) / kFocusRadius;
  const double focus = 1.0 + kFocusBoost * std::exp(-(fx * fx + fy * fy));
  const Noise2 n = value_noise(x / kPatchWavelength, y / kPatchWavelength, seed_);
  return overlap * focus * std::exp(kPatchiness * n.value);
}

}  // namespace simlod::synth::detail
