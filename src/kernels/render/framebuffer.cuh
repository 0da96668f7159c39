// The CUDA framebuffer: per-pixel words and colour sums in device memory (layout as the CPU
// framebuffer's, core/cpu/render/framebuffer.hpp), an RGBA8 image (or the application's wrapped
// device buffer), the renderer's per-node scratch and counters, a stream and events.
#pragma once

#include <cstdint>

#include "core/framebuffer_store.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/entry.hpp"
#include "kernels/render/render_layout.hpp"

namespace simlod::detail::cuda {

class Framebuffer : public FramebufferSize {
 public:
  /// On the current device.
  Framebuffer(std::uint32_t width, std::uint32_t height);

  double resolve(const ResolveSettings& settings);
  [[nodiscard]] std::vector<std::uint8_t> download() const;
  [[nodiscard]] std::vector<std::uint64_t> download_words() const;
  void wrap_device_rgba8(void* d_pixels, std::size_t pitch_bytes);

  // For the renderer (kernels/render/render.cu); all asynchronous on stream().
  /// Empties the words (and zeroes the sums for `blend`, allocated once) and the counters.
  void clear(bool blend);
  /// Makes the scratch hold `nodes` nodes and `chunks` chunk entries (synchronous when it
  /// grows).
  void reserve(std::uint32_t nodes, std::uint32_t chunks);
  void launch_resolve(const ResolveSettings& settings);

  [[nodiscard]] cudaStream_t stream() const { return stream_.get(); }
  [[nodiscard]] cudaEvent_t event(int i) const { return events_[i].get(); }
  [[nodiscard]] unsigned long long* d_words() const {
    return static_cast<unsigned long long*>(words_.get());
  }
  [[nodiscard]] unsigned long long* d_sums() const {
    return static_cast<unsigned long long*>(sums_.get());
  }
  [[nodiscard]] RenderCounters* d_counters() const {
    return static_cast<RenderCounters*>(counters_.get());
  }
  [[nodiscard]] RenderCounters* h_counters() const {
    return static_cast<RenderCounters*>(counters_host_.get());
  }
  [[nodiscard]] float2* d_ranges() const { return static_cast<float2*>(ranges_.get()); }
  [[nodiscard]] uint2* d_entries() const { return static_cast<uint2*>(entries_.get()); }
  [[nodiscard]] int sm_count() const { return sm_count_; }
  [[nodiscard]] int device() const { return device_; }
  /// Recorded on an application's stream (render_async).
  [[nodiscard]] cudaEvent_t external() const { return external_.get(); }

  static constexpr int kEvents = 4;

 private:
  DeviceMemory words_, sums_, rgba_, counters_, ranges_, entries_;
  PinnedMemory counters_host_;
  StreamHandle stream_;
  EventHandle events_[kEvents];
  std::uint32_t node_capacity_ = 0, chunk_capacity_ = 0;
  void* wrapped_ = nullptr;
  std::size_t wrapped_pitch_ = 0;
  bool blended_ = false;
  int sm_count_ = 1;
  int device_ = 0;
  EventHandle external_;
};

}  // namespace simlod::detail::cuda
