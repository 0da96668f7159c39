// Host memory for batches on their way to the octree: page-locked (pinned) when the octree
// runs on CUDA, so that the copy to the device runs at full PCIe speed and asynchronously
// (OctreeBackend::prefetch), ordinary memory otherwise.
#pragma once

#include <cstddef>
#include <memory>

namespace simlod::detail {

/// Page-locked host memory, or nullptr when it cannot be had (no CUDA in this build, no
/// device, or the driver refuses). kernels/pinned_memory.cu or core/no_cuda/.
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

}  // namespace simlod::detail
