// Helpers for the octree tests: synthetic scenes shifted into octree coordinates, small
// configurations that give deep trees quickly, and building a tree batch by batch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <vector>

#include "simlod/attributes.hpp"
#include "simlod/octree.hpp"
#include "simlod/synth.hpp"

namespace simlod::test {

/// Points in octree coordinates together with the bounds to create the octree with.
struct Scene {
  Bounds bounds;  ///< file coordinates; cube().min is bounds.min
  std::vector<Point> points;
};

/// Shifts points so that the minimum corner of their bounds becomes the origin.
inline Scene to_octree_coordinates(std::vector<Point> points) {
  Bounds b;
  for (const Point& p : points) b.expand(p.x, p.y, p.z);
  if (b.empty()) b.expand(0.0, 0.0, 0.0);
  for (Point& p : points) {
    p.x = static_cast<float>(p.x - b.min[0]);
    p.y = static_cast<float>(p.y - b.min[1]);
    p.z = static_cast<float>(p.z - b.min[2]);
  }
  return {b, std::move(points)};
}

/// A synthetic scene of `n` points (cached: tests reuse scenes).
inline const Scene& synth_scene(std::uint64_t n, synth::Order order, std::uint64_t seed = 1) {
  static std::map<std::tuple<std::uint64_t, int, std::uint64_t>, Scene> cache;
  const auto key = std::make_tuple(n, static_cast<int>(order), seed);
  auto it = cache.find(key);
  if (it == cache.end()) {
    synth::Generator gen({.points = n, .seed = seed, .order = order});
    std::vector<Point> points(n);
    std::size_t got = 0;
    while (got < n) got += gen.next(std::span(points).subspan(got));
    it = cache.emplace(key, to_octree_coordinates(std::move(points))).first;
  }
  return it->second;
}

/// The scene of synth_scene(n, Scan, seed) with every point shuffled (synth::shuffle): no batch
/// is spatially coherent, as with merged tiles or photogrammetry exports (cached).
inline const Scene& random_scene(std::uint64_t n, std::uint64_t seed = 1) {
  static std::map<std::pair<std::uint64_t, std::uint64_t>, Scene> cache;
  auto it = cache.find({n, seed});
  if (it == cache.end()) {
    Scene scene = synth_scene(n, synth::Order::Scan, seed);
    synth::shuffle(scene.points, seed);
    it = cache.emplace(std::make_pair(n, seed), std::move(scene)).first;
  }
  return it->second;
}

/// 512 leaves of 990 points (level 3 of an 8 m cube, for a leaf limit of 1000), then one batch
/// of 20 points in each: all 512 leaves split in round 1 of that batch, as when points arrive
/// in random order.
struct FullLeaves {
  Bounds bounds;
  std::vector<Point> first, second;
};

inline FullLeaves full_leaves() {
  FullLeaves f;
  f.bounds.expand(0, 0, 0);
  f.bounds.expand(8, 8, 8);
  std::uint64_t state = 7;
  auto unit = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((state >> 40) & 0xFFFFFF) / 16777216.0f;
  };
  for (int cell = 0; cell < 512; ++cell) {
    const float x = static_cast<float>(cell & 7), y = static_cast<float>((cell >> 3) & 7),
                z = static_cast<float>(cell >> 6);
    for (int i = 0; i < 1010; ++i) {
      const Point p{x + unit(), y + unit(), z + unit(), static_cast<std::uint32_t>(cell)};
      (i < 990 ? f.first : f.second).push_back(p);
    }
  }
  return f;
}

/// The cube [0, edge]^3.
inline Bounds cube_at_origin(double edge) {
  Bounds b;
  b.expand(0.0, 0.0, 0.0);
  b.expand(edge, edge, edge);
  return b;
}

/// CPU configuration that makes deep trees from few points.
inline OctreeConfig small_config(std::uint32_t leaf = 2000, std::uint32_t grid = 32,
                                 std::uint32_t chunk = 500) {
  OctreeConfig c;
  c.backend = Backend::Cpu;
  c.max_points_per_leaf = leaf;
  c.voxel_grid = grid;
  c.chunk_capacity = chunk;
  return c;
}

/// Inserts `points` in batches of `batch`, calling update() after every `per_update` batches.
inline void insert_all(Octree& tree, std::span<const Point> points, std::size_t batch,
                       std::size_t per_update = 1) {
  std::size_t queued = 0;
  for (std::size_t i = 0; i < points.size(); i += batch) {
    tree.insert(points.subspan(i, std::min(batch, points.size() - i)));
    if (++queued % per_update == 0) tree.update();
  }
  tree.update();
}

/// The bounds of `points` (a camera's box).
inline Bounds box_of(std::span<const Point> points) {
  Bounds box;
  for (const Point& p : points) box.expand(p.x, p.y, p.z);
  return box;
}

/// Made-up intensity and classification for `n` points from `first` on.
inline PointAttributes made_up_attributes(std::size_t first, std::size_t n) {
  PointAttributes a;
  for (std::size_t i = first; i < first + n; ++i) {
    a.intensity.push_back(static_cast<std::uint16_t>(i * 2654435761u >> 16));
    a.classification.push_back(static_cast<std::uint8_t>(i % 7));
  }
  return a;
}

/// Inserts `points` in batches of `batch`, each with update() (with made-up_attributes() when
/// the config keeps channels).
inline void insert_batches(Octree& tree, std::span<const Point> points, std::size_t batch) {
  for (std::size_t i = 0; i < points.size(); i += batch) {
    const std::size_t n = std::min(batch, points.size() - i);
    if (tree.config().channels != 0) {
      tree.insert(points.subspan(i, n), made_up_attributes(i, n));
    } else {
      tree.insert(points.subspan(i, n));
    }
    (void)tree.update();
  }
}

inline Octree build(const Bounds& bounds, const OctreeConfig& config, std::span<const Point> points,
                    std::size_t batch) {
  Octree tree = Octree::create(bounds, config);
  insert_all(tree, points, batch);
  return tree;
}

}  // namespace simlod::test
