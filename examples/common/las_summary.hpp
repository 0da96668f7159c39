// What simlod-info reports of a LAS/LAZ file beyond its header: the coordinate reference
// system from its VLRs (GeoKeys or WKT), and one pass over its point records for the counts
// per return number and per classification and the range of every attribute of its format.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "simlod/io.hpp"

namespace simlod::examples {

/// The coordinate reference system a LAS file's VLRs name.
struct LasCrs {
  std::optional<std::uint32_t> epsg;  ///< ProjectedCSTypeGeoKey, else GeographicTypeGeoKey
  std::optional<std::uint32_t> geographic_epsg;  ///< GeographicTypeGeoKey (2048), also under epsg
  std::optional<std::uint32_t> vertical_epsg;    ///< VerticalCSTypeGeoKey
  /// GTModelTypeGeoKey (1024): 1 projected, 2 geographic, 3 geocentric.
  std::optional<std::uint16_t> model_type;
  /// ProjLinearUnitsGeoKey (3076) and VerticalUnitsGeoKey (4099): EPSG unit codes (9001 metre,
  /// 9002 foot, 9003 US survey foot).
  std::optional<std::uint16_t> linear_units, vertical_units;
  std::string citation;  ///< GeoAsciiParamsTag text (PCS / GCS citations), '|' separators
  std::string wkt;       ///< OGC WKT (record 2112), empty without one
  [[nodiscard]] bool empty() const {
    return !epsg && !vertical_epsg && citation.empty() && wkt.empty();
  }
  /// One line: "EPSG:32610 (citation)", "WKT: ...", or "none".
  [[nodiscard]] std::string text() const;

  // The WKT, where the file has one that parses, decides the answers below (LAS 1.4 makes it
  // the authority over GeoKeys); otherwise the GeoKeys do.

  /// True for a geographic CRS (x, y in degrees): a WKT whose horizontal CRS is GEOGCS /
  /// GEOGCRS, else GTModelTypeGeoKey 2, else a geographic EPSG code without a projected one.
  [[nodiscard]] bool geographic() const;
  /// Metres per horizontal coordinate unit: the linear UNIT of the WKT's projected CRS, else
  /// ProjLinearUnitsGeoKey (1 metre, 0.3048 foot, 1200/3937 US survey foot); 1 when neither
  /// names a unit, the unit is unknown or the CRS is geographic.
  [[nodiscard]] double metres_per_unit() const;
  /// Metres per height unit: the unit of the WKT's vertical CRS, else VerticalUnitsGeoKey;
  /// without either, metres_per_unit() (heights in the horizontal unit, as LAS files in feet
  /// have them).
  [[nodiscard]] double vertical_metres_per_unit() const;
  /// The units in words, "" when nothing names one: "metre", "US survey foot (vertical: metre)",
  /// "degree", "EPSG unit 9999".
  [[nodiscard]] std::string units_text() const;
};

/// The CRS from the GeoKeyDirectoryTag (34735), GeoAsciiParamsTag (34737) and WKT (2112)
/// records among `vlrs` and `evlrs`. Throws InvalidInput naming the record when a GeoKey
/// directory lies about its size.
[[nodiscard]] LasCrs las_crs(const simlod::LasMetadata& metadata);

/// Minimum and maximum of one attribute over the points.
struct Range {
  double min = 0.0, max = 0.0;
  bool any = false;
  void add(double v) {
    if (!any || v < min) min = v;
    if (!any || v > max) max = v;
    any = true;
  }
};

/// Counts and ranges over the records of one point format.
struct LasAttributeSummary {
  std::map<unsigned, std::uint64_t> returns;  ///< by return number
  std::map<unsigned, std::uint64_t> classes;  ///< by classification
  std::uint64_t synthetic = 0, keypoint = 0, withheld = 0, overlap = 0;
  /// In the order of the format's fields: intensity, scan angle (degrees), user data, point
  /// source id, GPS time, red, green, blue, NIR (those the format has).
  std::vector<std::pair<std::string, Range>> ranges;

  /// Adds `count` records of `format`.
  void add(std::span<const std::byte> records, std::size_t count, int format,
           std::size_t record_length);
};

/// The ASPRS standard name of a classification (LAS 1.4 R15 table 17), "" above 18.
[[nodiscard]] const char* asprs_class_name(unsigned c);

}  // namespace simlod::examples
