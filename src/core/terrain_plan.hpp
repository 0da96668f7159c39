// The seed search's plan: window edges, index cells (strips) and the gap-filling grid, made on
// the host from the points' xy box and the parameters, and the executor interface that both
// backends implement (core/cpu/terrain, kernels/terrain). core/terrain.cpp runs the phases in
// order, so the flow exists once.
#pragma once

#include <cstdint>
#include <vector>

#include "simlod/detail/ground_math.hpp"
#include "simlod/terrain.hpp"

namespace simlod::detail {

/// The xy box of the points a search keeps, and what the bounds pass found.
struct GroundBox {
  float min_x = 0.0f, min_y = 0.0f, max_x = 0.0f, max_y = 0.0f;
  std::uint64_t kept = 0;                       ///< points not skipped
  std::uint64_t first_bad = ~std::uint64_t{0};  ///< first kept point with a non-finite coordinate
};

/// One axis of the plan with its storage; view() is what kernels read.
struct AxisPlan {
  std::vector<double> edges;
  std::vector<std::uint32_t> bucket;
  std::vector<std::uint32_t> window_lo;  ///< first strip of window i
  std::vector<std::uint32_t> window_hi;  ///< one past its last strip
  double origin = 0.0, step = 1.0;

  [[nodiscard]] std::uint32_t strips() const {
    return static_cast<std::uint32_t>(edges.size() - 1);
  }
  [[nodiscard]] std::uint32_t windows() const {
    return static_cast<std::uint32_t>(window_lo.size());
  }
  [[nodiscard]] GroundAxis view() const {
    return {edges.data(), bucket.data(), strips(), static_cast<std::uint32_t>(bucket.size()),
            origin,       step};
  }
};

struct GapPlan {
  bool enabled = false;
  double min_x = 0.0, min_y = 0.0, cell = 1.0;
  std::uint32_t nx = 0, ny = 0;
};

struct SeedPlan {
  AxisPlan x, y;
  GapPlan gap;
  std::uint64_t min_points = 0;
  double density = 0.0;
  double low_outlier = 0.0;
  [[nodiscard]] std::uint64_t cells() const {
    return static_cast<std::uint64_t>(x.strips()) * y.strips();
  }
};

/// The window edges of one axis, as terrain.hpp defines them: e(i) = lo - w O + i o, the end
/// e(i + k) when w / o is an integer k (within 1e-9), else e(i) + w. Exposed for the tests'
/// brute force.
struct WindowEdges {
  double origin = 0.0, step = 0.0, window = 0.0;
  std::uint32_t count = 0;  ///< round((extent + 2 w O) / o) - 1
  std::uint64_t k = 0;      ///< w / o when an integer, else 0
  [[nodiscard]] double start(std::uint64_t i) const {
    return origin + static_cast<double>(i) * step;
  }
  [[nodiscard]] double end(std::uint64_t i) const {
    return k != 0 ? start(i + k) : start(i) + window;
  }
};
[[nodiscard]] WindowEdges window_edges(double lo, double hi, const terrain::GroundParams& params);

/// Checks the parameters (InvalidInput naming the field).
void check_ground_params(const terrain::GroundParams& params);
/// The plan for `box` (InvalidInput where the points span no area, too few points, or too many
/// cells).
[[nodiscard]] SeedPlan make_seed_plan(const GroundBox& box, const terrain::GroundParams& params);

/// What the window pass found.
struct WindowResult {
  std::uint64_t windows_used = 0;
  std::uint64_t local_minima = 0;
  std::vector<std::uint32_t> seeds;  ///< point indices taken by two or more windows, any order
};

/// One backend's phases over the points it was made with. Each returns the milliseconds it
/// took (device time on CUDA). Called in order: bounds, index, outliers (optional), windows,
/// gap.
class SeedExecutor {
 public:
  virtual ~SeedExecutor() = default;
  virtual GroundBox bounds(double& ms) = 0;
  /// Count and lowest key of every index cell.
  virtual void index(const SeedPlan& plan, double& ms) = 0;
  /// Marks cells whose lowest point is a low outlier (no candidate any more); returns how many.
  virtual std::uint64_t outliers(const SeedPlan& plan, double& ms) = 0;
  virtual WindowResult windows(const SeedPlan& plan, double& ms) = 0;
  /// The gap seeds: per gap cell with kept points but none of `seeds`, its lowest point (not
  /// an outlier), ascending.
  virtual std::vector<std::uint32_t> gap(const SeedPlan& plan,
                                         const std::vector<std::uint32_t>& seeds, double& ms) = 0;
};

}  // namespace simlod::detail
