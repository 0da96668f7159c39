// simlod::PinnedBatch: a HostBuffer from the pinned pool (core/host_buffer.hpp) behind the
// public batch type.
#include "simlod/host_batch.hpp"

#include <fmt/format.h>

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
      capacity_(std::exchange(other.capacity_, 0)) {}

PinnedBatch& PinnedBatch::operator=(PinnedBatch&& other) noexcept {
  buffer_ = std::move(other.buffer_);
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
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
}

bool PinnedBatch::pinned() const { return buffer_ && buffer_->pinned(); }

void PinnedBatch::prepare(std::size_t capacity_points, std::size_t count) {
  detail::fill_pinned_pool(capacity_points * sizeof(Point), count);
}

void PinnedBatch::release_pool() { detail::release_pinned_pool(); }

}  // namespace simlod
