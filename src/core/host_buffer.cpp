#include "core/host_buffer.hpp"

#include <fmt/format.h>

#include <mutex>
#include <new>
#include <vector>

#include "kernels/entry.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {

#if SIMLOD_HAS_CUDA
void* allocate_pinned(std::size_t bytes) noexcept { return cuda::allocate_pinned(bytes); }
void free_pinned(void* p) noexcept { cuda::free_pinned(p); }
#else
void* allocate_pinned(std::size_t) noexcept { return nullptr; }  // ordinary memory instead
void free_pinned(void*) noexcept {}
#endif

HostBuffer::HostBuffer(std::size_t bytes, bool pinned) : size_(bytes) {
  if (bytes == 0) return;
  if (pinned) {
    if (void* p = allocate_pinned(bytes)) {
      memory_ = std::unique_ptr<void, Free>(p, Free{true});
      return;
    }
  }
  void* p = ::operator new (bytes, std::align_val_t{64}, std::nothrow);
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
    ::operator delete (p, std::align_val_t{64});
  }
}

namespace {

struct PinnedPool {
  std::mutex mutex;
  std::vector<HostBuffer> buffers;
  std::size_t bytes = 0;
};

PinnedPool& pool() {
  static auto* p = new PinnedPool;  // never destroyed: no cudaFreeHost after CUDA shuts down
  return *p;
}

}  // namespace

HostBuffer take_host_buffer(std::size_t bytes, bool pinned) {
  if (pinned) {
    PinnedPool& p = pool();
    std::lock_guard lock(p.mutex);
    for (auto it = p.buffers.begin(); it != p.buffers.end(); ++it) {
      if (it->size() == bytes) {
        HostBuffer found = std::move(*it);
        p.buffers.erase(it);
        p.bytes -= bytes;
        return found;
      }
    }
  }
  return HostBuffer(bytes, pinned);
}

void return_host_buffer(HostBuffer buffer) {
  if (!buffer.pinned()) return;
  PinnedPool& p = pool();
  std::lock_guard lock(p.mutex);
  if (p.bytes + buffer.size() > kPinnedPoolBytes) return;  // freed here
  p.bytes += buffer.size();
  p.buffers.push_back(std::move(buffer));
}

void fill_pinned_pool(std::size_t bytes, std::size_t count) {
  PinnedPool& p = pool();
  std::size_t have = 0;
  {
    std::lock_guard lock(p.mutex);
    for (const HostBuffer& b : p.buffers) have += b.size() == bytes ? 1 : 0;
  }
  for (; have < count; ++have) {
    HostBuffer b(bytes, true);
    if (!b.pinned()) return;  // no page-locked memory to be had
    std::lock_guard lock(p.mutex);
    if (p.bytes + bytes > kPinnedPoolBytes) return;
    p.bytes += bytes;
    p.buffers.push_back(std::move(b));
  }
}

void release_pinned_pool() {
  std::vector<HostBuffer> freed;  // freed after the lock is released
  PinnedPool& p = pool();
  std::lock_guard lock(p.mutex);
  freed.swap(p.buffers);
  p.bytes = 0;
}

}  // namespace simlod::detail
