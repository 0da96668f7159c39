// simlod::synth: deterministic synthetic scenes for tests and benchmarks.
//
// A scene is a terrain height field with a lake, a town of buildings around a plaza, farms,
// forests and a densely scanned sculpture, coloured plausibly (lighting baked in) and with
// photogrammetry-like density variation. Points lie on surfaces, as a scanner sees them.
// The same (points, seed) gives the same multiset of points in both orders; the order only
// changes the sequence. The scene layout depends on the seed only, so scenes of different
// sizes show the same place.
//
// Generation streams: memory stays bounded (about 100 MB) whatever the point count (10^3 to
// 10^10), and all hardware threads are used; the output is the same bit for bit however
// next() is called and however many threads run.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"

namespace simlod::synth {

enum class Order {
  /// Acquisition order of an airborne multi-channel scanner: flight strips flown alternately
  /// east and west, sweep lines across each strip, channels interleaved. A batch covers a long
  /// thin area and consecutive points jump across the strip (poor spatial locality).
  Scan,
  /// Z-order: tiles of the scene in 2D Morton order, points within a tile in 3D Morton order
  /// of bounds().cube(). Consecutive points are spatially close.
  Morton,
};

struct SceneConfig {
  std::uint64_t points = 1'000'000;  ///< exact number of points generated (0 is allowed)
  std::uint64_t seed = 1;            ///< selects the scene; any value
  Order order = Order::Scan;
  double extent = 1000.0;  ///< scene width in metres (x and y), in [0.001, 1e7]; heights scale
  /// Threads of the library's pool the generator uses (0 = all); the points do not depend on it.
  unsigned threads = 0;
};

/// Streaming generator. Not thread-safe; it uses threads internally.
class Generator {
 public:
  /// Lays out the scene and plans the tiles (milliseconds up to ~10^8 points, under a second
  /// at 10^9). Throws InvalidInput for an extent outside [0.001, 1e7] or an unknown order.
  explicit Generator(const SceneConfig& config);
  ~Generator();
  Generator(Generator&&) noexcept;
  Generator& operator=(Generator&&) noexcept;

  /// Bounds that contain every point of the scene (known before generation), in the
  /// coordinates of the returned points: x and y span [0, extent], z the terrain (its lowest
  /// point is the lake) up to the tallest building or tree.
  [[nodiscard]] Bounds bounds() const;
  [[nodiscard]] std::uint64_t points_left() const;
  [[nodiscard]] std::uint64_t points_generated() const;

  /// Fills `out` with the next min(out.size(), points_left()) points; returns the count.
  /// Points are produced a tile (up to ~2M points) at a time on config.threads, so a call may
  /// take a while or return at once.
  std::size_t next(std::span<Point> out);
  /// As next(out), and writes the ground-truth class of out[i] to classes[i], as ASPRS LAS
  /// codes: 2 ground, 9 water (the lake's surface), 6 building, 5 high vegetation (trunks and
  /// crowns), 1 unclassified (the sculpture). The points are the same bit for bit as without
  /// classes. Throws InvalidInput, consuming nothing, when classes.size() < out.size().
  std::size_t next(std::span<Point> out, std::span<std::uint8_t> classes);

  /// Height of the land (under the lake too) at (x, y), in the coordinates of the returned
  /// points: a ground point at (x, y) lies within the measurement noise (0.02 m per 1000 m of
  /// extent) of it. Defined for any (x, y), also outside bounds(); not clamped to bounds().
  [[nodiscard]] double ground_height(double x, double y) const;
  /// Height of the lake's surface, in the coordinates of the returned points: water points lie
  /// within the measurement noise of it. Land below it is under water.
  [[nodiscard]] double water_level() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Puts `points` in a random order that depends on `seed` only (the same on every machine):
/// the order of merged tiles or of a photogrammetry export, where no batch is spatially
/// coherent. Fisher-Yates with a SplitMix64 sequence; single-threaded (about 1 s per 10^8
/// points).
void shuffle(std::span<Point> points, std::uint64_t seed);

}  // namespace simlod::synth
