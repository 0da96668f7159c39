// Streaming LAS writer. write() takes simlod points (point format 2 as LAS 1.2, 7 as LAS 1.4);
// write_records() takes LAS records of any format as they are. The header and the VLRs are
// written first (counts zero), the extended VLRs after the points by close(), which then writes
// the header again with the final counts, bounds and positions.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "io/file.hpp"
#include "io/formats.hpp"
#include "io/las_format.hpp"
#include "io/las_header_encode.hpp"
#include "io/las_metadata.hpp"
#include "io/las_quantizer.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

/// Points encoded per write to the file (about 2-2.4 MB of records).
constexpr std::size_t kBlockPoints = 1 << 16;

/// One record: X, Y, Z, return 1 of 1, 8-bit colour stored as 16 bits (value * 257) where
/// the format has RGB (2, 7; not 0, 6).
void encode_record(std::byte* r, int point_format, const std::array<std::int32_t, 3>& q,
                   std::uint32_t rgba) {
  store_le<std::int32_t>(r, 0, q[0]);
  store_le<std::int32_t>(r, 4, q[1]);
  store_le<std::int32_t>(r, 8, q[2]);
  // Byte 14 packs return number and number of returns: 3+3 bits (formats 0-5), 4+4 (6-10).
  store_le<std::uint8_t>(r, 14, point_format > 5 ? 0x11 : 0x09);
  const std::size_t rgb = kLasRgbOffset[static_cast<std::size_t>(point_format)];
  if (rgb == 0) return;
  store_le<std::uint16_t>(r, rgb, static_cast<std::uint16_t>(red_of(rgba) * 257));
  store_le<std::uint16_t>(r, rgb + 2, static_cast<std::uint16_t>(green_of(rgba) * 257));
  store_le<std::uint16_t>(r, rgb + 4, static_cast<std::uint16_t>(blue_of(rgba) * 257));
}

class LasWriter final : public PointWriter {
 public:
  // The VLRs are encoded (and checked) before the file is created.
  LasWriter(const std::filesystem::path& path, const WriterOptions& options)
      : quantizer_(path, options),
        point_format_(options.las_point_format),
        record_length_(options.las_record_length != 0 ? options.las_record_length
                                                      : las_record_length(point_format_)),
        metadata_(options.las_metadata),
        vlrs_(encode_vlrs(metadata_)),
        file_(path) {
    file_.write(encode_las_header(header_fields()));
    file_.write(vlrs_);
  }

  ~LasWriter() override {
    try {
      close();
    } catch (...) {
      // Only an explicit close() reports errors (PointWriter contract).
    }
  }

  void write(std::span<const Point> points) override {
    check_open(points.size());
    if ((point_format_ != 0 && point_format_ != 2 && point_format_ != 6 && point_format_ != 7) ||
        record_length_ != las_record_length(point_format_)) {
      throw InvalidInput(fmt::format(
          "'{}': write() encodes points in LAS point format 0, 2, 6 or 7 without extra bytes; this "
          "writer has format {} with {}-byte records (use write_records())",
          file_.path().string(), point_format_, record_length_));
    }
    // Validate the whole batch first so that a bad point leaves the file as it was.
    for (std::size_t i = 0; i < points.size(); ++i) {
      (void)quantizer_(points[i], points_written_ + i);
    }
    for (std::size_t begin = 0; begin < points.size(); begin += kBlockPoints) {
      const std::size_t n = std::min(kBlockPoints, points.size() - begin);
      buffer_.assign(n * record_length_, std::byte{0});
      for (std::size_t i = 0; i < n; ++i) {
        const Point& p = points[begin + i];
        const auto q = quantizer_(p, points_written_ + begin + i);
        tally_.add_first_return(q);
        encode_record(buffer_.data() + i * record_length_, point_format_, q, p.rgba);
      }
      file_.write(buffer_);
    }
    points_written_ += points.size();
  }

  void write_records(std::span<const std::byte> records) override {
    if (records.size() % record_length_ != 0) {
      throw InvalidInput(
          fmt::format("'{}': write_records() got {} bytes, not a whole number of {}-byte records",
                      file_.path().string(), records.size(), record_length_));
    }
    const std::size_t n = records.size() / record_length_;
    check_open(n);
    for (std::size_t i = 0; i < n; ++i)
      tally_.add(records.data() + i * record_length_, point_format_);
    file_.write(records);
    points_written_ += n;
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    LasHeaderFields f = header_fields();
    if (metadata_ && !metadata_->evlrs.empty()) {
      // Extended VLRs follow the points; the waveform data packet record's position goes into
      // the header too.
      f.evlr_start = las_header_size_of_version(las_version_minor(f)) + vlrs_.size() +
                     points_written_ * record_length_;
      file_.write(encode_evlrs(metadata_->evlrs, f.evlr_start, f.waveform_start));
    }
    file_.write_at(0, encode_las_header(f));
    file_.close();
  }

 private:
  void check_open(std::size_t adding) const {
    if (closed_) {
      throw IoError(fmt::format("'{}': write() after close()", file_.path().string()));
    }
    LasHeaderFields f = header_fields();
    if (point_format_ <= 5 && las_version_minor(f) < 4 &&
        points_written_ + adding > std::numeric_limits<std::uint32_t>::max()) {
      throw InvalidInput(fmt::format(
          "'{}': LAS 1.{} (point format {}) holds at most 4294967295 points; write LAS 1.4",
          file_.path().string(), las_version_minor(f), point_format_));
    }
  }

  LasHeaderFields header_fields() const {
    LasHeaderFields f;
    f.point_format = point_format_;
    f.record_length = record_length_;
    f.point_count = points_written_;
    f.by_return = tally_.by_return;
    f.scale = quantizer_.scale();
    f.offset = quantizer_.offset();
    f.bounds = tally_.box.to_bounds(f.scale, f.offset);
    f.metadata = metadata_ ? &*metadata_ : nullptr;
    f.vlr_count = metadata_ ? static_cast<std::uint32_t>(metadata_->vlrs.size()) : 0;
    f.vlr_bytes = vlrs_.size();
    if (metadata_) f.evlr_count = static_cast<std::uint32_t>(metadata_->evlrs.size());
    return f;
  }

  static std::vector<std::byte> encode_vlrs(const std::optional<LasMetadata>& metadata) {
    std::vector<std::byte> out;
    if (metadata) {
      for (const LasVlr& vlr : metadata->vlrs) append_vlr(out, vlr);
    }
    return out;
  }

  LasQuantizer quantizer_;
  int point_format_;
  std::uint16_t record_length_;
  std::optional<LasMetadata> metadata_;
  std::vector<std::byte> vlrs_;  ///< the encoded VLRs
  OutputFile file_;
  RecordTally tally_;
  std::vector<std::byte> buffer_;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<PointWriter> create_las_writer(const std::filesystem::path& path,
                                               const WriterOptions& options) {
  return std::make_unique<LasWriter>(path, options);
}

}  // namespace simlod::detail
