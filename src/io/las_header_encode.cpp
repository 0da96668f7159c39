// Field offsets are those documented at the top of las_header.cpp.
#include "io/las_header_encode.hpp"

#include <chrono>
#include <cstring>
#include <limits>

#include "io/las_format.hpp"

namespace simlod::detail {
namespace {

constexpr char kGeneratingSoftware[] = "simlod";

/// Day of the year (1-366) and year of today (UTC), for the creation date fields.
std::pair<std::uint16_t, std::uint16_t> creation_date() {
  using namespace std::chrono;
  const auto today = floor<days>(system_clock::now());
  const year_month_day ymd{today};
  const auto jan1 = sys_days{ymd.year() / January / 1};
  return {static_cast<std::uint16_t>((today - jan1).count() + 1),
          static_cast<std::uint16_t>(static_cast<int>(ymd.year()))};
}

}  // namespace

std::uint8_t las_version_minor(const LasHeaderFields& f) {
  const bool needs14 = f.point_format > 5 || f.evlr_count > 0;
  if (f.metadata == nullptr) return needs14 ? 4 : 2;
  return needs14 ? std::max<std::uint8_t>(f.metadata->version_minor, 4) : f.metadata->version_minor;
}

std::uint16_t las_record_length(int point_format) {
  return kLasMinRecordLength[static_cast<std::size_t>(point_format)];
}

std::vector<std::byte> encode_las_header(const LasHeaderFields& f) {
  const std::uint8_t minor = las_version_minor(f);
  const std::uint16_t size = las_header_size_of_version(minor);
  std::vector<std::byte> h(size, std::byte{0});
  std::byte* b = h.data();
  std::memcpy(b, "LASF", 4);
  store_le<std::uint8_t>(b, 24, 1);
  store_le<std::uint8_t>(b, 25, minor);
  if (const LasMetadata* m = f.metadata) {
    store_le<std::uint16_t>(b, 4, m->file_source_id);
    store_le<std::uint16_t>(b, 6, m->global_encoding);  // as the data set says, WKT bit too
    std::memcpy(b + 8, m->project_guid.data(), 16);
    std::memcpy(b + 26, m->system_identifier.data(), 32);
    std::memcpy(b + 58, m->generating_software.data(), 32);
    store_le<std::uint16_t>(b, 90, m->creation_day);
    store_le<std::uint16_t>(b, 92, m->creation_year);
  } else {
    store_le<std::uint16_t>(b, 6, f.point_format > 5 ? 0x10 : 0);
    std::memcpy(b + 58, kGeneratingSoftware, sizeof(kGeneratingSoftware) - 1);
    const auto [day, year] = creation_date();
    store_le<std::uint16_t>(b, 90, day);
    store_le<std::uint16_t>(b, 92, year);
  }
  store_le<std::uint16_t>(b, 94, size);
  store_le<std::uint32_t>(b, 96, static_cast<std::uint32_t>(size + f.vlr_bytes));
  store_le<std::uint32_t>(b, 100, f.vlr_count);
  store_le<std::uint8_t>(b, 104, static_cast<std::uint8_t>(f.point_format));
  store_le<std::uint16_t>(
      b, 105, f.record_length != 0 ? f.record_length : las_record_length(f.point_format));
  // Legacy counters: formats 0-5 with a count that fits; 0 for formats 6-10 (LAS 1.4 R15).
  if (f.point_format <= 5 && f.point_count <= std::numeric_limits<std::uint32_t>::max()) {
    store_le<std::uint32_t>(b, 107, static_cast<std::uint32_t>(f.point_count));
    for (std::size_t r = 0; r < 5; ++r) {
      store_le<std::uint32_t>(b, 111 + 4 * r, static_cast<std::uint32_t>(f.by_return[r]));
    }
  }
  for (std::size_t axis = 0; axis < 3; ++axis) {
    store_le<double>(b, 131 + 8 * axis, f.scale[axis]);
    store_le<double>(b, 155 + 8 * axis, f.offset[axis]);
    store_le<double>(b, 179 + 16 * axis, f.bounds.empty() ? 0.0 : f.bounds.max[axis]);
    store_le<double>(b, 187 + 16 * axis, f.bounds.empty() ? 0.0 : f.bounds.min[axis]);
  }
  if (minor >= 3) store_le<std::uint64_t>(b, 227, f.waveform_start);
  if (minor >= 4) {
    store_le<std::uint64_t>(b, 235, f.evlr_start);
    store_le<std::uint32_t>(b, 243, f.evlr_count);
    store_le<std::uint64_t>(b, 247, f.point_count);
    for (std::size_t r = 0; r < 15; ++r) store_le<std::uint64_t>(b, 255 + 8 * r, f.by_return[r]);
  }
  return h;
}

std::vector<ByteRange> las_patched_ranges(std::uint8_t version_minor) {
  std::vector<ByteRange> ranges{{90, 94}, {107, 131}, {179, 227}};
  if (version_minor >= 3) ranges.push_back({227, 235});
  if (version_minor >= 4) ranges.push_back({235, 375});
  return ranges;
}

}  // namespace simlod::detail
