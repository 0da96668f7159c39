// The arrays of PointAttributes in Attribute order, for code that treats every attribute alike
// (resizing, packing channel records).
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "simlod/attributes.hpp"

namespace simlod::detail {

/// fn(attribute, its array) for every attribute (PointAttributes& or const&).
template <class Attributes, class Fn>
void for_each_array(Attributes& a, Fn&& fn) {
  fn(Attribute::Intensity, a.intensity);
  fn(Attribute::ReturnNumber, a.return_number);
  fn(Attribute::NumberOfReturns, a.number_of_returns);
  fn(Attribute::Classification, a.classification);
  fn(Attribute::ClassificationFlags, a.classification_flags);
  fn(Attribute::ScannerChannel, a.scanner_channel);
  fn(Attribute::ScanFlags, a.scan_flags);
  fn(Attribute::ScanAngle, a.scan_angle);
  fn(Attribute::UserData, a.user_data);
  fn(Attribute::PointSourceId, a.point_source_id);
  fn(Attribute::GpsTime, a.gps_time);
  fn(Attribute::Nir, a.nir);
}

/// Copies values [0, n) of the arrays of `mask` in `from` to [at, at + n) of those in `to`,
/// growing them to at + n when shorter (the arrays of `from` hold at least n values).
inline void copy_attributes(const PointAttributes& from, std::size_t n, PointAttributes& to,
                            std::size_t at, AttributeMask mask) {
  for_each_array(to, [&](Attribute a, auto& dst) {
    if (!has_attribute(mask, a)) return;
    for_each_array(from, [&](Attribute b, const auto& src) {
      using Dst = std::decay_t<decltype(dst)>;
      if constexpr (std::is_same_v<Dst, std::decay_t<decltype(src)>>) {
        if (a != b) return;
        if (dst.size() < at + n) dst.resize(at + n);
        std::copy_n(src.begin(), n, dst.begin() + static_cast<std::ptrdiff_t>(at));
      }
    });
  });
}

}  // namespace simlod::detail
