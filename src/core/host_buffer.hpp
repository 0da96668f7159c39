// Host memory for batches on their way to the octree: page-locked (pinned) when the octree
// runs on CUDA, so that the copy to the device runs at full PCIe speed and asynchronously
// (Octree::prefetch), ordinary memory otherwise.
#pragma once

#include <cstddef>
#include <memory>

namespace simlod::detail {

/// Page-locked host memory, or nullptr when it cannot be had (no CUDA in this build, no
/// device, or the driver refuses).
[[nodiscard]] void* allocate_pinned(std::size_t bytes) noexcept;
void free_pinned(void* p) noexcept;

class HostBuffer {
 public:
  HostBuffer() = default;
  /// `pinned`: try page-locked memory first, fall back to ordinary memory. Throws
  /// CapacityError when neither can be had.
  HostBuffer(std::size_t bytes, bool pinned);

  [[nodiscard]] void* data() const { return memory_.get(); }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool pinned() const { return memory_.get_deleter().pinned; }

 private:
  struct Free {
    bool pinned = false;
    void operator()(void* p) const noexcept;
  };
  std::unique_ptr<void, Free> memory_{nullptr, Free{}};
  std::size_t size_ = 0;
};

/// Page-locked buffers outlive the stream that pinned them: pinning costs about 10 ms per
/// 16 MB on the GPU test machine and holds up every other device allocation meanwhile (the
/// octree's reserve too), so later streams reuse the buffers of earlier ones. At most
/// kPinnedPoolBytes are kept; the pool lives until the process ends.
inline constexpr std::size_t kPinnedPoolBytes = std::size_t{1} << 30;

/// A buffer of exactly `bytes` from the pool, or a new HostBuffer(bytes, pinned).
[[nodiscard]] HostBuffer take_host_buffer(std::size_t bytes, bool pinned);
/// Keeps a pinned buffer for take_host_buffer() while the pool has room; frees it otherwise.
void return_host_buffer(HostBuffer buffer);
/// Pins buffers until the pool holds `count` buffers of `bytes` (within kPinnedPoolBytes).
void fill_pinned_pool(std::size_t bytes, std::size_t count);
/// Frees every buffer the pool holds.
void release_pinned_pool();

}  // namespace simlod::detail
