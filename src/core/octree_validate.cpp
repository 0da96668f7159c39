// Validation of configurations and batches on entry (DESIGN.md "Errors and bad input").
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <string>

#include "core/octree_impl.hpp"
#include "core/thread_pool.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {

void validate_config(const OctreeConfig& c) {
  auto bad = [](const std::string& what) {
    throw InvalidInput(fmt::format("octree config: {}", what));
  };
  if (c.backend != Backend::Auto && c.backend != Backend::Cpu && c.backend != Backend::Cuda) {
    bad(fmt::format("unknown backend value {}", static_cast<int>(c.backend)));
  }
  if (c.voxel_grid < 2 || c.voxel_grid > 1024 || !std::has_single_bit(c.voxel_grid)) {
    bad(fmt::format("voxel_grid = {} must be a power of two in [2, 1024]", c.voxel_grid));
  }
  if (c.max_points_per_leaf < 1) bad("max_points_per_leaf must be at least 1");
  if (c.device < 0) bad(fmt::format("device = {} must be a CUDA device index (>= 0)", c.device));
  // A chunk must hold a 64-byte brick of occupancy bits (detail/occupancy_codec.hpp).
  if (c.chunk_capacity < 8) bad("chunk_capacity must be at least 8");
  if (!(c.memory_fraction > 0.0 && c.memory_fraction <= 1.0)) {
    bad(fmt::format("memory_fraction = {} must be in (0, 1]", c.memory_fraction));
  }
  if (c.max_batch_points < 1) bad("max_batch_points must be at least 1");
  if (c.point_encoding != PointEncoding::Float32 &&
      c.point_encoding != PointEncoding::Quantized16) {
    bad(fmt::format("unknown point_encoding value {}", static_cast<int>(c.point_encoding)));
  }
  if (c.sampling != Sampling::FirstCome && c.sampling != Sampling::Random &&
      c.sampling != Sampling::Average && c.sampling != Sampling::Weighted) {
    bad(fmt::format("unknown sampling value {}", static_cast<int>(c.sampling)));
  }
  if ((c.channels & ~kAllAttributes) != 0) {
    bad(fmt::format("channels = {:#x} has bits that name no attribute (at most {:#x})", c.channels,
                    kAllAttributes));
  }
  if ((c.sampling == Sampling::Average || c.sampling == Sampling::Weighted) &&
      has_attribute(c.channels, Attribute::Classification) && c.voxel_grid > 256) {
    bad(
        fmt::format("voxel_grid = {}: Sampling::Average and Weighted with a classification "
                    "channel count classes per cell of grids of at most 256 cells a side",
                    c.voxel_grid));
  }
}

namespace {

/// Whether every point of `points` lies in [0, edge] per axis. No branch per point, so that
/// the compiler vectorises it (3-4x faster than a test per point: the loaders check every
/// point they read, docs/perf-notes.md); NaN fails every comparison.
bool all_inside(std::span<const Point> points, float edge) {
  int good = 1;
  for (const Point& p : points) {
    good &= static_cast<int>(p.x >= 0.0f) & static_cast<int>(p.x <= edge) &
            static_cast<int>(p.y >= 0.0f) & static_cast<int>(p.y <= edge) &
            static_cast<int>(p.z >= 0.0f) & static_cast<int>(p.z <= edge);
  }
  return good != 0;
}

}  // namespace

std::size_t find_bad_point(std::span<const Point> batch, const OctreeGeometry& geometry) {
  const float edge = geometry.edge;
  constexpr std::size_t kBlock = 512;  // blocks of 8 KB, then the bad block point by point
  for (std::size_t begin = 0; begin < batch.size(); begin += kBlock) {
    const auto block = batch.subspan(begin, std::min(kBlock, batch.size() - begin));
    if (all_inside(block, edge)) continue;
    for (std::size_t i = 0; i < block.size(); ++i) {
      if (!all_inside(block.subspan(i, 1), edge)) return begin + i;
    }
  }
  return batch.size();
}

std::string describe_bad_point(const Point& p, const OctreeGeometry& geometry) {
  if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
    return fmt::format("({}, {}, {}) is not finite", p.x, p.y, p.z);
  }
  return fmt::format(
      "({}, {}, {}) lies outside the octree cube [0, {}] per axis (coordinates relative to the "
      "cube's minimum corner)",
      p.x, p.y, p.z, geometry.edge);
}

namespace {

/// find_bad_point() of a large batch (a build's input) in blocks on the library's pool: the
/// first bad point of all. Batches of one block run inline, as before.
std::size_t find_first_bad(std::span<const Point> batch, const OctreeGeometry& geometry) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  if (batch.size() <= kBlock) return find_bad_point(batch, geometry);
  std::atomic<std::size_t> first{batch.size()};
  ThreadPool::shared().parallel_for(
      (batch.size() + kBlock - 1) / kBlock, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
        for (std::size_t k = lo; k < hi; ++k) {
          const std::size_t begin = k * kBlock;
          if (begin >= first.load(std::memory_order_relaxed)) return;  // one before is bad
          const auto part = batch.subspan(begin, std::min(kBlock, batch.size() - begin));
          const std::size_t bad = find_bad_point(part, geometry);
          if (bad == part.size()) continue;
          std::size_t now = first.load(std::memory_order_relaxed);
          while (begin + bad < now && !first.compare_exchange_weak(now, begin + bad)) {
          }
          return;
        }
      });
  return first.load();
}

}  // namespace

void validate_batch(std::span<const Point> batch, const OctreeGeometry& geometry,
                    std::string_view outcome, std::size_t from) {
  const std::size_t bad = from + find_first_bad(batch.subspan(from), geometry);
  if (bad == batch.size()) return;
  throw InvalidInput(fmt::format("point {} of the batch {}; nothing of the batch was {}", bad,
                                 describe_bad_point(batch[bad], geometry), outcome));
}

}  // namespace simlod::detail

namespace simlod {

Bounds Octree::root_cube(const Bounds& bounds) {
  return detail::make_geometry(bounds, OctreeConfig{}).cube;
}

std::optional<BadPoint> Octree::find_bad_point(std::span<const Point> batch, const Bounds& cube) {
  detail::OctreeGeometry g;  // the edge is all the check reads, as create() derives it
  g.edge = static_cast<float>(cube.max[0] - cube.min[0]);
  const std::size_t bad = detail::find_bad_point(batch, g);
  if (bad == batch.size()) return std::nullopt;
  return BadPoint{bad, detail::describe_bad_point(batch[bad], g)};
}

}  // namespace simlod
