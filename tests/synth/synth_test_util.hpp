// Helpers shared by the synthetic-scene tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "simlod/synth.hpp"
#include "synth/stream.hpp"

namespace simlod::synth::test {

/// All points of a generator, read in batches of `batch`.
inline std::vector<Point> drain(Generator& gen, std::size_t batch = 1 << 16) {
  std::vector<Point> all;
  std::vector<Point> buf(batch);
  while (const std::size_t n = gen.next(buf)) all.insert(all.end(), buf.begin(), buf.begin() + n);
  return all;
}

inline std::vector<Point> generate(const SceneConfig& config, std::size_t batch = 1 << 16) {
  Generator gen(config);
  return drain(gen, batch);
}

/// All points of an engine with a small unit bound (forces many tiles at small counts).
inline std::vector<Point> drain(detail::PointStream& stream, std::size_t batch = 1 << 16) {
  std::vector<Point> all;
  std::vector<Point> buf(batch);
  while (const std::size_t n = stream.next(buf)) {
    all.insert(all.end(), buf.begin(), buf.begin() + n);
  }
  return all;
}

/// Bitwise comparison (distinguishes -0.0f from 0.0f, unlike operator==).
inline bool identical(const std::vector<Point>& a, const std::vector<Point>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Point)) == 0);
}

inline std::vector<Point> sorted(std::vector<Point> points) {
  std::sort(points.begin(), points.end(),
            [](const Point& a, const Point& b) { return std::memcmp(&a, &b, sizeof(Point)) < 0; });
  return points;
}

inline double distance(const Point& a, const Point& b) {
  const double dx = a.x - b.x;
  const double dy = a.y - b.y;
  const double dz = a.z - b.z;
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

/// Mean distance between consecutive points.
inline double mean_step(const std::vector<Point>& points) {
  double sum = 0.0;
  for (std::size_t i = 1; i < points.size(); ++i) sum += distance(points[i - 1], points[i]);
  return sum / static_cast<double>(points.size() - 1);
}

/// Mean diagonal of the bounding boxes of consecutive batches of `batch` points.
inline double mean_batch_diagonal(const std::vector<Point>& points, std::size_t batch) {
  double sum = 0.0;
  std::size_t batches = 0;
  for (std::size_t first = 0; first + batch <= points.size(); first += batch, ++batches) {
    Bounds box;
    for (std::size_t i = first; i < first + batch; ++i) {
      box.expand(points[i].x, points[i].y, points[i].z);
    }
    const auto s = box.size();
    sum += std::sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  }
  return sum / static_cast<double>(batches);
}

}  // namespace simlod::synth::test
