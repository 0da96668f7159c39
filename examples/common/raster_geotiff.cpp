// The GeoTIFF of a DTM, through GDAL when the tools were built with it (SIMLOD_HAVE_GDAL).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "common/raster_writers.hpp"
#include "simlod/error.hpp"

#ifdef SIMLOD_HAVE_GDAL
#include <cpl_conv.h>
#include <cpl_error.h>
#include <gdal_priv.h>
#include <ogr_spatialref.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "common/partial_file.hpp"
#endif

namespace simlod::examples {

#ifdef SIMLOD_HAVE_GDAL
namespace {

/// GDAL's errors while writing one file (it reports them to a handler, not by exceptions).
struct GdalErrors {
  std::string text;
  static void CPL_STDCALL collect(CPLErr level, CPLErrorNum, const char* message) {
    auto* self = static_cast<GdalErrors*>(CPLGetErrorHandlerUserData());
    if (level < CE_Failure || self == nullptr) return;  // warnings and debug output: silent
    self->text += fmt::format("{}{}", self->text.empty() ? "" : "; ", message);
  }
};

/// Sets a GDAL configuration option on this thread and restores it at the end of the scope.
class ThreadConfig {
 public:
  ThreadConfig(const char* key, const char* value) : key_(key) {
    if (const char* old = CPLGetThreadLocalConfigOption(key, nullptr)) old_ = old;
    CPLSetThreadLocalConfigOption(key, value);
  }
  ~ThreadConfig() { CPLSetThreadLocalConfigOption(key_, old_ ? old_->c_str() : nullptr); }
  ThreadConfig(const ThreadConfig&) = delete;
  ThreadConfig& operator=(const ThreadConfig&) = delete;

 private:
  const char* key_;
  std::optional<std::string> old_;
};

/// The spatial reference of `crs` into `srs`, and what it is in words.
std::string spatial_ref(const LasCrs& crs, OGRSpatialReference& srs) {
  if (!crs.wkt.empty()) {
    // The WKT comes from the input file: no file or network look-ups on its behalf.
    if (srs.SetFromUserInput(crs.wkt.c_str(),
                             OGRSpatialReference::SET_FROM_USER_INPUT_LIMITATIONS_get()) ==
        OGRERR_NONE) {
      return "the input's WKT";
    }
    srs.Clear();
    return "none (GDAL cannot read the input's WKT)";
  }
  if (!crs.epsg) return "none";
  if (crs.model_type == 1 && crs.epsg == crs.geographic_epsg) {
    // A user-defined projection on an EPSG datum: the datum's code alone would claim degrees.
    return fmt::format("none (the projected CRS on EPSG:{} is user-defined)", *crs.epsg);
  }
  OGRSpatialReference horizontal;
  if (horizontal.importFromEPSG(static_cast<int>(*crs.epsg)) != OGRERR_NONE) {
    return fmt::format("none (GDAL does not know EPSG:{})", *crs.epsg);
  }
  srs = horizontal;
  const std::string words = fmt::format("EPSG:{}", *crs.epsg);
  if (!crs.vertical_epsg) return words;
  OGRSpatialReference vertical, compound;
  if (vertical.importFromEPSG(static_cast<int>(*crs.vertical_epsg)) == OGRERR_NONE &&
      vertical.IsVertical() &&
      compound.SetCompoundCS(
          fmt::format("{} + {}", horizontal.GetName(), vertical.GetName()).c_str(), &horizontal,
          &vertical) == OGRERR_NONE) {
    srs = compound;
    return fmt::format("{} + EPSG:{}", words, *crs.vertical_epsg);
  }
  return fmt::format("{} (vertical EPSG:{} left out: GDAL does not accept it)", words,
                     *crs.vertical_epsg);
}

/// Every mention of the partial file replaced by the file asked for.
std::string naming(std::string text, const std::string& partial, const std::string& path) {
  for (std::size_t at = text.find(partial); at != std::string::npos;
       at = text.find(partial, at + path.size())) {
    text.replace(at, partial.size(), path);
  }
  return text;
}

}  // namespace

bool geotiff_available() { return true; }

std::string write_geotiff(const std::filesystem::path& path, const terrain::Raster& raster,
                          std::array<double, 3> origin, const LasCrs& crs) {
  check_raster(path, raster);
  if (!std::isfinite(origin[0]) || !std::isfinite(origin[1]) || !std::isfinite(origin[2])) {
    throw InvalidInput(fmt::format("'{}': the origin ({}, {}, {}) is not finite", path.string(),
                                   origin[0], origin[1], origin[2]));
  }
  if (raster.width > INT32_MAX || raster.height > INT32_MAX) {
    throw InvalidInput(fmt::format("'{}': a GeoTIFF of {}x{} cells is larger than GDAL takes",
                                   path.string(), raster.width, raster.height));
  }
  static std::once_flag registered;
  std::call_once(registered, [] { GDALAllRegister(); });
  const std::string name = path.string();
  OGRSpatialReference srs;
  std::string written;
  {
    GdalErrors ignored;  // a CRS GDAL rejects is left out and said so, not an error
    CPLErrorHandlerPusher handler(GdalErrors::collect, &ignored);
    written = spatial_ref(crs, srs);
  }
  srs.SetAxisMappingStrategy(OAMS_TRADITIONAL_GIS_ORDER);

  PartialFile file(path);
  const std::string partial = file.partial().string();
  GdalErrors errors;
  {
    CPLErrorHandlerPusher handler(GdalErrors::collect, &errors);
    // Everything goes into the TIFF itself: no .aux.xml beside the partial file.
    ThreadConfig no_sidecar("GDAL_PAM_ENABLED", "NO");
    GDALDriver* driver = GetGDALDriverManager()->GetDriverByName("GTiff");
    if (driver == nullptr) {
      throw IoError(fmt::format("cannot write '{}': this GDAL has no GTiff driver", name));
    }
    const char* const options[] = {"COMPRESS=DEFLATE", "PREDICTOR=3", "TILED=YES",
                                   "BIGTIFF=IF_SAFER", nullptr};
    const int w = static_cast<int>(raster.width), h = static_cast<int>(raster.height);
    GDALDatasetUniquePtr ds(driver->Create(partial.c_str(), w, h, 1, GDT_Float32, options));
    if (!ds) {
      throw IoError(
          fmt::format("cannot create '{}': {}", name, naming(errors.text, partial, name)));
    }
    // A failure without a message of GDAL's still fails the write.
    const auto check = [&](CPLErr e, const char* what) {
      if (e != CE_None && errors.text.empty()) errors.text = fmt::format("{} failed", what);
    };
    double transform[6] = {origin[0] + raster.x0, raster.cell, 0.0,
                           origin[1] + raster.y0, 0.0,         -raster.cell};
    check(ds->SetGeoTransform(transform), "setting the geotransform");
    if (!srs.IsEmpty()) check(ds->SetSpatialRef(&srs), "setting the CRS");
    GDALRasterBand* band = ds->GetRasterBand(1);
    check(band->SetNoDataValue(kRasterNodata), "setting the nodata value");
    std::vector<float> row(raster.width);
    for (std::uint32_t r = 0; r < raster.height && errors.text.empty(); ++r) {
      for (std::uint32_t c = 0; c < raster.width; ++c) {
        const float v = raster.at(r, c);
        row[c] = std::isfinite(v) ? static_cast<float>(v + origin[2])
                                  : static_cast<float>(kRasterNodata);
      }
      check(band->RasterIO(GF_Write, 0, static_cast<int>(r), w, 1, row.data(), w, 1, GDT_Float32, 0,
                           0, nullptr),
            "writing a row");
    }
    ds.reset();  // GDALClose: the last tiles are compressed and written here
  }
  if (!errors.text.empty()) {
    throw IoError(fmt::format("cannot write '{}': {}", name, naming(errors.text, partial, name)));
  }
  file.commit();
  return written;
}

#else

bool geotiff_available() { return false; }

std::string write_geotiff(const std::filesystem::path& path, const terrain::Raster&,
                          std::array<double, 3>, const LasCrs&) {
  throw InvalidInput(fmt::format(
      "cannot write the GeoTIFF '{}': simlod-ground was built without GDAL (install libgdal-dev "
      "and build again), so it writes the ESRI ASCII grid and the PNG only",
      path.string()));
}

#endif

}  // namespace simlod::examples
