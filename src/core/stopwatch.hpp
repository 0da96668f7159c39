// Wall-clock milliseconds of host work (the CPU executors' phase times).
#pragma once

#include <chrono>

namespace simlod::detail {

class Stopwatch {
 public:
  /// Milliseconds since construction or the last restart().
  [[nodiscard]] double ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
        .count();
  }
  void restart() { start_ = std::chrono::steady_clock::now(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace simlod::detail
