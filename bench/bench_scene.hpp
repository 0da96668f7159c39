// The synthetic scenes of the benchmark programs: generated once into host memory, in octree
// coordinates, in scan, Morton or random order (the scan order shuffled).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"
#include "simlod/synth.hpp"

namespace simlod::bench {

/// The generator's orders, and the scan order shuffled (merged tiles, photogrammetry exports).
enum class Order { Scan, Morton, Random };

struct Scene {
  simlod::Bounds bounds;
  std::vector<Point> points;  ///< relative to bounds.min (octree coordinates)
};

/// The scene of `n` points in `order`, generated on first use and kept for later benchmarks.
inline const Scene& scene(std::uint64_t n, Order order) {
  static std::map<std::pair<std::uint64_t, int>, Scene> cache;
  const auto key = std::make_pair(n, static_cast<int>(order));
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const auto generated =
      order == Order::Morton ? simlod::synth::Order::Morton : simlod::synth::Order::Scan;
  simlod::synth::Generator gen({.points = n, .seed = 1, .order = generated});
  Scene s;
  s.bounds = gen.bounds();
  s.points.resize(n);
  std::size_t got = 0;
  while (got < n) got += gen.next(std::span(s.points).subspan(got));
  const auto& lo = s.bounds.min;
  for (Point& p : s.points) {
    p.x = static_cast<float>(p.x - lo[0]);
    p.y = static_cast<float>(p.y - lo[1]);
    p.z = static_cast<float>(p.z - lo[2]);
  }
  if (order == Order::Random) simlod::synth::shuffle(s.points, 1);
  return cache.emplace(key, std::move(s)).first->second;
}

}  // namespace simlod::bench
