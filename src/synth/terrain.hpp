// The terrain: a smooth height field (fBm value noise plus a few broad hills), a lake level
// below which the surface is water, and a flattened square where the town stands.
#pragma once

#include <array>
#include <cstdint>

#include "synth/noise.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {

struct HeightSample {
  double height = 0.0;
  double dx = 0.0;  ///< slope d height / dx
  double dy = 0.0;
};

class Terrain {
 public:
  explicit Terrain(std::uint64_t seed);

  /// Ground height (ignoring water) and its gradient at (x, y), reference metres.
  [[nodiscard]] HeightSample land(double x, double y) const;
  /// Height of the visible surface: land or the lake above it.
  [[nodiscard]] double surface(double x, double y) const;
  [[nodiscard]] double water_level() const { return water_level_; }
  /// Centre of the flattened town square and its ground level.
  [[nodiscard]] double town_x() const { return town_x_; }
  [[nodiscard]] double town_y() const { return town_y_; }
  [[nodiscard]] double town_level() const { return town_level_; }
  /// Half the side of the flat town square (the ramp to the hills lies outside it).
  [[nodiscard]] static double town_half_size() {
    return (kTownBlockRadius + 0.5) * kBlockPitch + kStreetHalfWidth;
  }
  /// Bounds of surface(): every terrain point lies in [min_height, max_height].
  [[nodiscard]] double min_height() const { return water_level_; }
  [[nodiscard]] double max_height() const { return max_height_; }

 private:
  struct Hill {
    double x = 0.0, y = 0.0, height = 0.0, radius = 0.0;
  };
  [[nodiscard]] HeightSample raw(double x, double y) const;
  void place_town(std::uint64_t seed);

  std::uint64_t noise_seed_;
  FbmParams fbm_;
  std::array<Hill, kHillCount> hills_{};
  double water_level_ = 0.0;
  double max_height_ = 0.0;
  double town_x_ = 0.0;
  double town_y_ = 0.0;
  double town_level_ = 0.0;
};

}  // namespace simlod::synth::detail
