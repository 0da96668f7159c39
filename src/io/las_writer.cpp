// Streaming LAS writer: point format 2 (LAS 1.2) or 7 (LAS 1.4). The header is written first
// with zero counts and patched with the final counts and bounds by close().
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "io/file.hpp"
#include "io/formats.hpp"
#include "io/las_format.hpp"
#include "io/las_header_encode.hpp"
#include "io/las_quantizer.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

/// Points encoded per write to the file (about 2-2.4 MB of records).
constexpr std::size_t kBlockPoints = 1 << 16;

/// One record: X, Y, Z, return 1 of 1, 8-bit colour stored as 16 bits (value * 257).
void encode_record(std::byte* r, int point_format, const std::array<std::int32_t, 3>& q,
                   std::uint32_t rgba) {
  store_le<std::int32_t>(r, 0, q[0]);
  store_le<std::int32_t>(r, 4, q[1]);
  store_le<std::int32_t>(r, 8, q[2]);
  // Byte 14 packs return number and number of returns: 3+3 bits (formats 0-5), 4+4 (6-10).
  store_le<std::uint8_t>(r, 14, point_format == 7 ? 0x11 : 0x09);
  const std::size_t rgb = kLasRgbOffset[static_cast<std::size_t>(point_format)];
  store_le<std::uint16_t>(r, rgb, static_cast<std::uint16_t>(red_of(rgba) * 257));
  store_le<std::uint16_t>(r, rgb + 2, static_cast<std::uint16_t>(green_of(rgba) * 257));
  store_le<std::uint16_t>(r, rgb + 4, static_cast<std::uint16_t>(blue_of(rgba) * 257));
}

class LasWriter final : public PointWriter {
 public:
  LasWriter(const std::filesystem::path& path, const WriterOptions& options)
      : quantizer_(path, options), file_(path), point_format_(options.las_point_format) {
    file_.write(encode_las_header(header_fields()));
  }

  ~LasWriter() override {
    try {
      close();
    } catch (...) {
      // Only an explicit close() reports errors (PointWriter contract).
    }
  }

  void write(std::span<const Point> points) override {
    if (closed_) {
      throw IoError(fmt::format("'{}': write() after close()", file_.path().string()));
    }
    if (point_format_ <= 5 &&
        points_written_ + points.size() > std::numeric_limits<std::uint32_t>::max()) {
      throw InvalidInput(fmt::format(
          "'{}': LAS 1.2 (point format 2) holds at most 4294967295 points; write format 7",
          file_.path().string()));
    }
    // Validate the whole batch first so that a bad point leaves the file as it was.
    for (std::size_t i = 0; i < points.size(); ++i) {
      (void)quantizer_(points[i], points_written_ + i);
    }
    const std::size_t record_length = las_record_length(point_format_);
    for (std::size_t begin = 0; begin < points.size(); begin += kBlockPoints) {
      const std::size_t n = std::min(kBlockPoints, points.size() - begin);
      buffer_.assign(n * record_length, std::byte{0});
      for (std::size_t i = 0; i < n; ++i) {
        const Point& p = points[begin + i];
        const auto q = quantizer_(p, points_written_ + begin + i);
        box_.add(q);
        encode_record(buffer_.data() + i * record_length, point_format_, q, p.rgba);
      }
      file_.write(buffer_);
    }
    points_written_ += points.size();
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    file_.write_at(0, encode_las_header(header_fields()));
    file_.close();
  }

 private:
  LasHeaderFields header_fields() const {
    LasHeaderFields f;
    f.point_format = point_format_;
    f.point_count = points_written_;
    f.scale = quantizer_.scale();
    f.offset = quantizer_.offset();
    f.bounds = box_.to_bounds(f.scale, f.offset);
    return f;
  }

  LasQuantizer quantizer_;
  OutputFile file_;
  int point_format_;
  IntBox box_;
  std::vector<std::byte> buffer_;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<PointWriter> create_las_writer(const std::filesystem::path& path,
                                               const WriterOptions& options) {
  return std::make_unique<LasWriter>(path, options);
}

}  // namespace simlod::detail
