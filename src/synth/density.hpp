// Photogrammetry-like point density: where a real survey puts more or fewer points per square
// metre. Denser where neighbouring flight strips overlap and around the scanned object, patchy
// at survey scale; water (handled by the caller) returns almost nothing.
#pragma once

#include <cstdint>

namespace simlod::synth::detail {

class DensityField {
 public:
  /// `focus_x/y`: centre of the close-range scan (the sculpture).
  DensityField(std::uint64_t seed, double focus_x, double focus_y);

  /// Relative points per square metre of surface at (x, y); about 1 on open ground, > 0.
  [[nodiscard]] double at(double x, double y) const;

 private:
  std::uint64_t seed_;
  double focus_x_;
  double focus_y_;
};

}  // namespace simlod::synth::detail
