#include "synth/plan.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "synth/tuning.hpp"

namespace simlod::synth::detail {

TilePlan::TilePlan(const Scene& scene, std::uint64_t points, std::uint64_t max_unit_points)
    : points_(points), max_unit_points_(std::max<std::uint64_t>(max_unit_points, 1)) {
  const double n = static_cast<double>(points);
  const double cap = static_cast<double>(max_unit_points_);
  std::vector<double> weights;
  for (int level = 0;; ++level) {
    // Uniform density is the best case: skip levels that cannot hold even that.
    if (n / static_cast<double>(1ull << (2 * level)) > cap && level < kMaxTileLevel) continue;
    level_ = level;
    compute_terrain(scene, std::max(level, kTerrainMinLevel));
    compute_elements(scene, level);
    weights = tile_weights();
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    const double fullest = *std::max_element(weights.begin(), weights.end());
    // + 1: largest-remainder rounding adds at most one point to a tile.
    if (level == kMaxTileLevel || fullest * (n / total) + 1.0 <= cap) break;
  }
  allocate(weights, points);
}

void TilePlan::allocate(const std::vector<double>& weights, std::uint64_t points) {
  // Largest remainder (Hamilton): floor of each quota, then one more point for the tiles with
  // the largest remainders (ties: lower tile index) until the total is exact.
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  const std::size_t tiles = weights.size();
  budgets_.assign(tiles, 0);
  if (points == 0 || total <= 0.0) {
    if (points > 0) budgets_[0] = points;  // unreachable for real scenes; keeps the count exact
    return;
  }
  std::vector<double> remainder(tiles);
  std::uint64_t assigned = 0;
  for (std::size_t t = 0; t < tiles; ++t) {
    const double quota = static_cast<double>(points) * (weights[t] / total);
    const double whole = std::floor(quota);
    budgets_[t] = static_cast<std::uint64_t>(whole);
    remainder[t] = quota - whole;
    assigned += budgets_[t];
  }
  std::vector<std::uint32_t> order(tiles);
  std::iota(order.begin(), order.end(), 0u);
  auto larger = [&](std::uint32_t a, std::uint32_t b) {
    return remainder[a] != remainder[b] ? remainder[a] > remainder[b] : a < b;
  };
  if (assigned < points) {
    const std::size_t missing = std::min<std::uint64_t>(points - assigned, tiles);
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(missing - 1),
                     order.end(), larger);
    for (std::size_t i = 0; i < missing; ++i) ++budgets_[order[i]];
    assigned += missing;
  }
  // Rounding of the quotas can over- or under-shoot by a few points: fix the count exactly,
  // taking from / giving to the fullest tiles where it changes the density least.
  if (assigned == points) return;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return budgets_[a] != budgets_[b] ? budgets_[a] > budgets_[b] : a < b;
  });
  for (std::size_t i = 0; assigned > points; i = (i + 1) % tiles) {
    if (budgets_[order[i]] > 0) {
      --budgets_[order[i]];
      --assigned;
    }
  }
  for (std::size_t i = 0; assigned < points; i = (i + 1) % tiles) {
    ++budgets_[order[i]];
    ++assigned;
  }
}

double TilePlan::tile_size() const { return kReferenceExtent / tiles_per_side(); }

std::span<const Element> TilePlan::elements(std::uint32_t tile) const {
  return {elements_.data() + element_offsets_[tile], elements_.data() + element_offsets_[tile + 1]};
}

double TilePlan::cell_weight(std::uint32_t cx, std::uint32_t cy) const {
  return cell_weights_[(static_cast<std::size_t>(cy) << terrain_level_) + cx];
}

bool TilePlan::cell_covered(std::uint32_t cx, std::uint32_t cy) const {
  return cell_covered_[(static_cast<std::size_t>(cy) << terrain_level_) + cx] != 0;
}

}  // namespace simlod::synth::detail
