// simlod::PinnedBatch: a batch of points in host memory that the device can copy from at full
// speed and asynchronously (page-locked, "pinned"), for Octree::prefetch() and insert_now().
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>

#include "simlod/bounds.hpp"
#include "simlod/octree.hpp"
#include "simlod/point.hpp"

namespace simlod {

namespace detail {
class HostBuffer;
}  // namespace detail

/// Move-only owner of page-locked host memory for up to capacity() points, of which the first
/// size() form the batch. Page-locked when this build has CUDA and a device lets it pin memory
/// (pinned()), ordinary memory otherwise; either way usable by every octree.
///
/// Pinning is slow (about 10 ms per 16 MB on the GPU test machine) and holds up the device's
/// other allocations meanwhile, so the memory of a destroyed PinnedBatch goes to a process-wide
/// pool (up to 1 GiB) from which later batches of the same capacity take it. The Streamer's
/// ring uses the same pool.
class PinnedBatch {
 public:
  /// No memory: capacity() 0.
  PinnedBatch() noexcept;
  /// Room for `capacity_points` points; size() 0. `page_locked` = false takes ordinary memory
  /// (for a CPU octree, which gains nothing from pinning). Throws CapacityError when no host
  /// memory can be had.
  explicit PinnedBatch(std::size_t capacity_points, bool page_locked = true);
  PinnedBatch(PinnedBatch&&) noexcept;
  PinnedBatch& operator=(PinnedBatch&&) noexcept;
  /// Returns page-locked memory to the pool (see above), frees the rest.
  ~PinnedBatch();

  /// The batch: the first size() points. The non-const overload forgets every check().
  [[nodiscard]] std::span<Point> points() {
    checked_ = 0;
    return {data_, size_};
  }
  [[nodiscard]] std::span<const Point> points() const { return {data_, size_}; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  /// Sets size(); points beyond the old size hold unspecified values until written. Throws
  /// InvalidInput when `points` exceeds capacity(). Checks of points that stay are kept.
  void resize(std::size_t points);

  /// Checks points [first, first + count) as Octree::insert() checks a batch for an octree over
  /// `cube` (its Octree::cube(); finite and inside it) and returns the first bad point (index in
  /// the batch), or nullopt. Pieces checked one after another from point 0 up against the same
  /// cube let Octree::insert_now(const PinnedBatch&) skip its own check of them: loader threads
  /// check while they fill, and the thread that inserts does not pass over the batch again.
  /// Writing through a span taken before a check voids it (as it voids a prefetch()); the
  /// non-const points() forgets all checks. Throws InvalidInput when the piece leaves size().
  std::optional<BadPoint> check(const Bounds& cube, std::size_t first, std::size_t count);
  /// Points checked from 0 up against a cube of the same edge as `cube`.
  [[nodiscard]] std::size_t checked_points(const Bounds& cube) const;
  [[nodiscard]] bool pinned() const;

  /// Pins memory for `count` batches of `capacity_points` into the pool ahead of time (at
  /// application start), within the pool's 1 GiB; does nothing where memory cannot be pinned.
  /// Blocks until done.
  static void prepare(std::size_t capacity_points, std::size_t count);
  /// Frees the pool's memory (batches alive keep theirs).
  static void release_pool();

 private:
  struct Release {
    void operator()(detail::HostBuffer* buffer) const noexcept;
  };
  std::unique_ptr<detail::HostBuffer, Release> buffer_;
  Point* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  std::size_t checked_ = 0;    ///< points [0, checked_) passed check() against ...
  float checked_edge_ = 0.0f;  ///< ... a cube of this edge (the only size the check reads)
};

}  // namespace simlod
