// SIM writer: a header placeholder, then the caller's points byte for byte; close() patches the
// bounds. WriterOptions::origin is ignored: SIM has no origin field, so coordinates are stored as
// given (relative coordinates stay relative).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "io/file.hpp"
#include "io/formats.hpp"
#include "io/sim_format.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

class SimWriter final : public PointWriter {
 public:
  explicit SimWriter(const std::filesystem::path& path) : file_(path) {
    const SimHeader placeholder{};
    file_.write(bytes_of(placeholder));
  }

  ~SimWriter() override {
    try {
      close();
    } catch (...) {  // NOLINT(bugprone-empty-catch): only an explicit close() reports errors
    }
  }

  void write(std::span<const Point> points) override {
    if (closed_) {
      throw InvalidInput(fmt::format("'{}': write after close", file_.path().string()));
    }
    // Validate the whole batch first so that a bad batch leaves nothing behind in the file.
    float lo[3] = {min_[0], min_[1], min_[2]};
    float hi[3] = {max_[0], max_[1], max_[2]};
    for (std::size_t i = 0; i < points.size(); ++i) {
      const Point& p = points[i];
      const float c[3] = {p.x, p.y, p.z};
      for (int a = 0; a < 3; ++a) {
        if (!std::isfinite(c[a])) {
          throw InvalidInput(fmt::format("'{}': point {} has a non-finite coordinate ({}, {}, {})",
                                         file_.path().string(), points_written_ + i, p.x, p.y,
                                         p.z));
        }
        lo[a] = std::min(lo[a], c[a]);
        hi[a] = std::max(hi[a], c[a]);
      }
    }
    file_.write(std::as_bytes(points));
    std::copy(lo, lo + 3, min_);
    std::copy(hi, hi + 3, max_);
    points_written_ += points.size();
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    // An empty file gets zero bounds; readers read it as a file of no points.
    SimHeader header{};
    if (points_written_ > 0) {
      std::copy(min_, min_ + 3, header.min);
      std::copy(max_, max_ + 3, header.max);
    }
    file_.write_at(0, bytes_of(header));
    file_.close();
  }

 private:
  static constexpr float kInf = std::numeric_limits<float>::infinity();
  OutputFile file_;
  float min_[3] = {kInf, kInf, kInf};
  float max_[3] = {-kInf, -kInf, -kInf};
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<PointWriter> create_sim_writer(const std::filesystem::path& path,
                                               const WriterOptions& /*options: no origin in SIM*/) {
  return std::make_unique<SimWriter>(path);
}

}  // namespace simlod::detail
