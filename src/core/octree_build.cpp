// Octree::build: the bulk builder's facade (validation, the store, timing); the builders live
// in core/cpu/bulk/ and kernels/bulk/.
#include <fmt/format.h>

#include <chrono>
#include <new>
#include <vector>

#include "core/channels.hpp"
#include "core/octree_impl.hpp"
#include "simlod/device_batch.hpp"
#include "simlod/error.hpp"
#include "simlod/octree.hpp"

namespace simlod {
namespace {

using Clock = std::chrono::steady_clock;

/// `with_attributes`: whether the call takes the points' attributes (which an octree with
/// channels needs).
std::unique_ptr<detail::OctreeImpl> prepare(const Bounds& cube, const OctreeConfig& config,
                                            bool with_attributes) {
  detail::validate_config(config);
  if (config.channels != 0 && !with_attributes) {
    throw InvalidInput(fmt::format(
        "Octree::build: an octree with attribute channels ({}) is built from points with their "
        "attributes: build(points, attributes, cube, config); a DeviceBatch carries points "
        "only",
        attribute_names(config.channels)));
  }
  auto impl = std::make_unique<detail::OctreeImpl>();
  impl->config = config;
  impl->geometry = detail::make_geometry(cube, config);
  impl->config.backend = resolve_backend(config.backend);
  impl->channels = detail::channel_layout(config.channels);
  return impl;
}

/// With Average's or Weighted's channels (the bulk builders keep no attribute sums or class
/// counts), the incremental builder inserts the points (batches of max_batch_points, each
/// whole or in pieces; Weighted's colours then come from finalize()), which gives the same
/// tree; only total_ms is measured.
void insert_into(detail::OctreeImpl& s, const detail::BatchSource& points) {
  UpdateStats stats;
  const auto start = Clock::now();
  detail::insert_all(s, points, stats);
  detail::finish_update(s, stats, start);
}

void build_into(detail::OctreeImpl& s, const detail::BatchSource& points, Clock::time_point start) {
  try {
    s.store = detail::create_stores(s.config, s.geometry);
  } catch (const std::bad_alloc&) {
    throw CapacityError("not enough host memory to create the octree");
  }
  BuildStats stats;
  stats.points = points.size();
  if (s.channels.record_bytes != 0 &&
      (s.config.sampling == Sampling::Average || s.config.sampling == Sampling::Weighted)) {
    insert_into(s, points);
    if (s.config.sampling == Sampling::Weighted) detail::finalize(s.store, stats);
  } else {
    detail::build_bulk(s.store, points, stats);
  }
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
  auto impl = prepare(cube, config, false);
  if (points.empty()) no_points();
  detail::validate_batch(points, impl->geometry, "built");
  build_into(*impl, detail::BatchSource::of(points), start);
  return Octree(std::move(impl));
}

Octree Octree::build(std::span<const Point> points, const PointAttributes& attributes,
                     const Bounds& cube, const OctreeConfig& config) {
  const auto start = Clock::now();
  auto impl = prepare(cube, config, true);
  if (points.empty()) no_points();
  detail::check_channel_attributes(&attributes, config.channels, points.size(), "build");
  detail::validate_batch(points, impl->geometry, "built");
  detail::FillVector<std::byte> records;
  detail::pack_all_records(*impl, &attributes, points.size(), records,
                           fmt::format("of {} points", points.size()), "nothing was built");
  build_into(*impl, detail::BatchSource::of(points, records), start);
  return Octree(std::move(impl));
}

Octree Octree::build(DeviceBatch& points, const Bounds& cube, const OctreeConfig& config) {
  const auto start = Clock::now();
  auto impl = prepare(cube, config, false);
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
