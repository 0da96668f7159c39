#include "common/las_summary.hpp"

#include <fmt/format.h>

#include <cstring>

#include "simlod/error.hpp"

namespace simlod::examples {
namespace {

template <class T>
T load(const std::byte* p, std::size_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof(T));
  return v;
}

Range& range(LasAttributeSummary& s, std::size_t& at, const char* name) {
  if (at == s.ranges.size()) s.ranges.emplace_back(name, Range{});
  return s.ranges[at++].second;
}

}  // namespace

std::string LasCrs::text() const {
  std::string s;
  if (epsg) s = fmt::format("EPSG:{}", *epsg);
  if (vertical_epsg) s += fmt::format("{}vertical EPSG:{}", s.empty() ? "" : " + ", *vertical_epsg);
  if (!citation.empty()) s += s.empty() ? citation : fmt::format(" ({})", citation);
  if (!wkt.empty()) s += fmt::format("{}WKT: {}", s.empty() ? "" : "; ", wkt);
  return s.empty() ? "none" : s;
}

LasCrs las_crs(const simlod::LasMetadata& metadata) {
  LasCrs crs;
  const simlod::LasVlr *keys = nullptr, *ascii = nullptr;
  for (const auto* list : {&metadata.vlrs, &metadata.evlrs}) {
    for (const simlod::LasVlr& v : *list) {
      if (v.user() != "LASF_Projection") continue;
      if (v.record_id == 34735) keys = &v;
      if (v.record_id == 34737) ascii = &v;
      if (v.record_id == 2112) {
        crs.wkt.assign(reinterpret_cast<const char*>(v.data.data()), v.data.size());
        crs.wkt = crs.wkt.substr(0, crs.wkt.find('\0'));
      }
    }
  }
  if (keys != nullptr) {
    // GeoKeyDirectoryTag: 4 uint16 of header (version, revision, minor, number of keys), then
    // 4 uint16 per key (id, tag location, count, value or offset).
    const std::size_t words = keys->data.size() / 2;
    const std::byte* d = keys->data.data();
    const std::size_t n = words >= 4 ? load<std::uint16_t>(d, 6) : 0;
    if (words < 4 || words < 4 + 4 * n) {
      throw simlod::InvalidInput(fmt::format(
          "the GeoKeyDirectoryTag VLR (LASF_Projection 34735) declares {} keys but holds {} bytes",
          n, keys->data.size()));
    }
    for (std::size_t k = 0; k < n; ++k) {
      const std::byte* e = d + 8 + 8 * k;
      const auto id = load<std::uint16_t>(e, 0), location = load<std::uint16_t>(e, 2),
                 count = load<std::uint16_t>(e, 4), value = load<std::uint16_t>(e, 6);
      if (location == 0 && (id == 3072 || (id == 2048 && !crs.epsg)) && value != 32767) {
        crs.epsg = value;  // 32767: user-defined
      }
      if (location == 0 && id == 4096 && value != 32767) crs.vertical_epsg = value;
      if (location == 34737 && ascii != nullptr && (id == 3073 || id == 2049 || id == 1026) &&
          std::size_t{value} + count <= ascii->data.size()) {
        std::string text(reinterpret_cast<const char*>(ascii->data.data()) + value, count);
        while (!text.empty() && (text.back() == '|' || text.back() == '\0')) text.pop_back();
        if (!text.empty()) crs.citation += (crs.citation.empty() ? "" : "; ") + text;
      }
    }
  }
  return crs;
}

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
