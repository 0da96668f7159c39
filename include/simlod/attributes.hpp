// Per-point attributes beside the 16-byte points: what a LAS/LAZ record or a PLY vertex holds
// besides x, y, z and colour. A reader asked for them (ReaderOptions::attributes) returns them
// as parallel arrays (structure of arrays) of each batch; a reader not asked pays nothing.
//
// Values are those of LAS 1.4 (R15): return numbers and classes of formats 0-5 are their
// 3- and 5-bit fields, the scan angle is in degrees whatever the format stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simlod {

enum class Attribute : std::uint32_t {
  Intensity,            ///< uint16
  ReturnNumber,         ///< uint8, 1-15 (0 where the file has none set)
  NumberOfReturns,      ///< uint8, 0-15
  Classification,       ///< uint8, the ASPRS class (formats 0-5: 0-31)
  ClassificationFlags,  ///< uint8: bit 0 synthetic, 1 key-point, 2 withheld, 3 overlap
  ScannerChannel,       ///< uint8, 0-3 (formats 6-10)
  ScanFlags,            ///< uint8: bit 0 scan direction, bit 1 edge of flight line
  ScanAngle,            ///< float, degrees (formats 6-10: 0.006-degree steps)
  UserData,             ///< uint8
  PointSourceId,        ///< uint16
  GpsTime,              ///< double
  Nir,                  ///< uint16, near infrared (formats 8, 10)
};
inline constexpr std::size_t kAttributeCount = 12;

/// A set of attributes: bit attribute_bit(a) for each.
using AttributeMask = std::uint32_t;
[[nodiscard]] constexpr AttributeMask attribute_bit(Attribute a) {
  return AttributeMask{1} << static_cast<std::uint32_t>(a);
}
[[nodiscard]] constexpr bool has_attribute(AttributeMask mask, Attribute a) {
  return (mask & attribute_bit(a)) != 0;
}
/// Every attribute of the enum.
inline constexpr AttributeMask kAllAttributes = (AttributeMask{1} << kAttributeCount) - 1;

/// "intensity", "return_number", "number_of_returns", "classification",
/// "classification_flags", "scanner_channel", "scan_flags", "scan_angle", "user_data",
/// "point_source_id", "gps_time", "nir".
[[nodiscard]] const char* to_string(Attribute a);
/// The attribute named `name` (to_string's names, any case); throws InvalidInput listing the
/// names.
[[nodiscard]] Attribute attribute_from_string(std::string_view name);
/// "intensity, classification" for a mask ("" for none).
[[nodiscard]] std::string attribute_names(AttributeMask mask);

/// Attributes of one batch, one array per attribute, element i beside point i. Arrays of
/// attributes that were not asked for are empty.
struct PointAttributes {
  std::vector<std::uint16_t> intensity;
  std::vector<std::uint8_t> return_number;
  std::vector<std::uint8_t> number_of_returns;
  std::vector<std::uint8_t> classification;
  std::vector<std::uint8_t> classification_flags;
  std::vector<std::uint8_t> scanner_channel;
  std::vector<std::uint8_t> scan_flags;
  std::vector<float> scan_angle;
  std::vector<std::uint8_t> user_data;
  std::vector<std::uint16_t> point_source_id;
  std::vector<double> gps_time;
  std::vector<std::uint16_t> nir;

  /// An attribute without a fixed meaning: a field of LAS extra bytes (described by the
  /// file's extra-bytes VLR, scale and offset applied) or another scalar property of a PLY
  /// vertex (e.g. nx, confidence), as double.
  struct Extra {
    std::string name;
    std::vector<double> values;
  };
  std::vector<Extra> extra;

  /// Resizes the arrays of `mask` to n elements and empties the others (values left as they
  /// were or zero); the extra attributes keep their names and get n values.
  void resize(AttributeMask mask, std::size_t n);
  /// Copies values [0, n) of `from`'s arrays of `mask` to [at, at + n) of these, growing an
  /// array shorter than at + n (values between its end and `at` are zero); `from`'s extra
  /// attributes likewise, by name (an extra attribute it has and these lack is added).
  /// Gathering the attributes of several reads into one batch: `all.copy_from(part, n,
  /// all_points, mask)`. Arrays of `mask` that are empty in `from` (not read) are skipped;
  /// one that holds values but fewer than n (or such an extra attribute) is InvalidInput,
  /// naming it, and nothing is copied.
  void copy_from(const PointAttributes& from, std::size_t n, std::size_t at, AttributeMask mask);
  /// Elements in the array of `a` (0: not asked for).
  [[nodiscard]] std::size_t size_of(Attribute a) const;
  /// The attributes whose arrays are not empty.
  [[nodiscard]] AttributeMask present() const;
  /// The extra attribute named `name`, or nullptr.
  [[nodiscard]] const Extra* find_extra(std::string_view name) const;
};

}  // namespace simlod
