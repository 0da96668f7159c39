// LASzip's point struct to and from LAS records (layouts: io/las_fields.hpp): the attribute
// fields go through LasFields, the optional parts (GPS time, RGB, NIR, wave packet, extra
// bytes) are copied where the format has them.
#include "io/laz/laz_record.hpp"

#include <algorithm>
#include <cstring>

#include "io/las_fields.hpp"

namespace simlod::detail {

void laszip_to_record(const laszip_point_struct& p, int f, std::size_t length, std::byte* r) {
  std::memset(r, 0, length);
  store_le<std::int32_t>(r, 0, p.X);
  store_le<std::int32_t>(r, 4, p.Y);
  store_le<std::int32_t>(r, 8, p.Z);
  LasFields x;
  x.intensity = p.intensity;
  x.user_data = p.user_data;
  x.source = p.point_source_ID;
  x.scan_direction = p.scan_direction_flag;
  x.edge = p.edge_of_flight_line;
  if (f <= 5) {
    x.ret = p.return_number;
    x.returns = p.number_of_returns;
    x.classification = p.classification;
    x.flags = p.synthetic_flag | (p.keypoint_flag << 1) | (p.withheld_flag << 2);
    x.scan_angle = static_cast<int>(std::lround(p.scan_angle_rank / 0.006));
  } else {
    x.ret = p.extended_return_number;
    x.returns = p.extended_number_of_returns;
    x.classification = p.extended_classification;
    x.flags = p.extended_classification_flags;
    x.channel = p.extended_scanner_channel;
    x.scan_angle = p.extended_scan_angle;
  }
  write_las_fields(r, f, x);
  if (las_has_time(f)) store_le<double>(r, las_time_offset(f), p.gps_time);
  if (const std::size_t rgb = kLasRgbOffset[static_cast<std::size_t>(f)]; rgb != 0) {
    for (std::size_t c = 0; c < 3; ++c) store_le<std::uint16_t>(r, rgb + 2 * c, p.rgb[c]);
  }
  if (const std::size_t nir = las_nir_offset(f); nir != 0)
    store_le<std::uint16_t>(r, nir, p.rgb[3]);
  if (const std::size_t wave = las_wave_offset(f); wave != 0)
    std::memcpy(r + wave, p.wave_packet, 29);
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
  const LasFields x = read_las_fields(r, f);
  p.intensity = x.intensity;
  p.user_data = static_cast<laszip_U8>(x.user_data);
  p.point_source_ID = static_cast<laszip_U16>(x.source);
  p.scan_direction_flag = x.scan_direction & 1u;
  p.edge_of_flight_line = x.edge & 1u;
  // The legacy fields, and for formats 6-10 the extended ones beside them (LAS 1.4's
  // compatible values for older readers).
  p.return_number = std::min(x.ret, 7u);
  p.number_of_returns = std::min(x.returns, 7u);
  p.classification = x.classification < 32 ? x.classification : 0;
  p.synthetic_flag = x.flags & 1u;
  p.keypoint_flag = (x.flags >> 1) & 1u;
  p.withheld_flag = (x.flags >> 2) & 1u;
  p.scan_angle_rank = x.scan_angle_rank();
  p.extended_point_type = f > 5 ? 1 : 0;
  if (f > 5) {
    p.extended_return_number = x.ret & 15u;
    p.extended_number_of_returns = x.returns & 15u;
    p.extended_classification_flags = x.flags & 15u;
    p.extended_scanner_channel = x.channel & 3u;
    p.extended_classification = static_cast<laszip_U8>(x.classification);
    p.extended_scan_angle = static_cast<laszip_I16>(x.scan_angle);
  }
  p.gps_time = las_has_time(f) ? load_le<double>(r, las_time_offset(f)) : 0.0;
  if (const std::size_t rgb = kLasRgbOffset[static_cast<std::size_t>(f)]; rgb != 0) {
    for (std::size_t c = 0; c < 3; ++c) p.rgb[c] = load_le<std::uint16_t>(r, rgb + 2 * c);
  }
  if (const std::size_t nir = las_nir_offset(f); nir != 0)
    p.rgb[3] = load_le<std::uint16_t>(r, nir);
  if (const std::size_t wave = las_wave_offset(f); wave != 0)
    std::memcpy(p.wave_packet, r + wave, 29);
  const std::size_t min = kLasMinRecordLength[static_cast<std::size_t>(f)];
  if (length > min && p.extra_bytes != nullptr) std::memcpy(p.extra_bytes, r + min, length - min);
}

}  // namespace simlod::detail
