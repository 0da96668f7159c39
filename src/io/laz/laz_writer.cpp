// Streaming LAZ writer through LASzip (point format 2 as LAS 1.2, point format 7 as LAS 1.4
// with LASzip's native layered compression; LASzip's default chunk size of 50,000 points).
// LASzip writes the header before any point; close() patches the creation date, counts and
// bounds into it, computed exactly as the LAS writer does.
#include <fcntl.h>
#include <fmt/format.h>
#include <laszip/laszip_api.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "io/formats.hpp"
#include "io/las_header_encode.hpp"
#include "io/las_quantizer.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

std::string laszip_message(laszip_POINTER laszip) {
  laszip_CHAR* text = nullptr;
  std::string message = laszip_get_error(laszip, &text) != 0 || text == nullptr
                            ? "unknown LASzip error"
                            : std::string(text);
  // LASzip does not say why a write failed; the system's reason (a full disk) is still in
  // errno, which open() cleared.
  if (errno != 0) message += fmt::format(" ({})", std::strerror(errno));
  return message;
}

/// Overwrites the given byte ranges of `header` at the start of the file.
void patch_header(const std::filesystem::path& path, const std::vector<std::byte>& header,
                  const std::vector<ByteRange>& ranges) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    throw IoError(
        fmt::format("cannot update the header of '{}': {}", path.string(), std::strerror(errno)));
  }
  for (const ByteRange& r : ranges) {
    const auto size = static_cast<ssize_t>(r.end - r.begin);
    if (::pwrite(fd, header.data() + r.begin, r.end - r.begin, static_cast<off_t>(r.begin)) !=
        size) {
      const int err = errno;
      ::close(fd);
      throw IoError(fmt::format("write error in '{}' at byte offset {}: {}", path.string(), r.begin,
                                std::strerror(err)));
    }
  }
  if (::close(fd) != 0) {
    throw IoError(
        fmt::format("cannot finish writing '{}': {}", path.string(), std::strerror(errno)));
  }
}

class LazWriter final : public PointWriter {
 public:
  LazWriter(const std::filesystem::path& path, const WriterOptions& options)
      : path_(path), quantizer_(path, options), point_format_(options.las_point_format) {
    if (laszip_create(&laszip_) != 0) {
      throw IoError(fmt::format("'{}': cannot create a LASzip encoder", path.string()));
    }
    try {
      open();
    } catch (...) {
      laszip_destroy(laszip_);
      throw;
    }
  }

  ~LazWriter() override {
    try {
      close();
    } catch (...) {
      // Only an explicit close() reports errors (PointWriter contract).
    }
  }

  void write(std::span<const Point> points) override {
    if (closed_) throw IoError(fmt::format("'{}': write() after close()", path_.string()));
    if (point_format_ <= 5 &&
        points_written_ + points.size() > std::numeric_limits<std::uint32_t>::max()) {
      throw InvalidInput(fmt::format(
          "'{}': LAS 1.2 (point format 2) holds at most 4294967295 points; write format 7",
          path_.string()));
    }
    // Validate the whole batch first so that a bad point leaves the file as it was.
    for (std::size_t i = 0; i < points.size(); ++i) {
      (void)quantizer_(points[i], points_written_ + i);
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto q = quantizer_(points[i], points_written_ + i);
      point_->X = q[0];
      point_->Y = q[1];
      point_->Z = q[2];
      point_->rgb[0] = static_cast<laszip_U16>(red_of(points[i].rgba) * 257);
      point_->rgb[1] = static_cast<laszip_U16>(green_of(points[i].rgba) * 257);
      point_->rgb[2] = static_cast<laszip_U16>(blue_of(points[i].rgba) * 257);
      if (laszip_write_point(laszip_) != 0) {
        throw IoError(fmt::format("'{}': LASzip cannot write point {}: {}", path_.string(),
                                  points_written_ + i, laszip_message(laszip_)));
      }
      box_.add(q);
    }
    points_written_ += points.size();
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    const bool closed_ok = laszip_close_writer(laszip_) == 0;
    const std::string message = closed_ok ? std::string() : laszip_message(laszip_);
    laszip_destroy(laszip_);
    errno = 0;
    out_.close();
    if (!closed_ok) {
      throw IoError(
          fmt::format("'{}': LASzip cannot finish the file: {}", path_.string(), message));
    }
    if (out_.fail()) {
      throw IoError(fmt::format("cannot write '{}': {}", path_.string(),
                                errno != 0 ? std::strerror(errno) : "the stream failed"));
    }
    LasHeaderFields fields;
    fields.point_format = point_format_;
    fields.point_count = points_written_;
    fields.scale = quantizer_.scale();
    fields.offset = quantizer_.offset();
    fields.bounds = box_.to_bounds(fields.scale, fields.offset);
    patch_header(path_, encode_las_header(fields), las_patched_ranges(point_format_));
  }

 private:
  void open() {
    laszip_header_struct* h = nullptr;
    laszip_get_header_pointer(laszip_, &h);
    const bool las14 = point_format_ > 5;
    h->version_major = 1;
    h->version_minor = las14 ? 4 : 2;
    h->header_size = las_header_size(point_format_);
    h->offset_to_point_data = h->header_size;
    // Global encoding bit 4 (WKT) is required for point formats 6-10 (LAS 1.4 R15).
    h->global_encoding = las14 ? 0x10 : 0;
    h->point_data_format = static_cast<laszip_U8>(point_format_);
    h->point_data_record_length = las_record_length(point_format_);
    h->x_scale_factor = quantizer_.scale()[0];
    h->y_scale_factor = quantizer_.scale()[1];
    h->z_scale_factor = quantizer_.scale()[2];
    h->x_offset = quantizer_.offset()[0];
    h->y_offset = quantizer_.offset()[1];
    h->z_offset = quantizer_.offset()[2];
    std::memset(h->generating_software, 0, sizeof(h->generating_software));
    std::memcpy(h->generating_software, "simlod", 6);
    laszip_preserve_generating_software(laszip_, 1);
    // Format 7 uses the native LAS 1.4 (layered) compressor, not the 1.2 compatibility mode.
    if (las14) laszip_request_native_extension(laszip_, 1);
    // LASzip writes through our stream rather than its own FILE*: when its last writes fail,
    // laszip_close_writer() returns without closing what it opened, and the descriptor would
    // stay open for the rest of the process. Ours closes with the writer.
    out_.open(path_, std::ios::binary | std::ios::trunc);
    if (!out_) {
      throw IoError(fmt::format("cannot create '{}': {}", path_.string(), std::strerror(errno)));
    }
    errno = 0;  // see laszip_message()
    if (laszip_open_writer_stream(laszip_, out_, 1, 0) != 0) {
      throw IoError(fmt::format("cannot create '{}': {}", path_.string(), laszip_message(laszip_)));
    }
    laszip_get_point_pointer(laszip_, &point_);
    // Every point is return 1 of 1 (legacy fields for format 2, extended ones for format 7).
    point_->return_number = 1;
    point_->number_of_returns = 1;
    point_->extended_return_number = 1;
    point_->extended_number_of_returns = 1;
    point_->extended_point_type = las14 ? 1 : 0;
  }

  std::filesystem::path path_;
  std::ofstream out_;  ///< the file LASzip writes through (open())
  LasQuantizer quantizer_;
  int point_format_;
  laszip_POINTER laszip_ = nullptr;
  laszip_point_struct* point_ = nullptr;
  IntBox box_;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<PointWriter> create_laz_writer(const std::filesystem::path& path,
                                               const WriterOptions& options) {
  return std::make_unique<LazWriter>(path, options);
}

}  // namespace simlod::detail
