// The synthetic scene in reference coordinates (x, y in [0, 1000] m, z up): terrain, a town of
// buildings around a plaza with a sculpture, farms, forests and lone trees. Built once from
// the seed; independent of the point count and of the order points are produced in.
#pragma once

#include <cstdint>
#include <vector>

#include "synth/density.hpp"
#include "synth/footprints.hpp"
#include "synth/shapes.hpp"
#include "synth/terrain.hpp"
#include "synth/vec3.hpp"

namespace simlod::synth::detail {

/// What a surface is made of: decides its colour pattern.
enum class Material : std::uint8_t {
  Wall,       ///< facade with rows of windows
  GableWall,  ///< triangular gable end, no windows
  FlatRoof,
  TiledRoof,
  Trunk,
  Foliage,
  Needles,
  Pedestal,  ///< marble
  Ring,      ///< rainbow around the ring
  Orb,       ///< banded sphere
};

// Ground truth of every generated point, as ASPRS LAS classification codes.
inline constexpr std::uint8_t kClassUnclassified = 1;
inline constexpr std::uint8_t kClassGround = 2;
inline constexpr std::uint8_t kClassHighVegetation = 5;
inline constexpr std::uint8_t kClassBuilding = 6;
inline constexpr std::uint8_t kClassWater = 9;

/// The class of a point on a surface of `material` (the sculpture is no LAS category).
[[nodiscard]] constexpr std::uint8_t las_class(Material material) {
  switch (material) {
    case Material::Wall:
    case Material::GableWall:
    case Material::FlatRoof:
    case Material::TiledRoof: return kClassBuilding;
    case Material::Trunk:
    case Material::Foliage:
    case Material::Needles: return kClassHighVegetation;
    case Material::Pedestal:
    case Material::Ring:
    case Material::Orb: return kClassUnclassified;
  }
  return kClassUnclassified;
}

/// Surfaces that can reach into the ground: walls are modelled from below the lowest ground of
/// their footprint and roofs at heights above it (on a steep slope the uphill side of a house
/// is buried), trunks and the pedestal's sides from below the ground. Only their part above the
/// visible surface is sampled, as a scanner sees them. Crowns are not tested (a test a point
/// costs a fifth of the generator's speed): the lowest edge of a low tree's crown on a slope
/// can dip into the ground (about one point in 10^6).
[[nodiscard]] constexpr bool may_reach_underground(Material material) {
  return las_class(material) == kClassBuilding || material == Material::Trunk ||
         material == Material::Pedestal;
}

struct Primitive {
  Shape shape;
  Material material = Material::Wall;
  std::uint32_t rgba = 0;     ///< base colour
  std::uint32_t variant = 0;  ///< per-object hash for colour patterns
  double density = 1.0;       ///< relative points per square metre
};

/// Street grid of the town: blocks of kBlockPitch around the central plaza block.
struct TownPlan {
  double cx = 0.0;
  double cy = 0.0;
  double ground = 0.0;

  /// Block (i, j), i, j in [-kTownBlockRadius, kTownBlockRadius], without the streets.
  [[nodiscard]] Rect block(int i, int j) const;
  [[nodiscard]] bool in_town(double x, double y) const;
  [[nodiscard]] bool on_street(double x, double y) const;
  [[nodiscard]] bool in_plaza(double x, double y) const;
  /// Signed distance across the nearest street from its centre line (for lane markings).
  [[nodiscard]] double street_offset(double x, double y) const;
};

struct Scene {
  explicit Scene(std::uint64_t seed);

  std::uint64_t seed;
  Terrain terrain;
  TownPlan town;
  DensityField density;
  Footprints footprints;
  std::vector<Primitive> primitives;
  Box3 bounds;  ///< contains every point (reference units, surface offsets included)

  /// Appends a primitive with the density of the density field at its centre times `factor`.
  void add(const Shape& shape, Material material, std::uint32_t rgba, std::uint32_t variant,
           double factor = 1.0);
};

// Scene builders (one file each).
void add_sculpture(Scene& scene);
void add_town(Scene& scene);
void add_farms(Scene& scene);
void add_forests(Scene& scene);

}  // namespace simlod::synth::detail
