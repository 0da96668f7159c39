// A one-line progress bar on stderr for the example programs:
//   converting [##########..........]  52.3%  17.9M/34.2M  41.2 M points/s  ETA 0:04
// It draws only when stderr is a terminal (or when forced, e.g. for logs), redraws at most
// ten times per second so that it never costs measurable time, and ends with a newline.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace simlod::examples {

class ProgressBar {
 public:
  enum class Mode {
    Auto,   ///< draw when stderr is a terminal
    Force,  ///< always draw (logs, tests)
    Off,
  };

  /// `total` is the number of points expected (0: unknown, no percentage or ETA).
  ProgressBar(std::string label, std::uint64_t total, Mode mode = Mode::Auto)
      : label_(std::move(label)),
        total_(total),
        enabled_(mode == Mode::Force || (mode == Mode::Auto && ::isatty(::fileno(stderr)) == 1)),
        start_(Clock::now()) {}
  ~ProgressBar() { finish(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Records that `done` points are finished; redraws when 100 ms have passed.
  void update(std::uint64_t done) {
    done_ = done;
    if (!enabled_) return;
    const auto now = Clock::now();
    if (drawn_ && now - last_draw_ < kRedrawInterval) return;
    last_draw_ = now;
    draw(now);
  }

  /// Draws the final state and the newline (once).
  void finish() {
    if (!enabled_ || finished_) return;
    finished_ = true;
    draw(Clock::now());
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }

  /// Seconds since construction.
  [[nodiscard]] double elapsed_s() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
  static constexpr int kBarWidth = 24;

  static std::string count_text(std::uint64_t n) {
    const auto d = static_cast<double>(n);
    if (n < 10'000) return fmt::format("{}", n);
    if (n < 1'000'000) return fmt::format("{:.1f}k", d / 1e3);
    if (n < 1'000'000'000) return fmt::format("{:.1f}M", d / 1e6);
    return fmt::format("{:.2f}G", d / 1e9);
  }

  static std::string duration_text(double s) {
    const auto t = static_cast<std::uint64_t>(s + 0.5);
    if (t >= 3600) return fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60);
    return fmt::format("{}:{:02}", t / 60, t % 60);
  }

  void draw(Clock::time_point now) {
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0.0 ? static_cast<double>(done_) / seconds : 0.0;
    std::string line = label_;
    if (total_ > 0) {
      const double fraction =
          std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
      const int filled = static_cast<int>(fraction * kBarWidth);
      line +=
          fmt::format(" [{}{}] {:5.1f}%  {}/{}", std::string(static_cast<std::size_t>(filled), '#'),
                      std::string(static_cast<std::size_t>(kBarWidth - filled), '.'),
                      100.0 * fraction, count_text(done_), count_text(total_));
    } else {
      line += fmt::format("  {}", count_text(done_));
    }
    line += fmt::format("  {:.1f} M points/s", rate / 1e6);
    if (finished_) {
      line += fmt::format("  {}", duration_text(seconds));
    } else if (total_ > 0) {
      const bool known = rate > 0.0 && done_ <= total_;
      line += "  ETA " + (known ? duration_text(static_cast<double>(total_ - done_) / rate)
                                : std::string("-:--"));
    }
    // Pad over the previous, possibly longer, line instead of using terminal escapes, so that
    // a forced bar written to a log stays plain text.
    const std::size_t width = line.size();
    if (line.size() < last_width_) line.append(last_width_ - line.size(), ' ');
    last_width_ = width;
    fmt::print(stderr, "\r{}", line);
    std::fflush(stderr);
    drawn_ = true;
  }

  std::string label_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  bool enabled_ = false;
  bool drawn_ = false;
  bool finished_ = false;
  std::size_t last_width_ = 0;
  Clock::time_point start_;
  Clock::time_point last_draw_;
};

/// The mode of the programs' --quiet and --progress flags: off, forced, or drawn on a terminal.
inline ProgressBar::Mode progress_mode(bool quiet, bool force) {
  return quiet   ? ProgressBar::Mode::Off
         : force ? ProgressBar::Mode::Force
                 : ProgressBar::Mode::Auto;
}

}  // namespace simlod::examples
