// LAS public header block, little-endian (offsets in bytes; LAS 1.4 R15 table 3):
//
//     0  char[4]   file signature "LASF"
//    24  uint8     version major, 25 uint8 version minor
//    58  char[32]  generating software
//    94  uint16    header size (227 for 1.0-1.2, 235 for 1.3, 375 for 1.4; may be larger)
//    96  uint32    offset to point data
//   100  uint32    number of variable length records
//   104  uint8     point data format (bits 7/6 set: compressed by LASzip)
//   105  uint16    point data record length
//   107  uint32    legacy number of point records
//   111  uint32[5] legacy number of points by return
//   131  double[3] x, y, z scale factor
//   155  double[3] x, y, z offset
//   179  double[6] max x, min x, max y, min y, max z, min z
//   227  uint64    start of waveform data packet record (1.3+)
//   235  uint64    start of first extended VLR (1.4), 243 uint32 number of extended VLRs
//   247  uint64    number of point records (1.4), 255 uint64[15] points by return
//   375            end of the LAS 1.4 header
#include "io/las_header.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "io/las_format.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

constexpr std::size_t kHeaderBytes14 = 375;

std::uint16_t min_header_size(int minor) { return minor >= 4 ? 375 : minor == 3 ? 235 : 227; }

std::string trimmed(const std::byte* bytes, std::size_t size) {
  std::string s(reinterpret_cast<const char*>(bytes), size);
  s = s.substr(0, s.find('\0'));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

void check_signature(const InputFile& file) {
  std::array<std::byte, 4> magic{};
  file.read_exact(0, magic, "LAS file signature");
  if (std::memcmp(magic.data(), "LASF", 4) != 0) {
    std::string shown;
    for (std::byte b : magic) {
      const auto c = static_cast<unsigned char>(b);
      shown += (c >= 32 && c < 127) ? fmt::format("{}", static_cast<char>(c))
                                    : fmt::format("\\x{:02x}", c);
    }
    throw InvalidInput(fmt::format(
        "'{}' is not a LAS/LAZ file: byte offset 0 holds \"{}\" instead of the signature \"LASF\"",
        file.path().string(), shown));
  }
}

}  // namespace

LasHeader read_las_header(const InputFile& file) {
  const std::string path = file.path().string();
  check_signature(file);
  std::array<std::byte, kHeaderBytes14> raw{};
  file.read_exact(0, std::span(raw).first(227), "LAS header");
  const std::byte* b = raw.data();

  LasHeader h;
  h.version_major = load_le<std::uint8_t>(b, 24);
  h.version_minor = load_le<std::uint8_t>(b, 25);
  if (h.version_major != 1 || h.version_minor > 4) {
    throw InvalidInput(fmt::format(
        "'{}': unsupported LAS version {}.{} (byte offset 24); simlod reads LAS 1.0 to 1.4", path,
        h.version_major, h.version_minor));
  }
  h.header_size = load_le<std::uint16_t>(b, 94);
  const std::uint16_t needed = min_header_size(h.version_minor);
  if (h.header_size < needed) {
    throw InvalidInput(fmt::format(
        "'{}': header size {} (byte offset 94) is too small for LAS {}.{}, which needs {} bytes",
        path, h.header_size, h.version_major, h.version_minor, needed));
  }
  if (needed > 227) {
    file.read_exact(227, std::span(raw).subspan(227, needed - 227), "LAS header");
  }
  h.generator = trimmed(b + 58, 32);
  h.offset_to_point_data = load_le<std::uint32_t>(b, 96);
  h.vlr_count = load_le<std::uint32_t>(b, 100);

  const auto format_byte = load_le<std::uint8_t>(b, 104);
  h.compressed = (format_byte & 0xC0u) != 0;
  h.point_format = format_byte & 0x3F;
  if (h.point_format > kLasMaxPointFormat) {
    throw InvalidInput(fmt::format(
        "'{}': unknown LAS point data format {} (byte offset 104); simlod reads formats 0 to 10",
        path, h.point_format));
  }
  h.record_length = load_le<std::uint16_t>(b, 105);
  const std::uint16_t min_length = kLasMinRecordLength[static_cast<std::size_t>(h.point_format)];
  if (h.record_length < min_length) {
    throw InvalidInput(fmt::format(
        "'{}': point data record length {} (byte offset 105) is smaller than the {} bytes that "
        "point format {} needs",
        path, h.record_length, min_length, h.point_format));
  }

  for (std::size_t axis = 0; axis < 3; ++axis) {
    h.scale[axis] = load_le<double>(b, 131 + 8 * axis);
    h.offset[axis] = load_le<double>(b, 155 + 8 * axis);
    h.bounds.max[axis] = load_le<double>(b, 179 + 16 * axis);
    h.bounds.min[axis] = load_le<double>(b, 187 + 16 * axis);
    if (!std::isfinite(h.scale[axis]) || h.scale[axis] == 0.0) {
      throw InvalidInput(
          fmt::format("'{}': {} scale factor {} (byte offset {}) must be a finite, non-zero number",
                      path, "xyz"[axis], h.scale[axis], 131 + 8 * axis));
    }
    if (!std::isfinite(h.offset[axis])) {
      throw InvalidInput(fmt::format("'{}': {} offset (byte offset {}) is not finite", path,
                                     "xyz"[axis], 155 + 8 * axis));
    }
    if (!std::isfinite(h.bounds.min[axis]) || !std::isfinite(h.bounds.max[axis])) {
      throw InvalidInput(fmt::format("'{}': {} bounds (byte offset {}) are not finite", path,
                                     "xyz"[axis], 179 + 16 * axis));
    }
  }

  // Point count: LAS 1.4 files carry a 64-bit count; writers of legacy-compatible 1.4 files
  // sometimes leave it 0 and fill only the 32-bit one.
  h.point_count = load_le<std::uint32_t>(b, 107);
  h.point_data_end = file.size();
  if (h.version_minor >= 4) {
    const auto count64 = load_le<std::uint64_t>(b, 247);
    if (count64 != 0) {
      h.point_count = count64;
      h.point_count_offset = 247;
    }
    const auto evlr_start = load_le<std::uint64_t>(b, 235);
    if (evlr_start > h.offset_to_point_data && evlr_start < h.point_data_end) {
      h.point_data_end = evlr_start;
    }
  }

  if (h.offset_to_point_data < h.header_size) {
    throw InvalidInput(
        fmt::format("'{}': offset to point data {} (byte offset 96) lies inside the {}-byte header",
                    path, h.offset_to_point_data, h.header_size));
  }
  if (h.offset_to_point_data > file.size()) {
    throw InvalidInput(fmt::format(
        "'{}': offset to point data {} (byte offset 96) is beyond the end of the file ({} bytes)",
        path, h.offset_to_point_data, file.size()));
  }
  // A file of no points is valid (PDAL writes them): readers give nothing, tools that need
  // points say so themselves.
  return h;
}

void check_las_point_data_size(const InputFile& file, const LasHeader& header) {
  const std::uint64_t available_bytes = header.point_data_end - header.offset_to_point_data;
  const std::uint64_t capacity = available_bytes / header.record_length;
  if (header.point_count > capacity) {
    throw InvalidInput(fmt::format(
        "'{}' is truncated: the header declares {} points (byte offset {}) but the point data "
        "from byte offset {} to {} holds only {} complete {}-byte records",
        file.path().string(), header.point_count, header.point_count_offset,
        header.offset_to_point_data, header.point_data_end, capacity, header.record_length));
  }
}

}  // namespace simlod::detail
