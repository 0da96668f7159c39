#include "synth/vegetation.hpp"

#include <algorithm>
#include <cmath>

#include "simlod/point.hpp"
#include "synth/noise.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {
namespace {

/// A colour drawn channel by channel, blue first: the draws are sequenced (function arguments
/// are not, so drawing inside a call's arguments gave compiler-dependent scenes).
std::uint32_t random_rgb(Rng& rng, double r0, double r1, double g0, double g1, double b0,
                         double b1) {
  const auto b = static_cast<std::uint32_t>(rng.uniform(b0, b1));
  const auto g = static_cast<std::uint32_t>(rng.uniform(g0, g1));
  const auto r = static_cast<std::uint32_t>(rng.uniform(r0, r1));
  return pack_rgba(r, g, b);
}

std::uint32_t foliage_colour(TreeKind kind, Rng& rng) {
  if (kind == TreeKind::Conifer) return random_rgb(rng, 30, 48, 66, 90, 36, 52);
  if (rng.chance(0.05)) {  // a tree already in autumn colours
    return rng.chance(0.5) ? pack_rgba(184, 120, 40) : pack_rgba(158, 64, 36);
  }
  return random_rgb(rng, 52, 90, 96, 138, 28, 52);
}

}  // namespace

void add_tree(Scene& scene, double x, double y, TreeKind kind, Rng& rng) {
  const double ground = scene.terrain.land(x, y).height;
  const auto variant = static_cast<std::uint32_t>(rng.next());
  const std::uint32_t leaves = foliage_colour(kind, rng);
  const auto bark_green = static_cast<std::uint32_t>(rng.uniform(64, 80));
  const std::uint32_t bark =
      pack_rgba(static_cast<std::uint32_t>(rng.uniform(80, 105)), bark_green, 52);
  if (kind == TreeKind::Conifer) {
    const double trunk = rng.uniform(1.2, 2.8);
    const double crown = rng.uniform(8.0, 17.0);
    const double radius = crown * rng.uniform(0.2, 0.28);
    scene.add(make_cylinder({x, y, ground - 0.3}, rng.uniform(0.18, 0.32), trunk + 0.3 + 1.0),
              Material::Trunk, bark, variant, kTrunkDensity);
    scene.add(make_cone({x, y, ground + trunk + crown}, radius, crown), Material::Needles, leaves,
              variant, kFoliageDensity);
    return;
  }
  const double trunk = rng.uniform(2.0, 4.5);
  const double rx = rng.uniform(2.5, 5.5);
  const double ry = rx * rng.uniform(0.85, 1.15);
  const double rz = rx * rng.uniform(0.8, 1.2);
  const double cz = ground + trunk + 0.85 * rz;
  scene.add(make_cylinder({x, y, ground - 0.3}, rng.uniform(0.2, 0.45), cz - ground + 0.3),
            Material::Trunk, bark, variant, kTrunkDensity);
  scene.add(make_ellipsoid({x, y, cz}, {rx, ry, rz}), Material::Foliage, leaves, variant,
            kFoliageDensity);
  const int extra = static_cast<int>(rng.below(3));
  for (int i = 0; i < extra; ++i) {
    const double angle = rng.uniform(0.0, 6.283185307179586);
    const double off = rx * rng.uniform(0.45, 0.7);
    const double s = rng.uniform(0.5, 0.7);
    scene.add(make_ellipsoid({x + off * std::cos(angle), y + off * std::sin(angle),
                              cz + rz * rng.uniform(-0.3, 0.35)},
                             {rx * s, ry * s, rz * s}),
              Material::Foliage, leaves, variant, kFoliageDensity);
  }
}

void add_forests(Scene& scene) {
  Rng rng(stream_key(scene.seed, Stream::Forest));
  const std::uint64_t mask_seed = rng.next();
  const double lo = kSceneMargin;
  const double hi = kReferenceExtent - kSceneMargin;
  const double town_reach = Terrain::town_half_size() + 10.0;
  for (int attempt = 0; attempt < kForestAttempts; ++attempt) {
    const double x = rng.uniform(lo, hi);
    const double y = rng.uniform(lo, hi);
    const double mask = value_noise(x / 210.0, y / 210.0, mask_seed).value +
                        0.5 * value_noise(x / 70.0, y / 70.0, mask_seed + 1).value;
    const bool forest = mask > kForestThreshold;
    const double roll = rng.uniform();
    if (!forest && roll > kLoneTreeChance) continue;
    if (std::max(std::abs(x - scene.town.cx), std::abs(y - scene.town.cy)) < town_reach) continue;
    const HeightSample ground = scene.terrain.land(x, y);
    if (ground.height < scene.terrain.water_level() + 0.5) continue;
    if (scene.footprints.near(x, y, 4.0)) continue;
    // Conifers take over on higher ground.
    const double high =
        smoothstep(scene.terrain.town_level(), scene.terrain.max_height() * 0.6, ground.height);
    const TreeKind kind = rng.chance(0.2 + 0.6 * high) ? TreeKind::Conifer : TreeKind::Broadleaf;
    add_tree(scene, x, y, kind, rng);
  }
}

}  // namespace simlod::synth::detail
