#include "core/host_buffer.hpp"

#include <fmt/format.h>

#include <new>

#include "simlod/error.hpp"

namespace simlod::detail {

HostBuffer::HostBuffer(std::size_t bytes, bool pinned) : size_(bytes) {
  if (bytes == 0) return;
  if (pinned) {
    if (void* p = allocate_pinned(bytes)) {
      memory_ = std::unique_ptr<void, Free>(p, Free{true});
      return;
    }
  }
  void* p = ::operator new(bytes, std::align_val_t{64}, std::nothrow);
  if (p == nullptr) {
    throw CapacityError(fmt::format("cannot allocate a host buffer of {} bytes", bytes));
  }
  memory_ = std::unique_ptr<void, Free>(p, Free{false});
}

void HostBuffer::Free::operator()(void* p) const noexcept {
  if (p == nullptr) return;
  if (pinned) {
    free_pinned(p);
  } else {
    ::operator delete(p, std::align_val_t{64});
  }
}

}  // namespace simlod::detail
