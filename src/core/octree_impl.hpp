// The state behind simlod::Octree: validated configuration, geometry, the host queue of
// batches waiting for update(), and the tree store (core/dispatch.hpp).
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dispatch.hpp"
#include "core/fill_vector.hpp"
#include "simlod/detail/channels.hpp"

namespace simlod::detail {

struct OctreeImpl {
  OctreeConfig config;
  OctreeGeometry geometry;
  TreeStores store;
  /// The layout of config.channels (record_bytes 0: no channels).
  ChannelLayout channels;
  /// A queued batch: its points and, with channels, their packed records.
  struct Queued {
    std::vector<Point> points;
    std::vector<std::byte> records;
  };
  std::deque<Queued> queue;  ///< each <= config.max_batch_points, never empty
  /// Buffers of inserted batches kept for the next insert(): streaming equal batches then
  /// copies into memory that is already mapped instead of page-faulting fresh pages.
  std::vector<Queued> spare;
  /// insert_now(): the batch's packed channel records (kept for the next call).
  FillVector<std::byte> now_records;
  UpdateStats last_update;
  BuildStats build;     ///< what Octree::build() measured; zero after create()
  BuildStats finalize;  ///< what the last finalize() that computed colours measured
  /// The first failure other than CapacityError or InvalidInput while the tree was written
  /// (what() of it); non-empty = the failed state: every call throws StateError.
  std::string failure;
  /// Octree::compact() ran: the tree takes no more points.
  bool compacted = false;
};

/// Throws InvalidInput when compact() finished the tree (`call`: the refused method).
void refuse_if_compacted(const OctreeImpl& s, std::string_view call);

/// Inserts points [begin, end) of a validated batch (at most config.max_batch_points): all at
/// once, or, when the backend refuses them with CapacityError (all or nothing), in halves
/// until the pieces fit. Adds the batch's device times to `stats`. Throws CapacityError when a
/// single point does not fit (the device or the reserve is full), with points_inserted() =
/// points of the batch in the octree (from its start); other errors as the backend does: any
/// but InvalidInput first puts the octree into the failed state (fail()).
void insert_in_pieces(OctreeImpl& s, const BatchSource& batch, std::size_t begin, std::size_t end,
                      UpdateStats& stats);

/// Inserts a validated batch whole: batches of config.max_batch_points (as insert() queues
/// them), each through insert_in_pieces().
void insert_all(OctreeImpl& s, const BatchSource& batch, UpdateStats& stats);

/// The channel records of `n` points of `attributes` (checked), packed into `records` (resized;
/// nothing without channels) on the library's pool, which touches the fresh pages first.
/// Throws CapacityError, naming `what` ("of a batch of {} points") and `undone` ("nothing of
/// it was inserted"), when host memory runs out.
void pack_all_records(const OctreeImpl& s, const PointAttributes* attributes, std::size_t n,
                      FillVector<std::byte>& records, std::string_view what,
                      std::string_view undone);

/// Ends an update() or insert_now() call that began at `start`: batches left, duration, and
/// stats().last_update.
void finish_update(OctreeImpl& s, UpdateStats& stats, std::chrono::steady_clock::time_point start);

/// Puts the octree into the failed state (keeps the first failure).
void fail(OctreeImpl& s, std::string_view what);

/// Throws InvalidInput naming the first bad setting.
void validate_config(const OctreeConfig& config);

/// Cube, float edge, quantisation scale, grid bits and depth limit for a validated config;
/// throws InvalidInput for empty or non-finite bounds or an edge outside the float range.
[[nodiscard]] OctreeGeometry make_geometry(const Bounds& bounds, const OctreeConfig& config);

/// Index of the first point that is not finite or lies outside [0, edge]; batch.size() when
/// every point is good.
[[nodiscard]] std::size_t find_bad_point(std::span<const Point> batch,
                                         const OctreeGeometry& geometry);
/// What is wrong with a point that find_bad_point() found, e.g. "(1, nan, 2) is not finite".
[[nodiscard]] std::string describe_bad_point(const Point& p, const OctreeGeometry& geometry);

/// Throws InvalidInput naming the first point that is not finite or lies outside [0, edge];
/// the message ends "nothing of the batch was <outcome>". Points before `from` are taken as
/// checked (PinnedBatch::check()).
void validate_batch(std::span<const Point> batch, const OctreeGeometry& geometry,
                    std::string_view outcome, std::size_t from = 0);

}  // namespace simlod::detail
