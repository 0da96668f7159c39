// transcode_las_records: LAS records from one point format (and scale) to another. Field
// offsets as in io/laz/laz_record.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "io/las_fields.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace simlod {
namespace {

using detail::kLasMinRecordLength;
using detail::kLasRgbOffset;
using detail::las_has_time;
using detail::las_nir_offset;
using detail::las_time_offset;
using detail::las_wave_offset;
using detail::load_le;
using detail::store_le;

/// Writes the fields into format f's record, counting in `loss` what its bits cannot hold.
void write_fields(std::byte* r, int f, detail::LasFields x, LasTranscodeLoss& loss) {
  if (f <= 5) {
    if (x.ret > 7 || x.returns > 7) loss.points["return numbers above 7"] += 1;
    x.ret = std::min(x.ret, 7u);
    x.returns = std::min(x.returns, 7u);
    if (x.classification > 31) {
      loss.points["classification above 31"] += 1;
      x.classification = 0;
    }
    if ((x.flags & 8u) != 0) loss.points["overlap flag"] += 1;
    if (x.channel != 0) loss.points["scanner channel"] += 1;
  }
  detail::write_las_fields(r, f, x);
}

bool any_nonzero(const std::byte* p, std::size_t n) {
  return std::any_of(p, p + n, [](std::byte b) { return b != std::byte{0}; });
}

}  // namespace

std::string LasTranscodeLoss::text() const {
  std::string s;
  for (const auto& [what, n] : points) {
    s += fmt::format("{}{}: {} points", s.empty() ? "" : ", ", what, n);
  }
  for (const auto& what : zeroed) {
    s += fmt::format("{}{} (absent in the input) written as 0", s.empty() ? "" : ", ", what);
  }
  return s;
}

void transcode_las_records(std::span<const std::byte> in, std::size_t count, int from,
                           std::size_t from_length, const std::array<double, 3>& from_scale,
                           const std::array<double, 3>& from_offset, std::span<std::byte> out,
                           int to, std::size_t to_length, const std::array<double, 3>& scale,
                           const std::array<double, 3>& offset, std::uint64_t first_index,
                           LasTranscodeLoss& loss) {
  const int formats[2] = {from, to};
  for (const int f : formats) (void)las_min_record_length(f);  // InvalidInput outside 0-10
  const std::size_t from_min = kLasMinRecordLength[static_cast<std::size_t>(from)],
                    to_min = kLasMinRecordLength[static_cast<std::size_t>(to)];
  if (from_length < from_min || to_length < to_min || in.size() < count * from_length ||
      out.size() < count * to_length) {
    throw InvalidInput(fmt::format(
        "transcode_las_records: {} records of {} bytes (format {}) into {} bytes (format {}) do "
        "not fit the spans of {} and {} bytes",
        count, from_length, from, to_length, to, in.size(), out.size()));
  }
  const bool requantise = scale != from_scale || offset != from_offset;
  const std::size_t extra = std::min(from_length - from_min, to_length - to_min);
  const std::size_t from_rgb = kLasRgbOffset[static_cast<std::size_t>(from)],
                    to_rgb = kLasRgbOffset[static_cast<std::size_t>(to)];
  if (count > 0) {
    if (to_rgb != 0 && from_rgb == 0 && !std::count(loss.zeroed.begin(), loss.zeroed.end(), "RGB"))
      loss.zeroed.push_back("RGB");
    if (las_nir_offset(to) != 0 && las_nir_offset(from) == 0 &&
        !std::count(loss.zeroed.begin(), loss.zeroed.end(), "NIR"))
      loss.zeroed.push_back("NIR");
    if (las_has_time(to) && !las_has_time(from) &&
        !std::count(loss.zeroed.begin(), loss.zeroed.end(), "GPS time"))
      loss.zeroed.push_back("GPS time");
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* r = in.data() + i * from_length;
    std::byte* w = out.data() + i * to_length;
    std::memset(w, 0, to_length);
    bool rounded = false;
    for (std::size_t a = 0; a < 3; ++a) {
      auto q = load_le<std::int32_t>(r, 4 * a);
      if (requantise) {
        const double x = q * from_scale[a] + from_offset[a];
        const double steps = std::round((x - offset[a]) / scale[a]);
        if (!(steps >= std::numeric_limits<std::int32_t>::min() &&
              steps <= std::numeric_limits<std::int32_t>::max())) {
          throw InvalidInput(fmt::format(
              "point {} has {} = {}, which does not fit a 32-bit LAS integer at scale {} and "
              "offset {}",
              first_index + i, "xyz"[a], x, scale[a], offset[a]));
        }
        // Rounded when the new integer no longer gives the old one back.
        rounded |= std::round((steps * scale[a] + offset[a] - from_offset[a]) / from_scale[a]) != q;
        q = static_cast<std::int32_t>(steps);
      }
      store_le<std::int32_t>(w, 4 * a, q);
    }
    if (rounded) loss.points["coordinates rounded to the new scale"] += 1;
    write_fields(w, to, detail::read_las_fields(r, from), loss);
    if (las_has_time(from) && las_has_time(to)) {
      std::memcpy(w + las_time_offset(to), r + las_time_offset(from), 8);
    } else if (las_has_time(from) && any_nonzero(r + las_time_offset(from), 8)) {
      loss.points["GPS time"] += 1;
    }
    if (from_rgb != 0 && to_rgb != 0) {
      std::memcpy(w + to_rgb, r + from_rgb, 6);
    } else if (from_rgb != 0 && any_nonzero(r + from_rgb, 6)) {
      loss.points["RGB"] += 1;
    }
    if (las_nir_offset(from) != 0 && las_nir_offset(to) != 0) {
      std::memcpy(w + las_nir_offset(to), r + las_nir_offset(from), 2);
    } else if (las_nir_offset(from) != 0 && any_nonzero(r + las_nir_offset(from), 2)) {
      loss.points["NIR"] += 1;
    }
    if (las_wave_offset(from) != 0 && las_wave_offset(to) != 0) {
      std::memcpy(w + las_wave_offset(to), r + las_wave_offset(from), 29);
    } else if (las_wave_offset(from) != 0 && any_nonzero(r + las_wave_offset(from), 29)) {
      loss.points["wave packets"] += 1;
    }
    std::memcpy(w + to_min, r + from_min, extra);
    if (from_length - from_min > extra &&
        any_nonzero(r + from_min + extra, from_length - from_min - extra)) {
      loss.points["extra bytes"] += 1;
    }
  }
}

}  // namespace simlod
