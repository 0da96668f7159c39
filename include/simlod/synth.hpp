// simlod::synth: deterministic synthetic scenes for tests and benchmarks.
//
// A scene is a terrain height field with buildings, trees and a densely scanned object,
// coloured plausibly and with photogrammetry-like density variation. The same (points, seed)
// gives the same multiset of points in both orders; the order only changes the sequence.
// Generation streams: memory stays bounded whatever the point count (10^3 to 10^9+).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"

namespace simlod::synth {

enum class Order {
  Scan,    ///< sweeps like an aerial/terrestrial scanner (poor spatial locality per batch)
  Morton,  ///< Z-order: consecutive points are spatially close
};

struct SceneConfig {
  std::uint64_t points = 1'000'000;  ///< exact number of points generated
  std::uint64_t seed = 1;
  Order order = Order::Scan;
  double extent = 1000.0;  ///< scene width in metres (x and y); heights scale with it
};

/// Streaming generator. Not thread-safe; it may use threads internally.
class Generator {
 public:
  explicit Generator(const SceneConfig& config);
  ~Generator();
  Generator(Generator&&) noexcept;
  Generator& operator=(Generator&&) noexcept;

  /// Bounds that contain every point of the scene (known before generation), in the
  /// coordinates of the returned points (the scene's origin is 0).
  [[nodiscard]] Bounds bounds() const;
  [[nodiscard]] std::uint64_t points_left() const;
  [[nodiscard]] std::uint64_t points_generated() const;

  /// Fills `out` with the next min(out.size(), points_left()) points; returns the count.
  std::size_t next(std::span<Point> out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simlod::synth
