// simlod-ground's outputs of a DTM raster (simlod::terrain::Raster): an ESRI ASCII grid, a
// shaded-relief PNG to look at, and a GeoTIFF with the input's CRS (through GDAL, where the
// tools were built with it).
//
// A raster holds point coordinates, relative to the origin the points were read with
// (FileInfo::origin); the writers add `origin` to x, y and every height, so that the files hold
// real coordinates. Each file is written under a temporary name in its folder and renamed when
// complete: an error leaves no half-written file, and an older file of that name as it was.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/las_summary.hpp"
#include "simlod/terrain.hpp"

namespace simlod::examples {

/// Height written for a cell without a value (ESRI NODATA_value, GeoTIFF nodata).
inline constexpr double kRasterNodata = -9999.0;

/// Throws InvalidInput naming `path` unless `raster` has cells, width * height values and a
/// positive finite cell size at a finite corner.
void check_raster(const std::filesystem::path& path, const terrain::Raster& raster);

/// ESRI ASCII grid: ncols, nrows, xllcorner, yllcorner, cellsize, NODATA_value -9999, then the
/// rows from north to south; heights in the shortest text that reads back as the same float.
/// Throws InvalidInput (check_raster), IoError when the file cannot be written.
void write_esri_ascii(const std::filesystem::path& path, const terrain::Raster& raster,
                      std::array<double, 3> origin);

/// The light and scale of a shaded relief.
struct HillshadeOptions {
  double azimuth = 315.0;  ///< direction the sun shines from, degrees clockwise from north
  double altitude = 45.0;  ///< the sun's height above the horizon, degrees in [0, 90]
  /// Multiplies heights before slopes are taken: height units to horizontal units (e.g.
  /// vertical_metres_per_unit() / metres_per_unit(); about 1 / 111,000 over degrees).
  double z_factor = 1.0;
};

/// The shaded relief as RGBA8 pixels, one per cell, row 0 (north) first: the hillshade of
/// Horn's slopes (as gdaldem computes it, 255 (cos zenith cos slope + sin zenith sin slope
/// cos(azimuth - aspect))) lighting a hypsometric tint (greens low, browns, white at the top
/// of the raster's height range); cells without a value are transparent. A neighbour without a
/// value counts as the cell's own height. Throws InvalidInput for a bad raster or options.
[[nodiscard]] std::vector<std::uint8_t> hillshade_rgba(const terrain::Raster& raster,
                                                       const HillshadeOptions& options = {});

/// hillshade_rgba() as a PNG of width x height pixels. Throws InvalidInput, IoError.
void write_hillshade_png(const std::filesystem::path& path, const terrain::Raster& raster,
                         const HillshadeOptions& options = {});

/// GeoTIFF: one Float32 band, nodata -9999, DEFLATE with the floating-point predictor, tiled,
/// the geotransform of the raster moved by `origin`, and the CRS of `crs`: its WKT where it has
/// one, else EPSG code + vertical EPSG code as a compound CRS (the horizontal one alone where
/// GDAL does not accept the vertical one). Returns the CRS written, in words ("EPSG:3645 +
/// EPSG:5703", "none (...)"). Throws InvalidInput for a bad raster or where the tools were built
/// without GDAL (see geotiff_available()), IoError with GDAL's message when writing fails.
std::string write_geotiff(const std::filesystem::path& path, const terrain::Raster& raster,
                          std::array<double, 3> origin, const LasCrs& crs);

/// True when write_geotiff can write (the tools were built with GDAL).
[[nodiscard]] bool geotiff_available();

}  // namespace simlod::examples
