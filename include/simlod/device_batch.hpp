// simlod::DeviceBatch: a batch of points in device memory, written piece by piece through two
// small page-locked staging pieces, for Octree::insert_now() of a CUDA octree.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>

#include "simlod/bounds.hpp"
#include "simlod/host_batch.hpp"
#include "simlod/octree.hpp"
#include "simlod/point.hpp"

namespace simlod {

namespace detail::cuda {
struct DeviceBatchStore;
}  // namespace detail::cuda

/// Move-only owner of device memory for up to capacity() points on one device. A loader fills
/// it piece by piece:
///
///     DeviceBatch batch(1 << 20, tree.config().device);
///     while (more) {
///       std::span<Point> piece = batch.piece();  // at most kPiecePoints
///       batch.commit(read_points_into(piece));   // starts the piece's copy
///     }
///     tree.insert_now(batch);                    // checks on the device, then inserts
///     batch.clear();                             // refill while the device works
///
/// commit() starts the piece's copy to the device; piece() hands out the other staging piece
/// meanwhile and waits only when its earlier copy has not finished. The staging pieces are
/// small enough to stay in the core's cache, so the points cross host memory once (read from
/// where they come from) instead of three times for a PinnedBatch filled whole and then copied
/// (write, read back, copy): the streaming pipeline's host memory bandwidth is what this saves
/// (docs/perf-notes.md). Points are checked on the device (check(), or insert_now() itself),
/// where it costs microseconds instead of a pass over every piece on the host.
///
/// Not thread-safe: one thread uses a batch at a time; different batches may be filled by
/// different threads at once.
class DeviceBatch {
 public:
  /// Points per staging piece: 1 MB.
  static constexpr std::size_t kPiecePoints = std::size_t{1} << 16;

  /// No memory: capacity() 0.
  DeviceBatch() noexcept;
  /// Room for `capacity_points` points on CUDA device `device`; size() 0. Throws CapacityError
  /// when the device memory cannot be had, CudaError without CUDA or such a device.
  explicit DeviceBatch(std::size_t capacity_points, int device = 0);
  DeviceBatch(DeviceBatch&&) noexcept;
  DeviceBatch& operator=(DeviceBatch&&) noexcept;
  /// Waits for the batch's copies, then frees its memory.
  ~DeviceBatch();

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }
  [[nodiscard]] int device() const { return device_; }

  /// The staging piece for the next points, room for min(kPiecePoints, capacity() - size())
  /// of them (empty when the batch is full). Blocks until the copy that last read this staging
  /// piece has finished. Write the points, then commit() them.
  [[nodiscard]] std::span<Point> piece();
  /// Starts copying the first `count` points of the last piece() to points [size(), size() +
  /// count) and adds them to size(). Throws InvalidInput when `count` exceeds the piece.
  void commit(std::size_t count);
  /// Checks every point on the device as Octree::insert() checks a batch for an octree over
  /// `cube` (its cube(): finite and inside [0, edge] per axis) and returns the first bad one
  /// (index in the batch), or nullopt. Waits for the batch's copies and the check. A batch
  /// found good is not checked again by Octree::insert_now() unless points are committed after.
  std::optional<BadPoint> check(const Bounds& cube);
  /// Queues that check behind the batch's copies and returns at once; a later check() with a
  /// cube of the same edge, and no commit() between, only collects its result. For the thread
  /// that fills a batch, so that the thread that inserts it rarely waits.
  void check_async(const Bounds& cube);
  /// True when check() found every point good for a cube of the same edge as `cube`.
  [[nodiscard]] bool checked_for(const Bounds& cube) const;
  /// Empties the batch for new points. Does not wait: copies into it wait on the device for
  /// the inserts that read its old points.
  void clear();

  /// Page-locks the staging memory of `count` batches of `capacity_points` ahead of time (at
  /// application start), in the pool PinnedBatch::prepare() fills; blocks until done.
  static void prepare(std::size_t capacity_points, std::size_t count);

 private:
  friend class Octree;  // insert_now() reads the device side
  struct Release {
    void operator()(detail::cuda::DeviceBatchStore* store) const noexcept;
  };
  /// Points of page-locked staging for a batch of `capacity_points`: two pieces, then one
  /// point's room for the device check's result.
  static std::size_t staging_points(std::size_t capacity_points);
  [[nodiscard]] unsigned long long* check_result();
  /// Staging piece `k` (0 or 1); 2 is the point after both, which holds the check result.
  [[nodiscard]] Point* staging_piece(int k);

  // Staging before the store: the store is destroyed first and waits for the copies that read
  // the staging pieces.
  PinnedBatch staging_;
  std::unique_ptr<detail::cuda::DeviceBatchStore, Release> store_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  std::size_t piece_points_ = 0;  ///< points per staging piece
  std::size_t piece_room_ = 0;    ///< points the last piece() handed out (0: none)
  int device_ = 0;
  int next_ = 0;                ///< the staging piece piece() hands out next
  float checked_edge_ = -1.0f;  ///< the edge check() found all points good for (-1: none)
  float queued_edge_ = -1.0f;   ///< the edge of the check queued since the last commit()
};

}  // namespace simlod
