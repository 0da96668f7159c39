// The engine behind simlod::synth::Generator: builds the scene and the tile plan, then
// produces the point sequence chunk by chunk (a chunk is a run of consecutive units (tiles), at
// most max(kChunkTargetPoints, one tile) points), generating and sorting each chunk on all threads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"
#include "simlod/synth.hpp"
#include "synth/order.hpp"
#include "synth/plan.hpp"
#include "synth/scene.hpp"
#include "synth/sort.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {

class PointStream {
 public:
  /// Validates `config` (InvalidInput); `max_unit_points` bounds the memory (see tuning.hpp).
  explicit PointStream(const SceneConfig& config, std::uint64_t max_unit_points = kMaxUnitPoints);

  [[nodiscard]] const Bounds& bounds() const { return bounds_; }
  [[nodiscard]] std::uint64_t total() const { return config_.points; }
  [[nodiscard]] std::uint64_t generated() const { return generated_; }
  std::size_t next(std::span<Point> out) { return fill(out, {}); }
  /// Also writes the ASPRS class of out[i] to classes[i]; InvalidInput (and nothing consumed)
  /// when `classes` is shorter than `out`.
  std::size_t next(std::span<Point> out, std::span<std::uint8_t> classes);

  /// Terrain height without the lake at output (x, y), and the lake's level, in output units.
  [[nodiscard]] double ground_height(double x, double y) const;
  [[nodiscard]] double water_level() const;

  [[nodiscard]] const Scene& scene() const { return *scene_; }
  [[nodiscard]] const TilePlan& plan() const { return *plan_; }
  [[nodiscard]] const UnitOrder& order() const { return *order_; }

 private:
  // Classes are written only where `classes` is not empty.
  std::size_t fill(std::span<Point> out, std::span<std::uint8_t> classes);
  void produce_chunk();
  [[nodiscard]] Point to_point(const Vec3& p, std::uint32_t rgba) const;

  SceneConfig config_;
  std::unique_ptr<Scene> scene_;
  std::unique_ptr<TilePlan> plan_;
  std::unique_ptr<UnitOrder> order_;
  Bounds bounds_;
  double scale_ = 1.0;  // output metres per reference metre
  std::array<float, 3> lo_{};
  std::array<float, 3> hi_{};

  std::uint64_t next_unit_ = 0;
  std::uint64_t generated_ = 0;
  std::vector<Point> points_;        // the chunk in generation order
  std::vector<SortRecord> records_;  // keys in generation order
  std::vector<SortRecord> sorted_;   // keys in output order
  std::size_t chunk_size_ = 0;       // points in the current chunk (buffers may be larger)
  std::size_t cursor_ = 0;           // next entry of sorted_ to hand out
};

}  // namespace simlod::synth::detail
