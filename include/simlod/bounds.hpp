// simlod::Bounds: an axis-aligned box in double precision (file coordinates).
#pragma once

#include <algorithm>
#include <array>
#include <limits>

namespace simlod {

struct Bounds {
  std::array<double, 3> min{std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::infinity()};
  std::array<double, 3> max{-std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()};

  /// True until a point has been added (min > max on some axis).
  [[nodiscard]] bool empty() const { return min[0] > max[0] || min[1] > max[1] || min[2] > max[2]; }
  [[nodiscard]] std::array<double, 3> size() const {
    return {max[0] - min[0], max[1] - min[1], max[2] - min[2]};
  }
  [[nodiscard]] std::array<double, 3> center() const {
    return {0.5 * (min[0] + max[0]), 0.5 * (min[1] + max[1]), 0.5 * (min[2] + max[2])};
  }
  /// Grows the box to contain (x, y, z).
  void expand(double x, double y, double z) {
    min = {std::min(min[0], x), std::min(min[1], y), std::min(min[2], z)};
    max = {std::max(max[0], x), std::max(max[1], y), std::max(max[2], z)};
  }
  void expand(const Bounds& other) {
    if (other.empty()) return;
    expand(other.min[0], other.min[1], other.min[2]);
    expand(other.max[0], other.max[1], other.max[2]);
  }
  /// Inclusive containment test.
  [[nodiscard]] bool contains(double x, double y, double z) const {
    return x >= min[0] && x <= max[0] && y >= min[1] && y <= max[1] && z >= min[2] && z <= max[2];
  }
  /// The smallest cube with the same minimum corner that contains this box (octree root).
  [[nodiscard]] Bounds cube() const {
    const auto s = size();
    const double edge = std::max({s[0], s[1], s[2]});
    Bounds c;
    c.min = min;
    c.max = {min[0] + edge, min[1] + edge, min[2] + edge};
    return c;
  }

  friend bool operator==(const Bounds&, const Bounds&) = default;
};

}  // namespace simlod
