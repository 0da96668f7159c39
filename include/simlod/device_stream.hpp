// simlod::DeviceStream: an application's CUDA stream, handed to the library without CUDA
// headers (in the spirit of rmm::cuda_stream_view): DeviceStream(reinterpret_cast<void*>(s))
// for a cudaStream_t s. The _async calls (Octree::update_async, rasterize_async) order their
// device work after what was queued on it before the call, and what is queued on it after the
// call runs after their work. The default, nullptr, is CUDA's legacy default stream. CPU octrees
// and framebuffers ignore it: their work is done when the call returns.
#pragma once

namespace simlod {

class DeviceStream {
 public:
  constexpr DeviceStream() noexcept = default;
  constexpr explicit DeviceStream(void* handle) noexcept : handle_(handle) {}
  /// The cudaStream_t, as void*.
  [[nodiscard]] constexpr void* handle() const noexcept { return handle_; }

 private:
  void* handle_ = nullptr;
};

}  // namespace simlod
