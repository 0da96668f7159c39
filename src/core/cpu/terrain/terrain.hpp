// The CPU executors of ground classification: the seed search's phases and the classifier.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "core/terrain_plan.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cpu {

/// The phases over `points` (both spans must outlive the executor).
[[nodiscard]] std::unique_ptr<SeedExecutor> make_seed_executor(std::span<const Point> points,
                                                               std::span<const std::uint8_t> skip);

/// out[i] = 1 when point i is ground under `dtm` (is_ground) and not skipped, else 0.
void classify(std::span<const Point> points, std::span<const std::uint8_t> skip,
              const RasterView& dtm, double tolerance, std::span<std::uint8_t> out);

/// Per cell of `dtm`, the sum of height_milli(z) and the count of the points flagged ground
/// (sums and counts start at 0, width * height each).
void ground_sums(std::span<const Point> points, std::span<const std::uint8_t> ground,
                 const RasterView& dtm, std::span<std::int64_t> sums,
                 std::span<std::uint32_t> counts);

}  // namespace simlod::detail::cpu
