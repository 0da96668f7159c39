// Ground rectangles covered by buildings and the sculpture's pedestal. The terrain produces no
// points under them, and trees keep clear of them. A coarse bucket grid keeps lookups O(1).
#pragma once

#include <cstdint>
#include <vector>

#include "synth/vec3.hpp"

namespace simlod::synth::detail {

class Footprints {
 public:
  Footprints();

  /// Adds a rectangle; rectangles must not overlap (covered_area() sums them).
  void add(const Rect& rect);
  [[nodiscard]] bool contains(double x, double y) const;
  /// True when (x, y) lies within `margin` of a rectangle.
  [[nodiscard]] bool near(double x, double y, double margin) const;
  /// Area of `cell` covered by rectangles.
  [[nodiscard]] double covered_area(const Rect& cell) const;
  [[nodiscard]] const std::vector<Rect>& rects() const { return rects_; }

 private:
  static constexpr int kGrid = 64;  // buckets per side over the reference extent
  [[nodiscard]] static int bucket_of(double v);

  std::vector<Rect> rects_;
  double max_size_ = 0.0;  // largest rectangle side: how far a query must look around
  std::vector<std::vector<std::uint32_t>> buckets_;  // rectangles by the bucket of their centre
};

}  // namespace simlod::synth::detail
