// Streaming reader for uncompressed LAS: each read() fetches the raw records of the whole batch
// with one large pread into a reusable buffer and decodes only X, Y, Z, intensity and RGB.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "io/file.hpp"
#include "io/formats.hpp"
#include "io/las_attributes.hpp"
#include "io/las_format.hpp"
#include "io/las_header.hpp"
#include "io/las_info.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

/// Records sampled at open to tell 8-bit from 16-bit colour (or intensity) values.
constexpr std::uint64_t kColorSamples = 1000;
/// Upper bound of one pread, so that a huge span does not need an equally huge raw buffer;
/// batches of up to 1M points of any format (at most 67 bytes each) still take one read.
constexpr std::size_t kMaxReadBytes = std::size_t{128} << 20;

/// Reads up to kColorSamples records spread evenly over the file (cheap preads). Stops early
/// once a value above 255 settles the question.
ColorSource sample_colors(const InputFile& file, const LasHeader& header) {
  const bool has_rgb = las_format_has_rgb(header.point_format);
  const std::size_t rgb_offset = kLasRgbOffset[static_cast<std::size_t>(header.point_format)];
  const std::size_t needed = has_rgb ? rgb_offset + 6 : 14;
  const std::uint64_t samples = std::min(header.point_count, kColorSamples);
  std::array<std::byte, 64> record{};
  ColorStats stats;
  for (std::uint64_t k = 0; k < samples; ++k) {
    const std::uint64_t index = k * header.point_count / samples;
    file.read_exact(header.offset_to_point_data + index * header.record_length,
                    std::span(record).first(needed), "LAS point record");
    const std::byte* r = record.data();
    if (has_rgb) {
      stats.add(load_le<std::uint16_t>(r, 12), load_le<std::uint16_t>(r, rgb_offset),
                load_le<std::uint16_t>(r, rgb_offset + 2),
                load_le<std::uint16_t>(r, rgb_offset + 4));
      if (stats.max_rgb > 255) break;
    } else {
      stats.add(load_le<std::uint16_t>(r, 12), 0, 0, 0);
      if (stats.max_intensity > 255) break;
    }
  }
  return stats.source(has_rgb);
}

void decode_records(const std::byte* records, std::size_t record_length, std::size_t rgb_offset,
                    const PointDecoder& decode, std::span<Point> out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::byte* r = records + i * record_length;
    std::uint16_t red = 0, green = 0, blue = 0;
    if (rgb_offset != 0) {
      red = load_le<std::uint16_t>(r, rgb_offset);
      green = load_le<std::uint16_t>(r, rgb_offset + 2);
      blue = load_le<std::uint16_t>(r, rgb_offset + 4);
    }
    out[i] = decode(load_le<std::int32_t>(r, 0), load_le<std::int32_t>(r, 4),
                    load_le<std::int32_t>(r, 8), load_le<std::uint16_t>(r, 12), red, green, blue);
  }
}

class LasReader final : public LasRecordReader {
 public:
  LasReader(InputFile file, const LasHeader& header, ColorSource color,
            const ReaderOptions& options)
      : file_(std::move(file)),
        data_offset_(header.offset_to_point_data),
        record_length_(header.record_length),
        rgb_offset_(kLasRgbOffset[static_cast<std::size_t>(header.point_format)]) {
    info_ = make_las_file_info(file_.path(), header, FileFormat::Las, color, options.origin);
    decoder_ = make_point_decoder(info_, color);
    init_attributes(options);
  }

 private:
  std::size_t read_impl(std::span<Point> out, std::span<std::byte> records) override {
    const std::size_t per_read = std::max<std::size_t>(1, kMaxReadBytes / record_length_);
    std::size_t done = 0;
    while (done < out.size()) {
      const std::size_t n = std::min(out.size() - done, per_read);
      const std::uint64_t first = points_read() + done;
      const std::size_t bytes = n * record_length_;
      if (buffer_.size() < bytes) buffer_.resize(bytes);
      file_.read_exact(data_offset_ + first * record_length_, std::span(buffer_).first(bytes),
                       fmt::format("LAS point records {} to {}", first, first + n - 1));
      decode_records(buffer_.data(), record_length_, rgb_offset_, decoder_, out.subspan(done, n));
      if (!records.empty()) {
        std::copy_n(buffer_.begin(), bytes,
                    records.begin() + static_cast<std::ptrdiff_t>(done * record_length_));
      }
      done += n;
    }
    return done;
  }

  InputFile file_;
  std::uint64_t data_offset_;
  std::size_t record_length_;
  std::size_t rgb_offset_;
  PointDecoder decoder_;
  std::vector<std::byte> buffer_;
};

}  // namespace

std::unique_ptr<PointReader> open_las_reader(const std::filesystem::path& path,
                                             const ReaderOptions& options) {
  check_reader_options(path, options);
  InputFile file(path);
  const LasHeader header = read_las_header(file);
  // A compressed file with a .las name: LASzip's format bits are authoritative.
  if (header.compressed) return open_laz_reader(path, options);
  check_las_point_data_size(file, header);
  const ColorSource color = sample_colors(file, header);
  return std::make_unique<LasReader>(std::move(file), header, color, options);
}

FileInfo read_las_info(const std::filesystem::path& path) {
  InputFile file(path);
  const LasHeader header = read_las_header(file);
  if (header.compressed) return read_laz_info(path);
  check_las_point_data_size(file, header);
  return make_las_file_info(path, header, FileFormat::Las, sample_colors(file, header), {});
}

}  // namespace simlod::detail
