// simlod::DeviceBatch: staging pieces from the pinned pool (core/host_buffer.hpp) in front of
// the device store (kernels/update/device_batch.cu).
#include "simlod/device_batch.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <utility>

#include "simlod/error.hpp"

#if SIMLOD_HAS_CUDA
#include "kernels/entry.hpp"
#endif

namespace simlod {

DeviceBatch::DeviceBatch() noexcept = default;

DeviceBatch::DeviceBatch(std::size_t capacity_points, int device) : device_(device) {
#if SIMLOD_HAS_CUDA
  if (capacity_points == 0) return;
  if (device < 0 || device >= detail::cuda::device_count()) {
    throw CudaError(fmt::format("DeviceBatch: there is no CUDA device {} ({} devices: {})", device,
                                detail::cuda::device_count(), detail::cuda::unavailable_reason()));
  }
  piece_points_ = std::min(capacity_points, kPiecePoints);
  staging_ = PinnedBatch(staging_points(capacity_points));
  staging_.resize(staging_.capacity());
  store_.reset(detail::cuda::create_device_batch(capacity_points, device).release());
  capacity_ = capacity_points;
#else
  (void)capacity_points;
  throw CudaError("DeviceBatch: this build of simlod has no CUDA backend");
#endif
}

DeviceBatch::DeviceBatch(DeviceBatch&& other) noexcept
    : staging_(std::move(other.staging_)),
      store_(std::move(other.store_)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      piece_points_(std::exchange(other.piece_points_, 0)),
      piece_room_(std::exchange(other.piece_room_, 0)),
      device_(other.device_),
      next_(std::exchange(other.next_, 0)),
      checked_edge_(std::exchange(other.checked_edge_, -1.0f)),
      queued_edge_(std::exchange(other.queued_edge_, -1.0f)) {}

DeviceBatch& DeviceBatch::operator=(DeviceBatch&& other) noexcept {
  if (this == &other) return *this;
  store_.reset();  // waits for its copies before the staging pieces go
  staging_ = std::move(other.staging_);
  store_ = std::move(other.store_);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  piece_points_ = std::exchange(other.piece_points_, 0);
  piece_room_ = std::exchange(other.piece_room_, 0);
  device_ = other.device_;
  next_ = std::exchange(other.next_, 0);
  checked_edge_ = std::exchange(other.checked_edge_, -1.0f);
  queued_edge_ = std::exchange(other.queued_edge_, -1.0f);
  return *this;
}

DeviceBatch::~DeviceBatch() = default;

void DeviceBatch::Release::operator()(detail::cuda::DeviceBatchStore* store) const noexcept {
#if SIMLOD_HAS_CUDA
  detail::cuda::destroy(store);
#else
  (void)store;
#endif
}

std::size_t DeviceBatch::staging_points(std::size_t capacity_points) {
  return 2 * std::min(capacity_points, kPiecePoints) + 1;
}

void DeviceBatch::prepare(std::size_t capacity_points, std::size_t count) {
  PinnedBatch::prepare(staging_points(capacity_points), count);
}

unsigned long long* DeviceBatch::check_result() {
  // The point after the two pieces; a Point is 16 bytes, aligned for the 8-byte result.
  return reinterpret_cast<unsigned long long*>(staging_piece(2));
}

Point* DeviceBatch::staging_piece(int k) {
  return staging_.points().data() + static_cast<std::size_t>(k) * piece_points_;
}

std::span<Point> DeviceBatch::piece() {
  piece_room_ = std::min(piece_points_, capacity_ - size_);
  if (piece_room_ == 0) return {};
#if SIMLOD_HAS_CUDA
  detail::cuda::wait_staging(*store_, next_);
#endif
  return {staging_piece(next_), piece_room_};
}

void DeviceBatch::commit(std::size_t count) {
  if (count > piece_room_) {
    throw InvalidInput(fmt::format(
        "DeviceBatch::commit({}): the last piece() had room for {} points", count, piece_room_));
  }
  if (count == 0) return;
#if SIMLOD_HAS_CUDA
  detail::cuda::upload_piece(*store_, next_, size_, staging_piece(next_), count);
#endif
  size_ += count;
  piece_room_ = 0;
  next_ ^= 1;
  checked_edge_ = -1.0f;
  queued_edge_ = -1.0f;
}

void DeviceBatch::check_async(const Bounds& cube) {
  if (size_ == 0) return;
  const auto edge = static_cast<float>(cube.max[0] - cube.min[0]);
#if SIMLOD_HAS_CUDA
  detail::cuda::queue_check(*store_, size_, edge, check_result());
#endif
  queued_edge_ = edge;
}

std::optional<BadPoint> DeviceBatch::check(const Bounds& cube) {
  const auto edge = static_cast<float>(cube.max[0] - cube.min[0]);
  if (size_ > 0) {
#if SIMLOD_HAS_CUDA
    if (queued_edge_ != edge) check_async(cube);
    Point point;
    const std::uint64_t bad = detail::cuda::finish_check(*store_, size_, check_result(), &point);
    if (bad < size_) {
      auto found = Octree::find_bad_point(std::span<const Point>(&point, 1), cube);
      if (found) {
        found->index = bad;
        return found;
      }
      // The host and the device disagree about a point: not expected, but never let it in.
      return BadPoint{bad, "failed the device's check"};
    }
#endif
  }
  checked_edge_ = edge;
  return std::nullopt;
}

bool DeviceBatch::checked_for(const Bounds& cube) const {
  return static_cast<float>(cube.max[0] - cube.min[0]) == checked_edge_;
}

void DeviceBatch::clear() {
  size_ = 0;
  piece_room_ = 0;
  checked_edge_ = -1.0f;
  queued_edge_ = -1.0f;
#if SIMLOD_HAS_CUDA
  if (store_) detail::cuda::reuse_device_batch(*store_);
#endif
}

}  // namespace simlod
