// Produces the points of one tile. Point i of tile t is a pure function of (seed, level, t, i):
// it picks a terrain cell or surface piece of the tile by weight, a position on it, and a
// colour, all from a random stream keyed by those values. Tiles and points can therefore be
// generated in any order and on any thread with the same result.
#pragma once

#include <cstdint>
#include <vector>

#include "synth/plan.hpp"
#include "synth/rng.hpp"
#include "synth/scene.hpp"

namespace simlod::synth::detail {

struct ScenePoint {
  Vec3 position;  ///< reference coordinates
  std::uint32_t rgba = 0;
  std::uint8_t classification = kClassUnclassified;  ///< ASPRS code (ground truth)
};

class TileSampler {
 public:
  TileSampler(const Scene& scene, const TilePlan& plan, std::uint32_t tile);

  [[nodiscard]] ScenePoint sample(std::uint64_t index) const;

 private:
  void build_alias_table(const std::vector<double>& weights);
  [[nodiscard]] ScenePoint terrain_point(std::uint32_t cell, Rng& rng) const;
  [[nodiscard]] ScenePoint element_point(const Element& element, Rng& rng) const;

  const Scene* scene_;
  const TilePlan* plan_;
  std::uint64_t key_;
  std::uint32_t cell_x0_;  // first terrain cell of the tile
  std::uint32_t cell_y0_;
  std::uint32_t cells_;  // cells per tile side
  std::span<const Element> elements_;
  // Walker/Vose alias table over the tile's cells (row-major) and then its elements: O(1)
  // weighted picks, where a binary search over a cumulative table missed the cache.
  std::vector<double> threshold_;
  std::vector<std::uint32_t> alias_;
};

}  // namespace simlod::synth::detail
