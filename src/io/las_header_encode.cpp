// Field offsets are those documented at the top of las_header.cpp.
#include "io/las_header_encode.hpp"

#include <chrono>
#include <cstring>

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

std::vector<std::byte> encode_las_header(const LasHeaderFields& f) {
  const bool las14 = f.point_format > 5;
  const std::uint16_t size = las_header_size(f.point_format);
  std::vector<std::byte> h(size, std::byte{0});
  std::byte* b = h.data();
  std::memcpy(b, "LASF", 4);
  // Global encoding bit 4 (WKT) is required for point formats 6-10 (LAS 1.4 R15).
  store_le<std::uint16_t>(b, 6, las14 ? 0x10 : 0);
  store_le<std::uint8_t>(b, 24, 1);
  store_le<std::uint8_t>(b, 25, las14 ? 4 : 2);
  std::memcpy(b + 58, kGeneratingSoftware, sizeof(kGeneratingSoftware) - 1);
  const auto [day, year] = creation_date();
  store_le<std::uint16_t>(b, 90, day);
  store_le<std::uint16_t>(b, 92, year);
  store_le<std::uint16_t>(b, 94, size);
  store_le<std::uint32_t>(b, 96, size);
  store_le<std::uint32_t>(b, 100, 0);
  store_le<std::uint8_t>(b, 104, static_cast<std::uint8_t>(f.point_format));
  store_le<std::uint16_t>(b, 105, las_record_length(f.point_format));
  // Every written point is return 1 of 1. Legacy counters stay 0 for formats 6-10 (LAS 1.4).
  if (!las14) {
    store_le<std::uint32_t>(b, 107, static_cast<std::uint32_t>(f.point_count));
    store_le<std::uint32_t>(b, 111, static_cast<std::uint32_t>(f.point_count));
  }
  for (std::size_t axis = 0; axis < 3; ++axis) {
    store_le<double>(b, 131 + 8 * axis, f.scale[axis]);
    store_le<double>(b, 155 + 8 * axis, f.offset[axis]);
    store_le<double>(b, 179 + 16 * axis, f.bounds.empty() ? 0.0 : f.bounds.max[axis]);
    store_le<double>(b, 187 + 16 * axis, f.bounds.empty() ? 0.0 : f.bounds.min[axis]);
  }
  if (las14) {
    store_le<std::uint64_t>(b, 247, f.point_count);
    store_le<std::uint64_t>(b, 255, f.point_count);
  }
  return h;
}

std::vector<ByteRange> las_patched_ranges(int point_format) {
  std::vector<ByteRange> ranges{{90, 94}, {107, 131}, {179, 227}};
  if (point_format > 5) ranges.push_back({247, 375});
  return ranges;
}

}  // namespace simlod::detail
