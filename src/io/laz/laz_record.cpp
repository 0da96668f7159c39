// Record layouts (byte offsets): every format starts with X, Y, Z (int32 at 0, 4, 8) and
// intensity (uint16 at 12).
//   formats 0-5:  14 return number (3 bits), number of returns (3), scan direction, edge of
//                 flight line; 15 classification (5 bits), synthetic, key-point, withheld;
//                 16 scan angle rank (int8); 17 user data; 18 point source id (uint16);
//                 GPS time (double) at 20 for 1, 3, 4, 5; RGB (3 x uint16) at 20 for 2, at 28
//                 for 3 and 5; wave packet (29 bytes) at 28 for 4, at 34 for 5.
//   formats 6-10: 14 return number (4 bits), number of returns (4); 15 classification flags
//                 (4 bits), scanner channel (2), scan direction, edge of flight line;
//                 16 classification; 17 user data; 18 scan angle (int16); 20 point source id;
//                 22 GPS time; RGB at 30 for 7, 8, 10; NIR (uint16) at 36 for 8, 10; wave
//                 packet at 30 for 9, at 38 for 10.
#include "io/laz/laz_record.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "io/las_format.hpp"

namespace simlod::detail {
namespace {

bool has_time(int f) { return f != 0 && f != 2; }
int wave_offset(int f) {
  switch (f) {
    case 4: return 28;
    case 5: return 34;
    case 9: return 30;
    case 10: return 38;
    default: return 0;
  }
}
int nir_offset(int f) { return f == 8 || f == 10 ? 36 : 0; }

}  // namespace

void laszip_to_record(const laszip_point_struct& p, int f, std::size_t length, std::byte* r) {
  std::memset(r, 0, length);
  store_le<std::int32_t>(r, 0, p.X);
  store_le<std::int32_t>(r, 4, p.Y);
  store_le<std::int32_t>(r, 8, p.Z);
  store_le<std::uint16_t>(r, 12, p.intensity);
  const auto bit = [](unsigned v, unsigned shift) { return static_cast<std::uint8_t>(v << shift); };
  if (f <= 5) {
    store_le<std::uint8_t>(r, 14,
                           bit(p.return_number, 0) | bit(p.number_of_returns, 3) |
                               bit(p.scan_direction_flag, 6) | bit(p.edge_of_flight_line, 7));
    store_le<std::uint8_t>(r, 15,
                           bit(p.classification, 0) | bit(p.synthetic_flag, 5) |
                               bit(p.keypoint_flag, 6) | bit(p.withheld_flag, 7));
    store_le<std::int8_t>(r, 16, p.scan_angle_rank);
    store_le<std::uint8_t>(r, 17, p.user_data);
    store_le<std::uint16_t>(r, 18, p.point_source_ID);
    if (has_time(f)) store_le<double>(r, 20, p.gps_time);
  } else {
    store_le<std::uint8_t>(r, 14,
                           bit(p.extended_return_number, 0) | bit(p.extended_number_of_returns, 4));
    store_le<std::uint8_t>(r, 15,
                           bit(p.extended_classification_flags, 0) |
                               bit(p.extended_scanner_channel, 4) | bit(p.scan_direction_flag, 6) |
                               bit(p.edge_of_flight_line, 7));
    store_le<std::uint8_t>(r, 16, p.extended_classification);
    store_le<std::uint8_t>(r, 17, p.user_data);
    store_le<std::int16_t>(r, 18, p.extended_scan_angle);
    store_le<std::uint16_t>(r, 20, p.point_source_ID);
    store_le<double>(r, 22, p.gps_time);
  }
  if (const std::size_t rgb = kLasRgbOffset[static_cast<std::size_t>(f)]; rgb != 0) {
    for (std::size_t c = 0; c < 3; ++c) store_le<std::uint16_t>(r, rgb + 2 * c, p.rgb[c]);
  }
  if (const int nir = nir_offset(f); nir != 0) store_le<std::uint16_t>(r, nir, p.rgb[3]);
  if (const int wave = wave_offset(f); wave != 0) std::memcpy(r + wave, p.wave_packet, 29);
  const std::size_t min = kLasMinRecordLength[static_cast<std::size_t>(f)];
  if (length > min && p.extra_bytes != nullptr) {
    std::memcpy(r + min, p.extra_bytes,
                std::min(length - min, static_cast<std::size_t>(std::max(p.num_extra_bytes, 0))));
  }
}

void record_to_laszip(const std::byte* r, int f, std::size_t length, laszip_point_struct& p) {
  p.X = load_le<std::int32_t>(r, 0);
  p.Y = load_le<std::int32_t>(r, 4);
  p.Z = load_le<std::int32_t>(r, 8);
  p.intensity = load_le<std::uint16_t>(r, 12);
  const auto b14 = load_le<std::uint8_t>(r, 14), b15 = load_le<std::uint8_t>(r, 15);
  p.scan_direction_flag = (b15 >> 6) & 1u;
  p.edge_of_flight_line = (b15 >> 7) & 1u;
  p.user_data = load_le<std::uint8_t>(r, 17);
  if (f <= 5) {
    p.return_number = b14 & 7u;
    p.number_of_returns = (b14 >> 3) & 7u;
    p.scan_direction_flag = (b14 >> 6) & 1u;
    p.edge_of_flight_line = (b14 >> 7) & 1u;
    p.classification = b15 & 31u;
    p.synthetic_flag = (b15 >> 5) & 1u;
    p.keypoint_flag = (b15 >> 6) & 1u;
    p.withheld_flag = (b15 >> 7) & 1u;
    p.scan_angle_rank = load_le<std::int8_t>(r, 16);
    p.point_source_ID = load_le<std::uint16_t>(r, 18);
    p.gps_time = has_time(f) ? load_le<double>(r, 20) : 0.0;
    p.extended_point_type = 0;
  } else {
    p.extended_return_number = b14 & 15u;
    p.extended_number_of_returns = (b14 >> 4) & 15u;
    p.extended_classification_flags = b15 & 15u;
    p.extended_scanner_channel = (b15 >> 4) & 3u;
    p.extended_classification = load_le<std::uint8_t>(r, 16);
    p.extended_scan_angle = load_le<std::int16_t>(r, 18);
    p.point_source_ID = load_le<std::uint16_t>(r, 20);
    p.gps_time = load_le<double>(r, 22);
    p.extended_point_type = 1;
    // The legacy fields as LAS 1.4 defines them for older readers.
    p.return_number = std::min<unsigned>(p.extended_return_number, 7u);
    p.number_of_returns = std::min<unsigned>(p.extended_number_of_returns, 7u);
    p.classification = p.extended_classification < 32 ? p.extended_classification : 0;
    p.synthetic_flag = b15 & 1u;
    p.keypoint_flag = (b15 >> 1) & 1u;
    p.withheld_flag = (b15 >> 2) & 1u;
    p.scan_angle_rank =
        static_cast<std::int8_t>(std::clamp(std::lround(p.extended_scan_angle * 0.006), -90L, 90L));
  }
  if (const std::size_t rgb = kLasRgbOffset[static_cast<std::size_t>(f)]; rgb != 0) {
    for (std::size_t c = 0; c < 3; ++c) p.rgb[c] = load_le<std::uint16_t>(r, rgb + 2 * c);
  }
  if (const int nir = nir_offset(f); nir != 0) p.rgb[3] = load_le<std::uint16_t>(r, nir);
  if (const int wave = wave_offset(f); wave != 0) std::memcpy(p.wave_packet, r + wave, 29);
  const std::size_t min = kLasMinRecordLength[static_cast<std::size_t>(f)];
  if (length > min && p.extra_bytes != nullptr) std::memcpy(p.extra_bytes, r + min, length - min);
}

}  // namespace simlod::detail
