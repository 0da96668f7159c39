#include "io/las_writer_base.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "io/las_format.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

/// Points encoded per put() (about 2-2.4 MB of records).
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

}  // namespace

LasWriterBase::LasWriterBase(const std::filesystem::path& path, const WriterOptions& options)
    : path_(path),
      quantizer_(path, options),
      point_format_(options.las_point_format),
      record_length_(options.las_record_length != 0 ? options.las_record_length
                                                    : las_record_length(point_format_)),
      metadata_(options.las_metadata) {}

void LasWriterBase::write(std::span<const Point> points) {
  check_open(points.size());
  if ((point_format_ != 0 && point_format_ != 2 && point_format_ != 6 && point_format_ != 7) ||
      record_length_ != las_record_length(point_format_)) {
    throw InvalidInput(fmt::format(
        "'{}': write() encodes points in LAS point format 0, 2, 6 or 7 without extra bytes; this "
        "writer has format {} with {}-byte records (use write_records())",
        path_.string(), point_format_, record_length_));
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
      encode_record(buffer_.data() + i * record_length_, point_format_,
                    quantizer_(p, points_written_ + i), p.rgba);
    }
    append(buffer_);
  }
}

void LasWriterBase::write_with_attributes(std::span<const Point> points,
                                          const PointAttributes& attributes) {
  check_open(points.size());
  if (!extra_fields_) {
    extra_fields_.emplace();
    if (record_length_ > las_record_length(point_format_) && metadata_) {
      *extra_fields_ = parse_las_extra_bytes(*metadata_, point_format_, record_length_, path_);
    }
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    (void)quantizer_(points[i], points_written_ + i);
  }
  // The whole span is encoded (and checked) before any of it is written.
  buffer_.assign(points.size() * record_length_, std::byte{0});
  for (std::size_t i = 0; i < points.size(); ++i) {
    encode_record(buffer_.data() + i * record_length_, point_format_,
                  quantizer_(points[i], points_written_ + i), points[i].rgba);
  }
  encode_las_attributes(buffer_.data(), points.size(), point_format_, record_length_, attributes, 0,
                        *extra_fields_, path_, points_written_);
  for (std::size_t begin = 0; begin < points.size(); begin += kBlockPoints) {
    const std::size_t n = std::min(kBlockPoints, points.size() - begin);
    append(std::span(buffer_).subspan(begin * record_length_, n * record_length_));
  }
}

void LasWriterBase::write_records(std::span<const std::byte> records) {
  if (records.size() % record_length_ != 0) {
    throw InvalidInput(
        fmt::format("'{}': write_records() got {} bytes, not a whole number of {}-byte records",
                    path_.string(), records.size(), record_length_));
  }
  check_open(records.size() / record_length_);
  append(records);
}

void LasWriterBase::append(std::span<const std::byte> records) {
  put(records);
  const std::size_t n = records.size() / record_length_;
  for (std::size_t i = 0; i < n; ++i)
    tally_.add(records.data() + i * record_length_, point_format_);
  points_written_ += n;
}

void LasWriterBase::check_open(std::size_t adding) const {
  if (closed_) throw IoError(fmt::format("'{}': write() after close()", path_.string()));
  const std::uint8_t minor = las_version_minor(header_fields());
  if (point_format_ <= 5 && minor < 4 &&
      points_written_ + adding > std::numeric_limits<std::uint32_t>::max()) {
    throw InvalidInput(fmt::format(
        "'{}': LAS 1.{} (point format {}) holds at most 4294967295 points; write LAS 1.4",
        path_.string(), minor, point_format_));
  }
}

LasHeaderFields LasWriterBase::header_fields() const {
  LasHeaderFields f;
  f.point_format = point_format_;
  f.record_length = record_length_;
  f.point_count = points_written_;
  f.by_return = tally_.by_return;
  f.scale = quantizer_.scale();
  f.offset = quantizer_.offset();
  f.bounds = tally_.box.to_bounds(f.scale, f.offset);
  if (metadata_) {
    f.metadata = &*metadata_;
    f.vlr_count = static_cast<std::uint32_t>(metadata_->vlrs.size());
    f.evlr_count = static_cast<std::uint32_t>(metadata_->evlrs.size());
  }
  return f;
}

}  // namespace simlod::detail
