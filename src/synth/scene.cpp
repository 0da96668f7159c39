#include "synth/scene.hpp"

#include <algorithm>

#include "synth/tuning.hpp"

namespace simlod::synth::detail {

Scene::Scene(std::uint64_t scene_seed)
    : seed(scene_seed),
      terrain(scene_seed),
      town{terrain.town_x(), terrain.town_y(), terrain.town_level()},
      density(scene_seed, town.cx, town.cy) {
  // Order matters: later builders keep clear of the footprints of earlier ones.
  add_sculpture(*this);
  add_town(*this);
  add_farms(*this);
  add_forests(*this);

  double z_lo = terrain.min_height();
  double z_hi = terrain.max_height();
  for (const Primitive& p : primitives) {
    const Box3 box = bounding_box(p.shape);
    z_lo = std::min(z_lo, box.lo.z);
    z_hi = std::max(z_hi, box.hi.z);
  }
  bounds.lo = {0.0, 0.0, z_lo - kMaxSurfaceOffset};
  bounds.hi = {kReferenceExtent, kReferenceExtent, z_hi + kMaxSurfaceOffset};
}

void Scene::add(const Shape& shape, Material material, std::uint32_t rgba, std::uint32_t variant,
                double factor) {
  const Box3 box = bounding_box(shape);
  const double d = density.at(0.5 * (box.lo.x + box.hi.x), 0.5 * (box.lo.y + box.hi.y));
  primitives.push_back({shape, material, rgba, variant, d * factor});
}

}  // namespace simlod::synth::detail
