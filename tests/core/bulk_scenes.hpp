// Scenes for the bulk builder's tests (CPU and GPU): leaves exactly at the limit, more points
// than the limit at one spot, and a cluster whose leaves lie far below level 12.
#pragma once

#include <cstdint>

#include "core/octree_test_util.hpp"

namespace simlod::test {

/// `per_octant` points on the diagonal of each of the 8 octants of an 8 m cube.
inline Scene octant_scene(std::uint32_t per_octant) {
  Scene s;
  s.bounds = cube_at_origin(8.0);
  for (std::uint32_t k = 0; k < 8; ++k) {
    for (std::uint32_t i = 0; i < per_octant; ++i) {
      const float t = 0.5f + 3.0f * static_cast<float>(i) / static_cast<float>(per_octant);
      s.points.push_back(
          {(k & 1) * 4.0f + t, (k >> 1 & 1) * 4.0f + t, (k >> 2 & 1) * 4.0f + t, 0xFF000000u | i});
    }
  }
  return s;
}

/// 300 points at one spot and 50 spread out, in a 16 m cube.
inline Scene one_spot_scene() {
  Scene s;
  s.bounds = cube_at_origin(16.0);
  for (std::uint32_t i = 0; i < 300; ++i) s.points.push_back({3.25f, 7.5f, 1.0f, i});
  for (std::uint32_t i = 0; i < 50; ++i) {
    s.points.push_back({static_cast<float>(i % 16), 15.0f - static_cast<float>(i % 7), 9.0f, i});
  }
  return s;
}

/// `n` points in a 1024 m cube: every `spread_every`-th spread over it, the rest in a cluster
/// at (100, 100, 100) `width` m wide; point i has colour colour(i).
template <class Colour>
Scene cluster_scene(std::uint32_t n, std::uint32_t spread_every, float width, Colour&& colour) {
  Scene s;
  s.bounds = cube_at_origin(1024.0);
  s.points.reserve(n);
  std::uint64_t state = 5;
  auto unit = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((state >> 40) & 0xFFFFFF) / 16777216.0f;
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const float w = i % spread_every == 0 ? 1024.0f : width;
    const float o = i % spread_every == 0 ? 0.0f : 100.0f;
    s.points.push_back({o + w * unit(), o + w * unit(), o + w * unit(), colour(i)});
  }
  return s;
}

/// `n` points: a quarter spread over a 1024 m cube, the rest in a cluster 2^-16 of it wide.
inline Scene deep_cluster_scene(std::uint32_t n) {
  return cluster_scene(n, 4, 1024.0f / 65536.0f, [](std::uint32_t i) { return 0xFF000000u | i; });
}

}  // namespace simlod::test
