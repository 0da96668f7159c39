// The town: a square street grid around the plaza, blocks filled with towers near the centre
// and houses further out, a few parks and street trees.
#include <algorithm>
#include <cmath>

#include "synth/buildings.hpp"
#include "synth/rng.hpp"
#include "synth/scene.hpp"
#include "synth/tuning.hpp"
#include "synth/vegetation.hpp"

namespace simlod::synth::detail {

Rect TownPlan::block(int i, int j) const {
  return {cx + (i - 0.5) * kBlockPitch + kStreetHalfWidth,
          cy + (j - 0.5) * kBlockPitch + kStreetHalfWidth,
          cx + (i + 0.5) * kBlockPitch - kStreetHalfWidth,
          cy + (j + 0.5) * kBlockPitch - kStreetHalfWidth};
}

bool TownPlan::in_town(double x, double y) const {
  return std::max(std::abs(x - cx), std::abs(y - cy)) < Terrain::town_half_size();
}

double TownPlan::street_offset(double x, double y) const {
  // Street centre lines lie at (m + 0.5) * pitch from the centre.
  auto offset = [](double local) {
    return local - (std::round(local / kBlockPitch - 0.5) + 0.5) * kBlockPitch;
  };
  const double ox = offset(x - cx);
  const double oy = offset(y - cy);
  return std::abs(ox) < std::abs(oy) ? ox : oy;
}

bool TownPlan::on_street(double x, double y) const {
  return in_town(x, y) && std::abs(street_offset(x, y)) < kStreetHalfWidth;
}

bool TownPlan::in_plaza(double x, double y) const {
  return std::max(std::abs(x - cx), std::abs(y - cy)) < 0.5 * kBlockPitch - kStreetHalfWidth;
}

namespace {

void add_lot_building(Scene& scene, const Rect& lot, int ring, Rng& rng) {
  const Rect fp{lot.x0 + rng.uniform(2.0, 5.0), lot.y0 + rng.uniform(2.0, 5.0),
                lot.x1 - rng.uniform(2.0, 5.0), lot.y1 - rng.uniform(2.0, 5.0)};
  if (fp.x1 - fp.x0 < 6.0 || fp.y1 - fp.y0 < 6.0) return;
  BuildingSpec spec;
  spec.footprint = fp;
  spec.variant = static_cast<std::uint32_t>(rng.next());
  if (ring == 1) {
    spec.roof = RoofKind::Flat;
    spec.eave_height = rng.uniform(18.0, 45.0);
  } else if (ring == 2 && rng.chance(0.5)) {
    spec.roof = RoofKind::Flat;
    spec.eave_height = rng.uniform(9.0, 20.0);
  } else {
    spec.roof = rng.chance(0.8) ? RoofKind::Gable : RoofKind::Flat;
    spec.eave_height = ring == 2 ? rng.uniform(7.0, 11.0) : rng.uniform(4.5, 8.0);
  }
  spec.pitch = rng.uniform(0.5, 0.9);
  spec.ridge_along_x = (fp.x1 - fp.x0) >= (fp.y1 - fp.y0);
  spec.wall_rgba = wall_colour(rng.next());
  spec.roof_rgba = roof_colour(rng.next(), spec.roof);
  add_building(scene, spec);
}

void fill_block(Scene& scene, const Rect& b, int ring, Rng& rng) {
  const int split = ring == 1 ? 0 : static_cast<int>(rng.below(3));
  const double mx = 0.5 * (b.x0 + b.x1);
  const double my = 0.5 * (b.y0 + b.y1);
  if (split == 0) {
    add_lot_building(scene, b, ring, rng);
  } else if (split == 1) {
    if (rng.chance(0.5)) {
      add_lot_building(scene, {b.x0, b.y0, mx, b.y1}, ring, rng);
      add_lot_building(scene, {mx, b.y0, b.x1, b.y1}, ring, rng);
    } else {
      add_lot_building(scene, {b.x0, b.y0, b.x1, my}, ring, rng);
      add_lot_building(scene, {b.x0, my, b.x1, b.y1}, ring, rng);
    }
  } else {
    add_lot_building(scene, {b.x0, b.y0, mx, my}, ring, rng);
    add_lot_building(scene, {mx, b.y0, b.x1, my}, ring, rng);
    add_lot_building(scene, {b.x0, my, mx, b.y1}, ring, rng);
    add_lot_building(scene, {mx, my, b.x1, b.y1}, ring, rng);
  }
}

void add_park(Scene& scene, const Rect& b, Rng& rng) {
  const int trees = 6 + static_cast<int>(rng.below(8));
  for (int t = 0; t < trees; ++t) {
    const double y = rng.uniform(b.y0 + 5.0, b.y1 - 5.0);  // sequenced (see vegetation.cpp)
    add_tree(scene, rng.uniform(b.x0 + 5.0, b.x1 - 5.0), y, TreeKind::Broadleaf, rng);
  }
}

void add_street_trees(Scene& scene, const Rect& b, Rng& rng) {
  // One row along the block's southern edge, where the pavement meets the street.
  for (double x = b.x0 + 4.0; x < b.x1 - 3.0; x += 11.0) {
    if (scene.footprints.near(x, b.y0 + 1.5, 1.0)) continue;
    add_tree(scene, x, b.y0 + 1.5, TreeKind::Broadleaf, rng);
  }
}

}  // namespace

void add_town(Scene& scene) {
  Rng rng(mix(stream_key(scene.seed, Stream::Town), 1));
  const TownPlan& town = scene.town;
  for (int j = -kTownBlockRadius; j <= kTownBlockRadius; ++j) {
    for (int i = -kTownBlockRadius; i <= kTownBlockRadius; ++i) {
      const int ring = std::max(std::abs(i), std::abs(j));
      if (ring == 0) continue;  // the plaza
      const Rect b = town.block(i, j);
      if (ring == kTownBlockRadius && rng.chance(kMissingOuterBlockChance)) continue;
      if (rng.chance(kParkChance)) {
        add_park(scene, b, rng);
        continue;
      }
      fill_block(scene, b, ring, rng);
      if (ring >= 2 && rng.chance(0.3)) add_street_trees(scene, b, rng);
    }
  }
}

}  // namespace simlod::synth::detail
