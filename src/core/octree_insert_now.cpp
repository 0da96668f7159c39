// Octree::insert_now: update() of one batch straight from the caller's memory, for callers
// that own their batch buffers (the Streamer's ring of page-locked buffers): no copy into the
// queue, and a batch prefetch() moved is read from the device's copy.
#include <fmt/format.h>

#include <algorithm>
#include <new>
#include <vector>

#include "core/channels.hpp"
#include "core/octree_impl.hpp"
#include "simlod/device_batch.hpp"
#include "simlod/error.hpp"
#include "simlod/host_batch.hpp"
#include "simlod/octree.hpp"

namespace simlod {

UpdateStats Octree::insert_now(std::span<const Point> batch) { return insert_now(batch, 0); }

UpdateStats Octree::insert_now(const PinnedBatch& batch) {
  return insert_now(batch.points(), batch.checked_points(cube()));
}

UpdateStats Octree::insert_now(std::span<const Point> batch, const PointAttributes& attributes) {
  return insert_now(batch, 0, &attributes);
}

UpdateStats Octree::insert_now(const PinnedBatch& batch, const PointAttributes& attributes) {
  return insert_now(batch.points(), batch.checked_points(cube()), &attributes);
}

namespace {

/// Inserting past queued batches would reorder the caller's batches.
void refuse_when_queued(const detail::OctreeImpl& s) {
  if (s.queue.empty()) return;
  throw InvalidInput(fmt::format(
      "insert_now: {} batches are queued; update() or discard_queued() them first (nothing of "
      "the batch was inserted)",
      s.queue.size()));
}

}  // namespace

UpdateStats Octree::insert_now(DeviceBatch& batch) {
  detail::OctreeImpl& s = impl();
  const auto start = std::chrono::steady_clock::now();
  UpdateStats stats;
  try {
    detail::refuse_if_compacted(s, "insert_now");
    refuse_when_queued(s);
    if (s.config.channels != 0) {
      throw InvalidInput(fmt::format(
          "insert_now(DeviceBatch&): this octree keeps the attribute channels {}, which a "
          "DeviceBatch does not carry (nothing of the batch was inserted)",
          attribute_names(s.config.channels)));
    }
    if (s.config.backend != Backend::Cuda) {
      throw InvalidInput(
          "insert_now(DeviceBatch&): this octree runs on the CPU backend; a "
          "DeviceBatch goes only into a CUDA octree");
    }
    if (batch.size() > 0 && batch.device() != s.config.device) {
      throw InvalidInput(fmt::format(
          "insert_now(DeviceBatch&): the batch is on device {}, this octree on device {}",
          batch.device(), s.config.device));
    }
    if (batch.size() > 0 && !batch.checked_for(s.geometry.cube)) {
      if (const auto bad = batch.check(s.geometry.cube)) {
        throw InvalidInput(
            fmt::format("point {} of the batch {}; nothing of the batch was inserted", bad->index,
                        bad->reason));
      }
    }
    detail::insert_all(s, detail::BatchSource::of(batch.store_.get(), batch.size()), stats);
  } catch (...) {
    detail::finish_update(s, stats, start);
    throw;
  }
  detail::finish_update(s, stats, start);
  return stats;
}

UpdateStats Octree::insert_now(std::span<const Point> batch, std::size_t checked,
                               const PointAttributes* attributes) {
  detail::OctreeImpl& s = impl();
  const auto start = std::chrono::steady_clock::now();
  UpdateStats stats;
  try {
    detail::refuse_if_compacted(s, "insert_now");
    refuse_when_queued(s);
    detail::check_channel_attributes(attributes, s.config.channels, batch.size(), "insert_now");
    // Points a PinnedBatch::check() covered were checked against this cube's edge already.
    detail::validate_batch(batch, s.geometry, "inserted", checked);
    // The channel records, packed once into a buffer the octree keeps for the next call.
    detail::pack_all_records(s, attributes, batch.size(), s.now_records,
                             fmt::format("of a batch of {} points", batch.size()),
                             "nothing of it was inserted");
    detail::insert_all(s, detail::BatchSource::of(batch, s.now_records), stats);
  } catch (...) {
    detail::finish_update(s, stats, start);
    throw;
  }
  detail::finish_update(s, stats, start);
  return stats;
}

}  // namespace simlod
