// Weights of the tile plan: terrain density cells and surface pieces, each assigned to a tile.
#include <algorithm>
#include <cmath>

#include "synth/parallel.hpp"
#include "synth/plan.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {

void TilePlan::compute_terrain(const Scene& scene, int terrain_level) {
  if (terrain_level == terrain_level_) return;
  terrain_level_ = terrain_level;
  const std::uint32_t side = 1u << terrain_level;
  const double cell = kReferenceExtent / side;
  cell_weights_.assign(static_cast<std::size_t>(side) * side, 0.0);
  cell_covered_.assign(cell_weights_.size(), 0);
  const double wl = scene.terrain.water_level();
  parallel_for(side, [&](std::size_t row) {
    for (std::uint32_t col = 0; col < side; ++col) {
      const Rect r{col * cell, static_cast<double>(row) * cell, (col + 1) * cell,
                   static_cast<double>(row + 1) * cell};
      const double x = 0.5 * (r.x0 + r.x1);
      const double y = 0.5 * (r.y0 + r.y1);
      const HeightSample land = scene.terrain.land(x, y);
      const bool water = land.height < wl;
      // Surface area grows with the slope; a survey counts points per surface area.
      const double slope = water ? 1.0 : std::sqrt(1.0 + land.dx * land.dx + land.dy * land.dy);
      const double covered = scene.footprints.covered_area(r);
      const double open = std::max(0.0, 1.0 - covered / r.area());
      const std::size_t i = row * side + col;
      cell_weights_[i] =
          r.area() * scene.density.at(x, y) * slope * open * (water ? kWaterDensity : 1.0);
      cell_covered_[i] = covered > 0.0 ? 1 : 0;
    }
  });
}

namespace {

/// The share of piece (iu, iv) of a surface that lies above the visible ground, from a grid of
/// kAboveGroundProbes^2 probes: 1 for surfaces that do not stand on the ground.
double above_ground_share(const Scene& scene, const Primitive& prim, int iu, int iv, int nu,
                          int nv) {
  if (!may_reach_underground(prim.material)) return 1.0;
  int above = 0;
  for (int b = 0; b < kAboveGroundProbes; ++b) {
    for (int a = 0; a < kAboveGroundProbes; ++a) {
      const double u = (iu + (a + 0.5) / kAboveGroundProbes) / nu;
      const double v = (iv + (b + 0.5) / kAboveGroundProbes) / nv;
      const Vec3 c = evaluate(prim.shape, u, v).position;
      above += c.z >= scene.terrain.surface(c.x, c.y) ? 1 : 0;
    }
  }
  return static_cast<double>(above) / (kAboveGroundProbes * kAboveGroundProbes);
}

}  // namespace

void TilePlan::compute_elements(const Scene& scene, int level) {
  const std::uint32_t side = 1u << level;
  const double tile = kReferenceExtent / side;
  const std::size_t count = scene.primitives.size();
  subdivision_.resize(count);
  std::vector<std::size_t> first(count + 1, 0);
  for (std::size_t p = 0; p < count; ++p) {
    const Shape& shape = scene.primitives[p].shape;
    const auto lengths = parameter_lengths(shape);
    const auto minimum = min_subdivision(shape);
    for (int d = 0; d < 2; ++d) {
      const double pieces = std::ceil(lengths[d] / (tile * kMaxElementTiles));
      subdivision_[p][d] =
          std::clamp(static_cast<int>(std::min(pieces, 1e9)), minimum[d], kMaxSubdivision);
    }
    first[p + 1] = first[p] + static_cast<std::size_t>(subdivision_[p][0]) * subdivision_[p][1];
  }
  // Pieces in primitive order, then a stable counting sort by tile: deterministic.
  std::vector<Element> pieces(first[count]);
  std::vector<std::uint32_t> tiles(first[count]);
  constexpr std::size_t kPrimitivesPerItem = 64;
  parallel_for((count + kPrimitivesPerItem - 1) / kPrimitivesPerItem, [&](std::size_t item) {
    const std::size_t end = std::min(count, (item + 1) * kPrimitivesPerItem);
    for (std::size_t p = item * kPrimitivesPerItem; p < end; ++p) {
      const Primitive& prim = scene.primitives[p];
      const auto [nu, nv] = subdivision_[p];
      std::size_t out = first[p];
      for (int iv = 0; iv < nv; ++iv) {
        for (int iu = 0; iu < nu; ++iu, ++out) {
          const double u = (iu + 0.5) / nu;
          const double v = (iv + 0.5) / nv;
          const Vec3 c = evaluate(prim.shape, u, v).position;
          const auto tx = static_cast<std::uint32_t>(
              std::clamp(static_cast<int>(std::floor(c.x / tile)), 0, static_cast<int>(side) - 1));
          const auto ty = static_cast<std::uint32_t>(
              std::clamp(static_cast<int>(std::floor(c.y / tile)), 0, static_cast<int>(side) - 1));
          tiles[out] = ty * side + tx;
          pieces[out] = {static_cast<std::uint32_t>(p), static_cast<std::uint16_t>(iu),
                         static_cast<std::uint16_t>(iv),
                         prim.density * area_scale(prim.shape, u, v) / (nu * nv) *
                             above_ground_share(scene, prim, iu, iv, nu, nv)};
        }
      }
    }
  });
  element_offsets_.assign(static_cast<std::size_t>(side) * side + 1, 0);
  for (std::uint32_t t : tiles) ++element_offsets_[t + 1];
  for (std::size_t t = 1; t < element_offsets_.size(); ++t) {
    element_offsets_[t] += element_offsets_[t - 1];
  }
  elements_.resize(pieces.size());
  std::vector<std::uint32_t> fill(element_offsets_.begin(), element_offsets_.end() - 1);
  for (std::size_t i = 0; i < pieces.size(); ++i) elements_[fill[tiles[i]]++] = pieces[i];
}

std::vector<double> TilePlan::tile_weights() const {
  const std::uint32_t side = tiles_per_side();
  const std::uint32_t cells = cells_per_tile();
  std::vector<double> weights(tile_count(), 0.0);
  parallel_for(side, [&](std::size_t ty) {
    for (std::uint32_t tx = 0; tx < side; ++tx) {
      const std::uint32_t tile = static_cast<std::uint32_t>(ty) * side + tx;
      double w = 0.0;
      for (std::uint32_t j = 0; j < cells; ++j) {
        for (std::uint32_t i = 0; i < cells; ++i) {
          w += cell_weight(tx * cells + i, static_cast<std::uint32_t>(ty) * cells + j);
        }
      }
      for (const Element& e : elements(tile)) w += e.weight;
      weights[tile] = w;
    }
  });
  return weights;
}

}  // namespace simlod::synth::detail
