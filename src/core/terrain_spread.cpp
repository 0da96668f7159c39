#include "core/terrain_spread.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>
#include <vector>

namespace simlod::detail {
namespace {

/// One level of the pyramid: a correction and its weight (0..1) a cell (single precision: 8
/// bytes a cell, and the pyramid a third more).
struct Level {
  std::uint32_t width = 0, height = 0;
  std::vector<float> value;
  std::vector<float> weight;
};

/// The level above `l`: each cell the weighted mean of its (up to) 2x2 cells, weight capped at 1.
Level coarser(const Level& l) {
  Level up;
  up.width = (l.width + 1) / 2;
  up.height = (l.height + 1) / 2;
  up.value.assign(std::size_t{up.width} * up.height, 0.0f);
  up.weight.assign(up.value.size(), 0.0f);
  for (std::uint32_t r = 0; r < up.height; ++r) {
    for (std::uint32_t c = 0; c < up.width; ++c) {
      double sum = 0.0, w = 0.0;
      for (std::uint32_t dr = 0; dr < 2; ++dr) {
        for (std::uint32_t dc = 0; dc < 2; ++dc) {
          const std::uint32_t rr = 2 * r + dr, cc = 2 * c + dc;
          if (rr >= l.height || cc >= l.width) continue;
          const std::size_t i = std::size_t{rr} * l.width + cc;
          sum += l.value[i] * l.weight[i];
          w += l.weight[i];
        }
      }
      const std::size_t o = std::size_t{r} * up.width + c;
      up.value[o] = static_cast<float>(w > 0.0 ? sum / w : 0.0);
      up.weight[o] = static_cast<float>(std::min(w, 1.0));
    }
  }
  return up;
}

/// The coarser level's value at the centre of cell (r, c) of the finer one, bilinear between the
/// coarser cells' centres (clamped at the edges), over cells of non-zero weight.
double upsampled(const Level& up, std::uint32_t r, std::uint32_t c) {
  const double v = (r + 0.5) / 2.0 - 0.5;
  const double u = (c + 0.5) / 2.0 - 0.5;
  const double fv = std::floor(v), fu = std::floor(u);
  double sum = 0.0, w = 0.0;
  for (int dr = 0; dr < 2; ++dr) {
    for (int dc = 0; dc < 2; ++dc) {
      const double rr = std::clamp(fv + dr, 0.0, up.height - 1.0);
      const double cc = std::clamp(fu + dc, 0.0, up.width - 1.0);
      const double k = (dr != 0 ? v - fv : 1.0 - (v - fv)) * (dc != 0 ? u - fu : 1.0 - (u - fu));
      const std::size_t i = static_cast<std::size_t>(rr) * up.width + static_cast<std::size_t>(cc);
      sum += k * up.weight[i] * up.value[i];
      w += k * up.weight[i];
    }
  }
  return w > 0.0 ? sum / w : 0.0;
}

}  // namespace

void spread_corrections(terrain::Raster& out, const terrain::Raster& tin,
                        std::span<const std::uint32_t> counts) {
  Level base;
  base.width = out.width;
  base.height = out.height;
  base.value.assign(out.values.size(), 0.0f);
  base.weight.assign(out.values.size(), 0.0f);
  bool any = false;
  for (std::size_t i = 0; i < out.values.size(); ++i) {
    if (counts[i] == 0 || std::isnan(tin.values[i])) continue;
    base.value[i] =
        static_cast<float>(static_cast<double>(out.values[i]) - static_cast<double>(tin.values[i]));
    base.weight[i] = 1.0f;
    any = true;
  }
  if (!any) return;
  std::vector<Level> levels;
  levels.push_back(std::move(base));
  while (levels.back().width > 1 || levels.back().height > 1) {
    levels.push_back(coarser(levels.back()));
  }
  // Down again: each cell keeps its own share (weight) and takes the rest from the level above.
  for (std::size_t l = levels.size() - 1; l-- > 0;) {
    Level& fine = levels[l];
    const Level& up = levels[l + 1];
    for (std::uint32_t r = 0; r < fine.height; ++r) {
      for (std::uint32_t c = 0; c < fine.width; ++c) {
        const std::size_t i = std::size_t{r} * fine.width + c;
        if (fine.weight[i] >= 1.0f) continue;
        const double own = fine.weight[i];
        fine.value[i] = static_cast<float>(own * fine.value[i] + (1.0 - own) * upsampled(up, r, c));
        fine.weight[i] = 1.0f;
      }
    }
  }
  for (std::size_t i = 0; i < out.values.size(); ++i) {
    if (counts[i] != 0 || std::isnan(tin.values[i])) continue;
    out.values[i] = static_cast<float>(static_cast<double>(tin.values[i]) + levels[0].value[i]);
  }
}

}  // namespace simlod::detail
