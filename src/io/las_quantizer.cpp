#include "io/las_quantizer.hpp"

#include <fmt/format.h>

#include <cmath>

#include "io/las_format.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {

LasQuantizer::LasQuantizer(const std::filesystem::path& path, const WriterOptions& options)
    : path_(path.string()), scale_(options.scale), origin_(options.origin) {
  if (options.las_point_format < 0 || options.las_point_format > kLasMaxPointFormat) {
    throw InvalidInput(fmt::format(
        "'{}': WriterOptions::las_point_format {} is not a LAS point format (0-10; write() takes "
        "0, 2, 6 or 7)",
        path_, options.las_point_format));
  }
  const std::uint16_t min_length =
      kLasMinRecordLength[static_cast<std::size_t>(options.las_point_format)];
  if (options.las_record_length != 0 && options.las_record_length < min_length) {
    throw InvalidInput(fmt::format(
        "'{}': WriterOptions::las_record_length {} is shorter than point format {}'s {} bytes",
        path_, options.las_record_length, options.las_point_format, min_length));
  }
  for (std::size_t a = 0; a < 3; ++a) {
    if (!std::isfinite(scale_[a]) || scale_[a] <= 0.0) {
      throw InvalidInput(fmt::format("'{}': WriterOptions::scale[{}] = {} must be finite and > 0",
                                     path_, a, scale_[a]));
    }
    if (!std::isfinite(origin_[a])) {
      throw InvalidInput(
          fmt::format("'{}': WriterOptions::origin[{}] = {} must be finite", path_, a, origin_[a]));
    }
    offset_[a] = options.las_offset ? (*options.las_offset)[a] : std::round(origin_[a]);
    if (!std::isfinite(offset_[a])) {
      throw InvalidInput(fmt::format("'{}': WriterOptions::las_offset[{}] = {} must be finite",
                                     path_, a, offset_[a]));
    }
    origin_minus_offset_[a] = origin_[a] - offset_[a];
  }
}

std::array<std::int32_t, 3> LasQuantizer::operator()(const Point& p, std::uint64_t index) const {
  const std::array<float, 3> c{p.x, p.y, p.z};
  std::array<std::int32_t, 3> q{};
  for (std::size_t a = 0; a < 3; ++a) {
    if (!std::isfinite(c[a])) {
      throw InvalidInput(fmt::format("'{}': point {} has a non-finite {} coordinate ({})", path_,
                                     index, "xyz"[a], c[a]));
    }
    const double steps =
        std::round((static_cast<double>(c[a]) + origin_minus_offset_[a]) / scale_[a]);
    if (steps < static_cast<double>(std::numeric_limits<std::int32_t>::min()) ||
        steps > static_cast<double>(std::numeric_limits<std::int32_t>::max())) {
      throw InvalidInput(fmt::format(
          "'{}': point {} has {} = {} (file coordinate {}), which does not fit a 32-bit LAS "
          "integer at scale {} and offset {}; use a coarser scale or an origin near the points",
          path_, index, "xyz"[a], c[a], static_cast<double>(c[a]) + origin_[a], scale_[a],
          offset_[a]));
    }
    q[a] = static_cast<std::int32_t>(steps);
  }
  return q;
}

Bounds IntBox::to_bounds(const std::array<double, 3>& scale,
                         const std::array<double, 3>& offset) const {
  Bounds b;
  if (empty) return b;
  for (std::size_t a = 0; a < 3; ++a) {
    b.min[a] = min[a] * scale[a] + offset[a];
    b.max[a] = max[a] * scale[a] + offset[a];
  }
  return b;
}

}  // namespace simlod::detail
