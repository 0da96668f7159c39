// The CPU classifier and the ground sums of the DTM's refinement (core/cpu/terrain/terrain.hpp).
#include <atomic>

#include "core/cpu/terrain/terrain.hpp"
#include "core/cpu/tuning.hpp"
#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {

void classify(std::span<const Point> points, std::span<const std::uint8_t> skip,
              const RasterView& dtm, double tolerance, std::span<std::uint8_t> out) {
  PoolView pool(ThreadPool::shared());
  pool.parallel_for(points.size(), kCpuPointGrain, [&](unsigned, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const Point& p = points[i];
      out[i] = (skip.empty() || skip[i] == 0) && is_ground(dtm, p.x, p.y, p.z, tolerance) ? 1 : 0;
    }
  });
}

void ground_sums(std::span<const Point> points, std::span<const std::uint8_t> ground,
                 const RasterView& dtm, std::span<std::int64_t> sums,
                 std::span<std::uint32_t> counts) {
  PoolView pool(ThreadPool::shared());
  const std::uint64_t none = static_cast<std::uint64_t>(dtm.width) * dtm.height;
  pool.parallel_for(points.size(), kCpuPointGrain, [&](unsigned, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      if (ground[i] == 0) continue;
      const Point& p = points[i];
      const std::uint64_t c = raster_cell(dtm, p.x, p.y);
      if (c == none) continue;
      std::atomic_ref<std::int64_t>(sums[c]).fetch_add(height_milli(p.z),
                                                       std::memory_order_relaxed);
      std::atomic_ref<std::uint32_t>(counts[c]).fetch_add(1, std::memory_order_relaxed);
    }
  });
}

}  // namespace simlod::detail::cpu
