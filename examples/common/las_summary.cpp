// simlod-info's counts and ranges over a LAS file's point records (the CRS is in las_crs.cpp).
#include "common/las_summary.hpp"

#include <cstring>

#include "common/byte_load.hpp"

namespace simlod::examples {
namespace {

Range& range(LasAttributeSummary& s, std::size_t& at, const char* name) {
  if (at == s.ranges.size()) s.ranges.emplace_back(name, Range{});
  return s.ranges[at++].second;
}

}  // namespace

void LasAttributeSummary::add(std::span<const std::byte> records, std::size_t count, int f,
                              std::size_t length) {
  const bool time = f != 0 && f != 2;
  const std::size_t rgb = f == 2                          ? 20
                          : (f == 3 || f == 5)            ? 28
                          : (f == 7 || f == 8 || f == 10) ? 30
                                                          : 0;
  const bool nir = f == 8 || f == 10;
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* r = records.data() + i * length;
    const auto b14 = load<std::uint8_t>(r, 14), b15 = load<std::uint8_t>(r, 15);
    std::size_t at = 0;
    range(*this, at, "intensity").add(load<std::uint16_t>(r, 12));
    if (f <= 5) {
      returns[b14 & 7u] += 1;
      classes[b15 & 31u] += 1;
      synthetic += (b15 >> 5) & 1u;
      keypoint += (b15 >> 6) & 1u;
      withheld += (b15 >> 7) & 1u;
      range(*this, at, "scan_angle").add(load<std::int8_t>(r, 16));
      range(*this, at, "user_data").add(load<std::uint8_t>(r, 17));
      range(*this, at, "point_source_id").add(load<std::uint16_t>(r, 18));
      if (time) range(*this, at, "gps_time").add(load<double>(r, 20));
    } else {
      returns[b14 & 15u] += 1;
      classes[load<std::uint8_t>(r, 16)] += 1;
      synthetic += b15 & 1u;
      keypoint += (b15 >> 1) & 1u;
      withheld += (b15 >> 2) & 1u;
      overlap += (b15 >> 3) & 1u;
      range(*this, at, "scan_angle").add(load<std::int16_t>(r, 18) * 0.006);
      range(*this, at, "user_data").add(load<std::uint8_t>(r, 17));
      range(*this, at, "point_source_id").add(load<std::uint16_t>(r, 20));
      range(*this, at, "gps_time").add(load<double>(r, 22));
    }
    if (rgb != 0) {
      range(*this, at, "red").add(load<std::uint16_t>(r, rgb));
      range(*this, at, "green").add(load<std::uint16_t>(r, rgb + 2));
      range(*this, at, "blue").add(load<std::uint16_t>(r, rgb + 4));
    }
    if (nir) range(*this, at, "nir").add(load<std::uint16_t>(r, 36));
  }
}

const char* asprs_class_name(unsigned c) {
  static constexpr const char* kNames[] = {"never classified",
                                           "unclassified",
                                           "ground",
                                           "low vegetation",
                                           "medium vegetation",
                                           "high vegetation",
                                           "building",
                                           "low point (noise)",
                                           "reserved (model key-point)",
                                           "water",
                                           "rail",
                                           "road surface",
                                           "reserved (overlap)",
                                           "wire - guard (shield)",
                                           "wire - conductor (phase)",
                                           "transmission tower",
                                           "wire-structure connector (insulator)",
                                           "bridge deck",
                                           "high noise"};
  return c < std::size(kNames) ? kNames[c] : "";
}

}  // namespace simlod::examples
