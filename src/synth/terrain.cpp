#include "synth/terrain.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "synth/rng.hpp"
#include "synth/vec3.hpp"

namespace simlod::synth::detail {

Terrain::Terrain(std::uint64_t seed)
    : noise_seed_(stream_key(seed, Stream::TerrainShape)),
      fbm_{kTerrainOctaves, kTerrainWavelength, kTerrainAmplitude, 2.0, 0.5} {
  Rng rng(mix(noise_seed_, 1));
  double hill_sum = 0.0;
  for (Hill& hill : hills_) {
    hill.x = rng.uniform(0.1, 0.9) * kReferenceExtent;
    hill.y = rng.uniform(0.1, 0.9) * kReferenceExtent;
    hill.height = rng.uniform(kHillMinHeight, kHillMaxHeight);
    hill.radius = rng.uniform(kHillMinRadius, kHillMaxRadius);
    hill_sum += hill.height;
  }
  // The lake fills the lowest kWaterQuantile of the raw terrain.
  std::vector<double> probes;
  probes.reserve(kWaterProbeGrid * kWaterProbeGrid);
  for (int j = 0; j < kWaterProbeGrid; ++j) {
    for (int i = 0; i < kWaterProbeGrid; ++i) {
      probes.push_back(raw((i + 0.5) * kReferenceExtent / kWaterProbeGrid,
                           (j + 0.5) * kReferenceExtent / kWaterProbeGrid)
                           .height);
    }
  }
  const auto nth = static_cast<std::ptrdiff_t>(kWaterQuantile * static_cast<double>(probes.size()));
  std::nth_element(probes.begin(), probes.begin() + nth, probes.end());
  water_level_ = probes[static_cast<std::size_t>(nth)];
  // Flattening only blends between raw heights and the town level, so this bound holds.
  max_height_ = fbm_bound(fbm_) + hill_sum;
  place_town(seed);
}

void Terrain::place_town(std::uint64_t seed) {
  // Among a few candidate centres, take the flattest one that stands clear of the lake.
  Rng rng(stream_key(seed, Stream::Town));
  const double margin = town_half_size() + kTownRamp + kSceneMargin;
  double best_score = -1e300;
  for (int attempt = 0; attempt < 24; ++attempt) {
    const double x = rng.uniform(margin, kReferenceExtent - margin);
    const double y = rng.uniform(margin, kReferenceExtent - margin);
    const HeightSample s = raw(x, y);
    const double clearance = s.height - water_level_ - kTownAboveWater;
    const double score =
        (clearance >= 0.0 ? 0.0 : clearance * 1000.0) - std::hypot(s.dx, s.dy) * 100.0;
    if (score > best_score) {
      best_score = score;
      town_x_ = x;
      town_y_ = y;
      town_level_ = std::max(s.height, water_level_ + kTownAboveWater);
    }
  }
  max_height_ = std::max(max_height_, town_level_);
}

HeightSample Terrain::raw(double x, double y) const {
  const Noise2 n = fbm(x, y, noise_seed_, fbm_);
  HeightSample s{n.value, n.dx, n.dy};
  for (const Hill& hill : hills_) {
    const double ex = x - hill.x;
    const double ey = y - hill.y;
    const double inv = 1.0 / (2.0 * hill.radius * hill.radius);
    const double g = hill.height * std::exp(-(ex * ex + ey * ey) * inv);
    s.height += g;
    s.dx += -2.0 * ex * inv * g;
    s.dy += -2.0 * ey * inv * g;
  }
  return s;
}

HeightSample Terrain::land(double x, double y) const {
  HeightSample s = raw(x, y);
  // Chebyshev distance to the town centre: a square town, blended over kTownRamp.
  const double ax = std::abs(x - town_x_);
  const double ay = std::abs(y - town_y_);
  const double d = std::max(ax, ay);
  const double inner = town_half_size();
  if (d >= inner + kTownRamp) return s;
  const double t = std::clamp((d - inner) / kTownRamp, 0.0, 1.0);
  const double m = 1.0 - t * t * (3.0 - 2.0 * t);  // 1 inside the town, 0 outside the ramp
  double dm_dd = 0.0;
  if (t > 0.0 && t < 1.0) dm_dd = -6.0 * t * (1.0 - t) / kTownRamp;
  double dd_dx = 0.0;
  double dd_dy = 0.0;
  if (ax >= ay) {
    dd_dx = x >= town_x_ ? 1.0 : -1.0;
  } else {
    dd_dy = y >= town_y_ ? 1.0 : -1.0;
  }
  const double diff = town_level_ - s.height;
  return {s.height + m * diff, s.dx * (1.0 - m) + diff * dm_dd * dd_dx,
          s.dy * (1.0 - m) + diff * dm_dd * dd_dy};
}

double Terrain::surface(double x, double y) const {
  return std::max(land(x, y).height, water_level_);
}

}  // namespace simlod::synth::detail
