#include "io/laz/laz_handle.hpp"

#include <fmt/format.h>
#include <laszip/laszip_api.h>

#include <cerrno>
#include <cstring>

#include "io/laz/laz_record.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

constexpr laszip_U32 kSelectedLayers =
    laszip_DECOMPRESS_SELECTIVE_CHANNEL_RETURNS_XY | laszip_DECOMPRESS_SELECTIVE_Z |
    laszip_DECOMPRESS_SELECTIVE_INTENSITY | laszip_DECOMPRESS_SELECTIVE_RGB;

std::string laszip_message(laszip_POINTER laszip) {
  laszip_CHAR* text = nullptr;
  if (laszip == nullptr || laszip_get_error(laszip, &text) != 0 || text == nullptr) {
    return "unknown LASzip error";
  }
  return text;
}

}  // namespace

LazHandle::LazHandle(const std::filesystem::path& path, const LazEnd& end, bool all_layers)
    : path_(path), end_(end) {
  if (laszip_create(&laszip_) != 0) {
    throw IoError(fmt::format("'{}': cannot create a LASzip decoder", path.string()));
  }
  laszip_BOOL compressed = 0;
  stream_.open(path, std::ios::binary);
  if (!stream_) {
    laszip_destroy(laszip_);
    throw IoError(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
  }
  if (laszip_decompress_selective(
          laszip_, all_layers ? laszip_DECOMPRESS_SELECTIVE_ALL : kSelectedLayers) != 0 ||
      laszip_open_reader_stream(laszip_, stream_, &compressed) != 0) {
    const std::string message = laszip_message(laszip_);
    laszip_destroy(laszip_);
    throw InvalidInput(fmt::format("'{}': LASzip cannot open it: {}", path.string(), message));
  }
  laszip_point_struct* point = nullptr;
  laszip_get_point_pointer(laszip_, &point);
  point_ = point;
}

LazHandle::~LazHandle() {
  laszip_close_reader(laszip_);
  laszip_destroy(laszip_);
}

void LazHandle::fail(std::string_view what) const {
  throw InvalidInput(fmt::format("'{}': {}: {}", path_.string(), what, laszip_message(laszip_)));
}

void LazHandle::seek(std::uint64_t index) {
  if (index == position_) return;
  if (laszip_seek_point(laszip_, static_cast<laszip_I64>(index)) != 0) {
    fail(fmt::format("cannot seek to LAZ point {}", index));
  }
  position_ = index;
}

void LazHandle::read_point() {
  if (laszip_read_point(laszip_) != 0) {
    fail(fmt::format("cannot decode LAZ point {} (truncated or corrupt data)", position_));
  }
  ++position_;
  if (position_ == end_.points && end_.data_end != 0) check_end();
}

void LazHandle::check_end() {
  // The encoder pads each chunk so that its decoder, after the chunk's last point, has read
  // exactly the chunk's bytes; the last chunk ends where the chunk table starts.
  const std::streamoff at = stream_.tellg();
  if (at == static_cast<std::streamoff>(end_.data_end)) return;
  const bool past = at < 0 || at > static_cast<std::streamoff>(end_.data_end);
  throw InvalidInput(fmt::format(
      "'{}' is damaged or its header is wrong: it declares {} points (byte offset {}), but "
      "decoding them {} byte offset {} where its LAZ chunk table starts (the decoder stopped at "
      "byte offset {}); the file is refused rather than {} points",
      path_.string(), end_.points, end_.count_offset, past ? "ran past" : "stopped short of",
      end_.data_end, at, past ? "inventing" : "dropping"));
}

void LazHandle::decode(std::span<Point> out, const PointDecoder& decoder,
                       std::span<std::byte> records, int format, std::size_t record_length) {
  const auto* p = static_cast<const laszip_point_struct*>(point_);
  for (std::size_t i = 0; i < out.size(); ++i) {
    read_point();
    out[i] = decoder(p->X, p->Y, p->Z, p->intensity, p->rgb[0], p->rgb[1], p->rgb[2]);
    if (!records.empty()) laszip_to_record(*p, format, record_length, &records[i * record_length]);
  }
}

void LazHandle::sample(std::uint64_t count, ColorStats& stats) {
  const auto* p = static_cast<const laszip_point_struct*>(point_);
  for (std::uint64_t i = 0; i < count; ++i) {
    read_point();
    stats.add(p->intensity, p->rgb[0], p->rgb[1], p->rgb[2]);
  }
}

}  // namespace simlod::detail
