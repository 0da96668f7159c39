// The attribute fields of a LAS point record (LAS 1.4 R15 tables 7-17), decoded into LAS 1.4
// ranges, and where the optional parts of each point format lie. Shared by the LAZ record
// encoding (io/laz/laz_record.cpp) and transcode_las_records (io/las_transcode.cpp).
//   formats 0-5:  14 return number (3 bits), number of returns (3), scan direction, edge of
//                 flight line; 15 classification (5 bits), synthetic, key-point, withheld;
//                 16 scan angle rank (int8, degrees); 17 user data; 18 point source id.
//   formats 6-10: 14 return number (4 bits), number of returns (4); 15 classification flags
//                 (synthetic, key-point, withheld, overlap), scanner channel (2 bits), scan
//                 direction, edge of flight line; 16 classification; 17 user data; 18 scan
//                 angle (int16, 0.006 degrees); 20 point source id.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "io/las_format.hpp"

namespace simlod::detail {

[[nodiscard]] inline bool las_has_time(int f) { return f != 0 && f != 2; }
/// Byte offset of the GPS time (formats that have one).
[[nodiscard]] inline std::size_t las_time_offset(int f) { return f > 5 ? 22 : 20; }
/// Byte offset of NIR; 0 where the format has none.
[[nodiscard]] inline std::size_t las_nir_offset(int f) { return f == 8 || f == 10 ? 36 : 0; }
/// Byte offset of the 29-byte wave packet descriptor; 0 where the format has none.
[[nodiscard]] inline std::size_t las_wave_offset(int f) {
  switch (f) {
    case 4: return 28;
    case 5: return 34;
    case 9: return 30;
    case 10: return 38;
    default: return 0;
  }
}

struct LasFields {
  std::uint16_t intensity = 0;
  unsigned ret = 0, returns = 0;  ///< 4 bits each (formats 0-5: 3)
  unsigned flags = 0;             ///< synthetic, key-point, withheld, overlap (formats 0-5: 3)
  unsigned channel = 0, scan_direction = 0, edge = 0;
  unsigned classification = 0;  ///< 8 bits (formats 0-5: 5)
  int scan_angle = 0;           ///< 0.006-degree steps (formats 0-5: whole degrees)
  unsigned user_data = 0, source = 0;

  /// The legacy (formats 0-5) scan angle rank: whole degrees, within an int8 (a legacy value
  /// outside the specified [-90, 90] stays as it was).
  [[nodiscard]] std::int8_t scan_angle_rank() const {
    return static_cast<std::int8_t>(std::clamp(std::lround(scan_angle * 0.006), -128L, 127L));
  }
};

[[nodiscard]] inline LasFields read_las_fields(const std::byte* r, int f) {
  LasFields x;
  x.intensity = load_le<std::uint16_t>(r, 12);
  const auto b14 = load_le<std::uint8_t>(r, 14), b15 = load_le<std::uint8_t>(r, 15);
  x.user_data = load_le<std::uint8_t>(r, 17);
  if (f <= 5) {
    x.ret = b14 & 7u;
    x.returns = (b14 >> 3) & 7u;
    x.scan_direction = (b14 >> 6) & 1u;
    x.edge = (b14 >> 7) & 1u;
    x.classification = b15 & 31u;
    x.flags = (b15 >> 5) & 7u;
    x.scan_angle = static_cast<int>(std::lround(load_le<std::int8_t>(r, 16) / 0.006));
    x.source = load_le<std::uint16_t>(r, 18);
  } else {
    x.ret = b14 & 15u;
    x.returns = (b14 >> 4) & 15u;
    x.flags = b15 & 15u;
    x.channel = (b15 >> 4) & 3u;
    x.scan_direction = (b15 >> 6) & 1u;
    x.edge = (b15 >> 7) & 1u;
    x.classification = load_le<std::uint8_t>(r, 16);
    x.scan_angle = load_le<std::int16_t>(r, 18);
    x.source = load_le<std::uint16_t>(r, 20);
  }
  return x;
}

/// Writes the fields into a record of format f; values beyond the legacy fields' bits
/// (formats 0-5) are cut to them: the caller checks what fits first.
inline void write_las_fields(std::byte* r, int f, const LasFields& x) {
  store_le<std::uint16_t>(r, 12, x.intensity);
  store_le<std::uint8_t>(r, 17, static_cast<std::uint8_t>(x.user_data));
  if (f <= 5) {
    store_le<std::uint8_t>(r, 14,
                           static_cast<std::uint8_t>((x.ret & 7u) | ((x.returns & 7u) << 3) |
                                                     (x.scan_direction << 6) | (x.edge << 7)));
    store_le<std::uint8_t>(
        r, 15, static_cast<std::uint8_t>((x.classification & 31u) | ((x.flags & 7u) << 5)));
    store_le<std::int8_t>(r, 16, x.scan_angle_rank());
    store_le<std::uint16_t>(r, 18, static_cast<std::uint16_t>(x.source));
  } else {
    store_le<std::uint8_t>(r, 14,
                           static_cast<std::uint8_t>((x.ret & 15u) | ((x.returns & 15u) << 4)));
    store_le<std::uint8_t>(r, 15,
                           static_cast<std::uint8_t>((x.flags & 15u) | ((x.channel & 3u) << 4) |
                                                     (x.scan_direction << 6) | (x.edge << 7)));
    store_le<std::uint8_t>(r, 16, static_cast<std::uint8_t>(x.classification));
    store_le<std::int16_t>(r, 18, static_cast<std::int16_t>(x.scan_angle));
    store_le<std::uint16_t>(r, 20, static_cast<std::uint16_t>(x.source));
  }
}

}  // namespace simlod::detail
