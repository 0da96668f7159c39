// The arrays of PointAttributes in Attribute order, for code that treats every attribute alike
// (resizing, packing channel records).
#pragma once

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

}  // namespace simlod::detail
