// Streaming LAZ writer through LASzip (LASzip's default chunk size of 50,000 points; formats
// 6-10 with its native layered compression). write() and write_records() come from
// io/las_writer_base.hpp: every point reaches LASzip as a LAS record (io/laz/laz_record.hpp).
// LASzip writes the header and the VLRs before any point; close() appends the extended VLRs after
// LASzip's chunk table and patches the creation date, counts, bounds and positions into the header,
// computed exactly as the LAS writer does.
#include <fcntl.h>
#include <fmt/format.h>
#include <laszip/laszip_api.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/formats.hpp"
#include "io/las_format.hpp"
#include "io/las_header_encode.hpp"
#include "io/las_metadata.hpp"
#include "io/las_writer_base.hpp"
#include "io/laz/laz_record.hpp"
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

class LazWriter final : public LasWriterBase {
 public:
  LazWriter(const std::filesystem::path& path, const WriterOptions& options)
      : LasWriterBase(path, options) {
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
    LasHeaderFields fields = header_fields();
    if (metadata_ && !metadata_->evlrs.empty()) append_evlrs(fields);
    patch_header(path_, encode_las_header(fields), las_patched_ranges(las_version_minor(fields)));
  }

 private:
  void put(std::span<const std::byte> records) override {
    for (std::size_t i = 0; i < records.size() / record_length_; ++i) {
      record_to_laszip(records.data() + i * record_length_, point_format_, record_length_, *point_);
      if (laszip_write_point(laszip_) != 0) {
        throw IoError(fmt::format("'{}': LASzip cannot write point {}: {}", path_.string(),
                                  points_written_ + i, laszip_message(laszip_)));
      }
    }
  }

  /// Appends the extended VLRs after what LASzip wrote and sets their positions in `f`.
  void append_evlrs(LasHeaderFields& f) const {
    std::error_code ec;
    f.evlr_start = std::filesystem::file_size(path_, ec);
    if (ec) {
      throw IoError(fmt::format("cannot read the size of '{}': {}", path_.string(), ec.message()));
    }
    const std::vector<std::byte> evlrs =
        encode_evlrs(metadata_->evlrs, f.evlr_start, f.waveform_start);
    std::ofstream out(path_, std::ios::binary | std::ios::app);
    out.write(reinterpret_cast<const char*>(evlrs.data()),
              static_cast<std::streamsize>(evlrs.size()));
    out.close();
    if (!out) {
      throw IoError(fmt::format("cannot write the extended VLRs of '{}': {}", path_.string(),
                                errno != 0 ? std::strerror(errno) : "the stream failed"));
    }
  }

  void open() {
    laszip_header_struct* h = nullptr;
    laszip_get_header_pointer(laszip_, &h);
    const bool las14 = point_format_ > 5;
    const LasHeaderFields fields = header_fields();
    const std::vector<std::byte> encoded = encode_las_header(fields);
    h->version_major = 1;
    h->version_minor = las_version_minor(fields);
    h->header_size = static_cast<laszip_U16>(encoded.size());
    h->offset_to_point_data = h->header_size;
    h->file_source_ID = load_le<std::uint16_t>(encoded.data(), 4);
    h->global_encoding = load_le<std::uint16_t>(encoded.data(), 6);
    std::memcpy(&h->project_ID_GUID_data_1, encoded.data() + 8, 4);
    std::memcpy(&h->project_ID_GUID_data_2, encoded.data() + 12, 2);
    std::memcpy(&h->project_ID_GUID_data_3, encoded.data() + 14, 2);
    std::memcpy(h->project_ID_GUID_data_4, encoded.data() + 16, 8);
    std::memcpy(h->system_identifier, encoded.data() + 26, 32);
    h->file_creation_day = load_le<std::uint16_t>(encoded.data(), 90);
    h->file_creation_year = load_le<std::uint16_t>(encoded.data(), 92);
    h->point_data_format = static_cast<laszip_U8>(point_format_);
    h->point_data_record_length = record_length_;
    h->x_scale_factor = quantizer_.scale()[0];
    h->y_scale_factor = quantizer_.scale()[1];
    h->z_scale_factor = quantizer_.scale()[2];
    h->x_offset = quantizer_.offset()[0];
    h->y_offset = quantizer_.offset()[1];
    h->z_offset = quantizer_.offset()[2];
    std::memcpy(h->generating_software, encoded.data() + 58, 32);
    laszip_preserve_generating_software(laszip_, 1);
    if (metadata_) {
      for (const LasVlr& vlr : metadata_->vlrs) {
        if (vlr.data.size() > 0xFFFF ||
            laszip_add_vlr(laszip_, vlr.user_id.data(), vlr.record_id,
                           static_cast<laszip_U16>(vlr.data.size()), vlr.description.data(),
                           reinterpret_cast<const laszip_U8*>(vlr.data.data())) != 0) {
          throw InvalidInput(fmt::format("'{}': LASzip cannot add the VLR \"{}\" record {}: {}",
                                         path_.string(), vlr.user(), vlr.record_id,
                                         laszip_message(laszip_)));
        }
      }
    }
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
  }

  std::ofstream out_;  ///< the file LASzip writes through (open())
  laszip_POINTER laszip_ = nullptr;
  laszip_point_struct* point_ = nullptr;  ///< every field set from the record it writes
};

}  // namespace

std::unique_ptr<PointWriter> create_laz_writer(const std::filesystem::path& path,
                                               const WriterOptions& options) {
  return std::make_unique<LazWriter>(path, options);
}

}  // namespace simlod::detail
