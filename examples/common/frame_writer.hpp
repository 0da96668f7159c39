// Writes PNG frames on a background thread, so that encoding (tens of milliseconds for a
// 1080p picture) never stalls the frame loop: a frame offered while the previous one is still
// being written is skipped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "simlod/image.hpp"

namespace simlod::examples {

class FrameWriter {
 public:
  ~FrameWriter() { wait(); }

  /// True when no write is running (a frame offered now would be written).
  [[nodiscard]] bool idle() const {
    return !pending_.valid() ||
           pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  /// Starts writing `pixels` (RGBA8) to `path` unless a write is still running; returns
  /// whether it started. An error of an earlier write is thrown here or by wait().
  bool offer(std::filesystem::path path, std::uint32_t width, std::uint32_t height,
             std::vector<std::uint8_t> pixels) {
    if (!idle()) return false;
    if (pending_.valid()) pending_.get();
    pending_ = std::async(std::launch::async,
                          [=, p = std::move(pixels)] { write_png(path, width, height, p); });
    return true;
  }

  /// Waits for the running write and rethrows its error.
  void wait() {
    if (pending_.valid()) pending_.get();
  }

 private:
  std::future<void> pending_;
};

}  // namespace simlod::examples
