// The densely scanned object: a marble pedestal on the plaza carrying two crossed rings and an
// orb, scanned at close range (kSculptureDensity) and brightly coloured.
#include "simlod/point.hpp"
#include "synth/scene.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {

void add_sculpture(Scene& scene) {
  const double cx = scene.town.cx;
  const double cy = scene.town.cy;
  const double h = kPedestalHalfSize;
  const double z0 = scene.town.ground - 0.3;
  const double top = scene.town.ground + kPedestalHeight;
  const Vec3 up{0, 0, top - z0};
  auto add = [&](const Shape& shape, Material material, std::uint32_t rgba, std::uint32_t variant) {
    scene.primitives.push_back({shape, material, rgba, variant, kSculptureDensity});
  };
  const std::uint32_t marble = pack_rgba(226, 222, 214);
  add(make_quad({cx - h, cy - h, top}, {2 * h, 0, 0}, {0, 2 * h, 0}), Material::Pedestal, marble,
      0);
  add(make_quad({cx - h, cy - h, z0}, {2 * h, 0, 0}, up), Material::Pedestal, marble, 1);
  add(make_quad({cx + h, cy - h, z0}, {0, 2 * h, 0}, up), Material::Pedestal, marble, 2);
  add(make_quad({cx + h, cy + h, z0}, {-2 * h, 0, 0}, up), Material::Pedestal, marble, 3);
  add(make_quad({cx - h, cy + h, z0}, {0, -2 * h, 0}, up), Material::Pedestal, marble, 4);
  scene.footprints.add({cx - h, cy - h, cx + h, cy + h});

  const Vec3 centre{cx, cy, top + kRingRadius + kRingTube + 0.3};
  add(make_torus(centre, {1, 0, 0}, {0, 0, 1}, kRingRadius, kRingTube), Material::Ring, 0, 0);
  add(make_torus(centre, {0, 1, 0}, {0, 0, 1}, kRingRadius, kRingTube), Material::Ring, 0, 1);
  add(make_ellipsoid(centre, {kOrbRadius, kOrbRadius, kOrbRadius}), Material::Orb, 0, 0);
}

}  // namespace simlod::synth::detail
