// simlod::PinnedBatch: a HostBuffer from the pinned pool (core/host_buffer.hpp) behind the
// public batch type.
#include "simlod/host_batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "core/host_buffer.hpp"
#include "simlod/error.hpp"

namespace simlod {

PinnedBatch::PinnedBatch() noexcept = default;

PinnedBatch::PinnedBatch(std::size_t capacity_points, bool page_locked)
    : buffer_(new detail::HostBuffer(
          detail::take_host_buffer(capacity_points * sizeof(Point), page_locked))),
      data_(static_cast<Point*>(buffer_->data())),
      capacity_(capacity_points) {}

PinnedBatch::PinnedBatch(PinnedBatch&& other) noexcept
    : buffer_(std::move(other.buffer_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      checked_(std::exchange(other.checked_, 0)),
      checked_edge_(other.checked_edge_) {}

PinnedBatch& PinnedBatch::operator=(PinnedBatch&& other) noexcept {
  buffer_ = std::move(other.buffer_);
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  checked_ = std::exchange(other.checked_, 0);
  checked_edge_ = other.checked_edge_;
  return *this;
}

PinnedBatch::~PinnedBatch() = default;

void PinnedBatch::Release::operator()(detail::HostBuffer* buffer) const noexcept {
  detail::return_host_buffer(std::move(*buffer));
  delete buffer;
}

void PinnedBatch::resize(std::size_t points) {
  if (points > capacity_) {
    throw InvalidInput(fmt::format("PinnedBatch::resize({}) exceeds the capacity of {} points",
                                   points, capacity_));
  }
  size_ = points;
  checked_ = std::min(checked_, size_);
}

std::optional<BadPoint> PinnedBatch::check(const Bounds& cube, std::size_t first,
                                           std::size_t count) {
  if (first > size_ || count > size_ - first) {
    throw InvalidInput(
        fmt::format("PinnedBatch::check: points [{}, {}) leave the batch of {} points", first,
                    first + count, size_));
  }
  const auto edge = static_cast<float>(cube.max[0] - cube.min[0]);
  auto bad = Octree::find_bad_point(std::span<const Point>(data_ + first, count), cube);
  if (bad) {
    bad->index += first;
    return bad;
  }
  if (first == 0) {
    checked_edge_ = edge;
    checked_ = count;
  } else if (first <= checked_ && edge == checked_edge_) {
    checked_ = std::max(checked_, first + count);
  }
  return std::nullopt;
}

std::size_t PinnedBatch::checked_points(const Bounds& cube) const {
  return static_cast<float>(cube.max[0] - cube.min[0]) == checked_edge_ ? checked_ : 0;
}

bool PinnedBatch::pinned() const { return buffer_ && buffer_->pinned(); }

void PinnedBatch::prepare(std::size_t capacity_points, std::size_t count) {
  detail::fill_pinned_pool(capacity_points * sizeof(Point), count);
}

void PinnedBatch::release_pool() { detail::release_pinned_pool(); }

}  // namespace simlod
