// Octree::build: the bulk builder's facade (validation, the store, timing); the builders live
// in core/cpu/bulk/ and kernels/bulk/.
#include <fmt/format.h>

#include <chrono>
#include <new>

#include "core/octree_impl.hpp"
#include "simlod/device_batch.hpp"
#include "simlod/error.hpp"
#include "simlod/octree.hpp"

namespace simlod {
namespace {

using Clock = std::chrono::steady_clock;

std::unique_ptr<detail::OctreeImpl> prepare(const Bounds& cube, const OctreeConfig& config) {
  detail::validate_config(config);
  if (config.channels != 0) {
    throw InvalidInput(fmt::format(
        "Octree::build: attribute channels ({}) are filled by the incremental builder only in "
        "this version; create() the octree and insert(points, attributes)",
        attribute_names(config.channels)));
  }
  auto impl = std::make_unique<detail::OctreeImpl>();
  impl->config = config;
  impl->geometry = detail::make_geometry(cube, config);
  impl->config.backend = resolve_backend(config.backend);
  return impl;
}

void build_into(detail::OctreeImpl& s, const detail::BatchSource& points, Clock::time_point start) {
  try {
    s.store = detail::create_stores(s.config, s.geometry);
  } catch (const std::bad_alloc&) {
    throw CapacityError("not enough host memory to create the octree");
  }
  BuildStats stats;
  stats.points = points.size();
  detail::build_bulk(s.store, points, stats);
  stats.total_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  s.build = stats;
}

[[noreturn]] void no_points() {
  throw InvalidInput(
      "Octree::build: no points (build needs at least one; create() makes an "
      "empty octree)");
}

}  // namespace

Octree Octree::build(std::span<const Point> points, const Bounds& cube,
                     const OctreeConfig& config) {
  const auto start = Clock::now();
  auto impl = prepare(cube, config);
  if (points.empty()) no_points();
  detail::validate_batch(points, impl->geometry, "built");
  build_into(*impl, detail::BatchSource::of(points), start);
  return Octree(std::move(impl));
}

Octree Octree::build(DeviceBatch& points, const Bounds& cube, const OctreeConfig& config) {
  const auto start = Clock::now();
  auto impl = prepare(cube, config);
  if (impl->config.backend != Backend::Cuda || points.device() != impl->config.device) {
    throw InvalidInput(fmt::format(
        "Octree::build: a DeviceBatch (device {}) builds only a CUDA octree on its device",
        points.device()));
  }
  if (points.size() == 0) no_points();
  if (!points.checked_for(impl->geometry.cube)) {
    if (const auto bad = points.check(impl->geometry.cube)) {
      throw InvalidInput(
          fmt::format("point {} of the batch {}; nothing was built", bad->index, bad->reason));
    }
  }
  build_into(*impl, detail::BatchSource::of(points.store_.get(), points.size()), start);
  return Octree(std::move(impl));
}

}  // namespace simlod
