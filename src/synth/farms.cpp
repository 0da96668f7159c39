// Farmsteads in the countryside: a house, often a barn, and a few trees around them.
#include <algorithm>
#include <cmath>

#include "synth/buildings.hpp"
#include "synth/rng.hpp"
#include "synth/scene.hpp"
#include "synth/tuning.hpp"
#include "synth/vegetation.hpp"

namespace simlod::synth::detail {
namespace {

bool buildable(const Scene& scene, const Rect& r) {
  const double lo = kSceneMargin + 10.0;
  const double hi = kReferenceExtent - lo;
  if (r.x0 < lo || r.y0 < lo || r.x1 > hi || r.y1 > hi) return false;
  const double reach = Terrain::town_half_size() + kTownRamp + 15.0;
  for (double x : {r.x0, r.x1}) {
    for (double y : {r.y0, r.y1}) {
      if (std::max(std::abs(x - scene.town.cx), std::abs(y - scene.town.cy)) < reach) {
        return false;
      }
      const HeightSample s = scene.terrain.land(x, y);
      if (s.height < scene.terrain.water_level() + 1.0 || std::hypot(s.dx, s.dy) > 0.3) {
        return false;
      }
      if (scene.footprints.near(x, y, 8.0)) return false;
    }
  }
  return !scene.footprints.near(0.5 * (r.x0 + r.x1), 0.5 * (r.y0 + r.y1), 8.0);
}

Rect rect_at(double x, double y, double w, double d, bool swap) {
  if (swap) std::swap(w, d);
  return {x - 0.5 * w, y - 0.5 * d, x + 0.5 * w, y + 0.5 * d};
}

}  // namespace

void add_farms(Scene& scene) {
  Rng rng(stream_key(scene.seed, Stream::Farms));
  int placed = 0;
  for (int attempt = 0; attempt < 400 && placed < kFarmCount; ++attempt) {
    const double x = rng.uniform(0.0, kReferenceExtent);
    const double y = rng.uniform(0.0, kReferenceExtent);
    const bool swap = rng.chance(0.5);
    const double depth = rng.uniform(7.0, 11.0);  // sequenced draws (see vegetation.cpp)
    const Rect house = rect_at(x, y, rng.uniform(9.0, 16.0), depth, swap);
    if (!buildable(scene, house)) continue;
    BuildingSpec spec;
    spec.footprint = house;
    spec.eave_height = rng.uniform(3.5, 6.5);
    spec.pitch = rng.uniform(0.6, 1.0);
    spec.ridge_along_x = !swap;
    spec.wall_rgba = wall_colour(rng.next());
    spec.roof_rgba = roof_colour(rng.next(), RoofKind::Gable);
    spec.variant = static_cast<std::uint32_t>(rng.next());
    add_building(scene, spec);
    ++placed;
    // A barn beside the house, across a yard.
    const double gap = rng.uniform(16.0, 24.0);
    const bool beside_x = rng.chance(0.5);
    const double barn_depth = rng.uniform(10.0, 14.0);
    const Rect barn = rect_at(x + (beside_x ? gap : 0.0), y + (beside_x ? 0.0 : gap),
                              rng.uniform(16.0, 24.0), barn_depth, !swap);
    if (rng.chance(0.6) && buildable(scene, barn)) {
      spec.footprint = barn;
      spec.eave_height = rng.uniform(4.0, 5.5);
      spec.pitch = rng.uniform(0.4, 0.6);
      spec.ridge_along_x = swap;
      spec.wall_rgba = wall_colour(rng.next() | 1);
      spec.roof_rgba = roof_colour(rng.next(), RoofKind::Gable);
      add_building(scene, spec);
    }
    const int trees = 2 + static_cast<int>(rng.below(4));
    for (int t = 0; t < trees; ++t) {
      const double tx = x + rng.uniform(-25.0, 25.0);
      const double ty = y + rng.uniform(-25.0, 25.0);
      if (std::min(tx, ty) < kSceneMargin || std::max(tx, ty) > kReferenceExtent - kSceneMargin) {
        continue;
      }
      if (scene.footprints.near(tx, ty, 4.0)) continue;
      if (scene.terrain.land(tx, ty).height < scene.terrain.water_level() + 0.5) continue;
      add_tree(scene, tx, ty, TreeKind::Broadleaf, rng);
    }
  }
}

}  // namespace simlod::synth::detail
