#include "synth/sampler.hpp"

#include <algorithm>

#include "synth/colour.hpp"
#include "synth/rng.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {

TileSampler::TileSampler(const Scene& scene, const TilePlan& plan, std::uint32_t tile)
    : scene_(&scene),
      plan_(&plan),
      key_(
          mix(mix(stream_key(scene.seed, Stream::Points), static_cast<std::uint64_t>(plan.level())),
              tile)),
      cells_(plan.cells_per_tile()),
      elements_(plan.elements(tile)) {
  const std::uint32_t side = plan.tiles_per_side();
  cell_x0_ = (tile % side) * cells_;
  cell_y0_ = (tile / side) * cells_;
  std::vector<double> weights;
  weights.reserve(static_cast<std::size_t>(cells_) * cells_ + elements_.size());
  for (std::uint32_t j = 0; j < cells_; ++j) {
    for (std::uint32_t i = 0; i < cells_; ++i) {
      weights.push_back(plan.cell_weight(cell_x0_ + i, cell_y0_ + j));
    }
  }
  for (const Element& e : elements_) weights.push_back(e.weight);
  build_alias_table(weights);
}

void TileSampler::build_alias_table(const std::vector<double>& weights) {
  // Vose's method: entries with less than the mean weight are topped up by one larger entry.
  const std::size_t n = weights.size();
  double total = 0.0;
  for (double w : weights) total += w;
  threshold_.assign(n, 1.0);
  alias_.resize(n);
  std::vector<double> scaled(n);
  std::vector<std::uint32_t> small;
  std::vector<std::uint32_t> large;
  for (std::size_t i = 0; i < n; ++i) {
    alias_[i] = static_cast<std::uint32_t>(i);
    scaled[i] = total > 0.0 ? weights[i] * static_cast<double>(n) / total : 1.0;
    (scaled[i] < 1.0 ? small : large).push_back(static_cast<std::uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const std::uint32_t s = small.back();
    const std::uint32_t l = large.back();
    small.pop_back();
    threshold_[s] = scaled[s];
    alias_[s] = l;
    scaled[l] -= 1.0 - scaled[s];
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  // Whatever is left is 1 up to rounding: it keeps threshold 1 (always itself), except
  // entries of zero weight, which must never be picked.
  const auto positive =
      std::find_if(weights.begin(), weights.end(), [](double w) { return w > 0.0; });
  for (std::uint32_t s : small) {
    if (weights[s] <= 0.0 && positive != weights.end()) {
      threshold_[s] = 0.0;
      alias_[s] = static_cast<std::uint32_t>(positive - weights.begin());
    }
  }
}

ScenePoint TileSampler::sample(std::uint64_t index) const {
  Rng rng(mix(key_, index));
  const double pick = rng.uniform() * static_cast<double>(threshold_.size());
  auto slot = static_cast<std::size_t>(pick);
  if (slot >= threshold_.size()) slot = threshold_.size() - 1;
  if (pick - static_cast<double>(slot) >= threshold_[slot]) slot = alias_[slot];
  const std::size_t cell_count = static_cast<std::size_t>(cells_) * cells_;
  if (slot < cell_count) return terrain_point(static_cast<std::uint32_t>(slot), rng);
  return element_point(elements_[slot - cell_count], rng);
}

ScenePoint TileSampler::terrain_point(std::uint32_t cell, Rng& rng) const {
  const Scene& scene = *scene_;
  const std::uint32_t cx = cell_x0_ + cell % cells_;
  const std::uint32_t cy = cell_y0_ + cell / cells_;
  const double size = kReferenceExtent / static_cast<double>(1u << plan_->terrain_level());
  const bool covered = plan_->cell_covered(cx, cy);
  double x = 0.0;
  double y = 0.0;
  // The cell's weight already excludes the covered part; resampling spreads its points over
  // the open part. After kFootprintRetries misses the point is kept (a wall foot, at worst).
  for (int attempt = 0; attempt < kFootprintRetries; ++attempt) {
    x = (cx + rng.uniform()) * size;
    y = (cy + rng.uniform()) * size;
    if (!covered || !scene.footprints.contains(x, y)) break;
  }
  const HeightSample land = scene.terrain.land(x, y);
  const bool water = land.height < scene.terrain.water_level();
  const Vec3 normal = water ? Vec3{0, 0, 1} : normalized({-land.dx, -land.dy, 1.0});
  const double z = (water ? scene.terrain.water_level() : land.height) +
                   kSurfaceNoise * (2.0 * rng.uniform() - 1.0);
  return {{x, y, z},
          terrain_colour(scene, x, y, land, water, normal, rng),
          water ? kClassWater : kClassGround};
}

ScenePoint TileSampler::element_point(const Element& element, Rng& rng) const {
  const Primitive& prim = scene_->primitives[element.primitive];
  const auto [nu, nv] = plan_->subdivision(element.primitive);
  double u = 0.0;
  double v = 0.0;
  SurfacePoint point;
  // Surfaces that may reach into the ground are sampled above it only (the piece's weight
  // counts that share); after kFootprintRetries misses (a sliver of a piece above the ground)
  // the point moves up to the ground (along a wall or trunk, which are vertical).
  for (int attempt = 0; attempt < kFootprintRetries; ++attempt) {
    u = (element.iu + rng.uniform()) / nu;
    v = (element.iv + rng.uniform()) / nv;
    point = evaluate(prim.shape, u, v);
    if (!may_reach_underground(prim.material)) break;
    const double ground = scene_->terrain.surface(point.position.x, point.position.y);
    if (point.position.z >= ground) break;
    if (attempt + 1 == kFootprintRetries) point.position.z = ground;
  }
  const bool leaves = prim.material == Material::Foliage || prim.material == Material::Needles;
  // Leaves scatter into the crown; hard surfaces only carry measurement noise.
  const double offset =
      leaves ? -kFoliageDepth * rng.uniform() : kSurfaceNoise * (2.0 * rng.uniform() - 1.0);
  return {point.position + offset * point.normal, surface_colour(prim, u, v, point, rng),
          las_class(prim.material)};
}

}  // namespace simlod::synth::detail
