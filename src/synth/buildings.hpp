// One building: four walls from below the ground to the eaves (sampled above the ground only,
// synth/sampler.cpp), and a flat or gable roof.
// Walls and roofs are sampled as surfaces (the inside stays empty, as in a real scan).
#pragma once

#include <cstdint>

#include "synth/scene.hpp"

namespace simlod::synth::detail {

enum class RoofKind : std::uint8_t { Flat, Gable };

struct BuildingSpec {
  Rect footprint;
  double eave_height = 6.0;  ///< above the lowest ground under the footprint
  RoofKind roof = RoofKind::Gable;
  double pitch = 0.7;  ///< roof rise per metre run (gable)
  bool ridge_along_x = true;
  std::uint32_t wall_rgba = 0;
  std::uint32_t roof_rgba = 0;
  std::uint32_t variant = 0;
};

/// Adds the building's surfaces and its footprint to the scene.
void add_building(Scene& scene, const BuildingSpec& spec);

/// A plausible wall or roof colour picked by `pick` (any 64-bit value).
std::uint32_t wall_colour(std::uint64_t pick);
std::uint32_t roof_colour(std::uint64_t pick, RoofKind roof);

}  // namespace simlod::synth::detail
