// simlod-ground's GeoTIFF read back through GDAL (where built with it): size, geotransform,
// heights, nodata, compression and the CRS (a compound EPSG one, haystack_rock.las's, a WKT, a
// vertical code GDAL refuses); and what a build without GDAL says.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "../io/temp_dir.hpp"
#include "../io/test_data.hpp"
#include "common/raster_writers.hpp"
#include "raster_test_util.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

#ifdef SIMLOD_HAVE_GDAL
#include <gdal_priv.h>
#include <ogr_spatialref.h>
#endif

namespace {

using simlod::terrain::Raster;
using simlod::test::names;
using simlod::test::small_raster;

#ifdef SIMLOD_HAVE_GDAL

/// What GDAL reads of a one-band raster file.
struct GeoTiff {
  int width = 0, height = 0;
  std::array<double, 6> transform{};
  std::vector<float> values;
  double nodata = 0.0;
  bool has_nodata = false;
  std::string compression;
  OGRSpatialReference srs;
};

GeoTiff read_with_gdal(const std::filesystem::path& path) {
  GDALAllRegister();
  GDALDatasetUniquePtr ds(GDALDataset::Open(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY));
  GeoTiff t;
  if (!ds) return t;
  t.width = ds->GetRasterXSize();
  t.height = ds->GetRasterYSize();
  (void)ds->GetGeoTransform(t.transform.data());
  GDALRasterBand* band = ds->GetRasterBand(1);
  int ok = 0;
  t.nodata = band->GetNoDataValue(&ok);
  t.has_nodata = ok != 0;
  t.values.resize(static_cast<std::size_t>(t.width) * t.height);
  if (band->RasterIO(GF_Read, 0, 0, t.width, t.height, t.values.data(), t.width, t.height,
                     GDT_Float32, 0, 0, nullptr) != CE_None) {
    t.values.clear();
  }
  if (const char* c = ds->GetMetadataItem("COMPRESSION", "IMAGE_STRUCTURE")) t.compression = c;
  if (const OGRSpatialReference* s = ds->GetSpatialRef()) t.srs = *s;
  return t;
}

TEST(GeoTiff, RoundTripWithACompoundCrs) {
  ASSERT_TRUE(simlod::examples::geotiff_available());
  simlod::test::TempDir dir;
  simlod::examples::LasCrs crs;
  crs.epsg = 3645;
  crs.vertical_epsg = 5703;
  const std::string written = simlod::examples::write_geotiff(dir / "dtm.tif", small_raster(),
                                                              {2'500'000.0, 300'000.0, 100.0}, crs);
  EXPECT_EQ(written, "EPSG:3645 + EPSG:5703");
  const GeoTiff t = read_with_gdal(dir / "dtm.tif");
  ASSERT_EQ(t.width, 3);
  ASSERT_EQ(t.height, 2);
  EXPECT_EQ(t.transform, (std::array<double, 6>{2'500'010.0, 0.5, 0.0, 300'020.0, 0.0, -0.5}));
  EXPECT_EQ(t.values, (std::vector<float>{101.0f, 102.5f, -9999.0f, 96.75f, 100.125f, 107.0f}));
  EXPECT_TRUE(t.has_nodata);
  EXPECT_EQ(t.nodata, -9999.0);
  EXPECT_EQ(t.compression, "DEFLATE");
  ASSERT_FALSE(t.srs.IsEmpty());
  EXPECT_TRUE(t.srs.IsCompound());
  ASSERT_NE(t.srs.GetAuthorityCode("PROJCS"), nullptr);
  EXPECT_STREQ(t.srs.GetAuthorityCode("PROJCS"), "3645");
  ASSERT_NE(t.srs.GetAuthorityCode("VERT_CS"), nullptr);
  EXPECT_STREQ(t.srs.GetAuthorityCode("VERT_CS"), "5703");
  EXPECT_EQ(names(dir.path()), std::vector<std::string>{"dtm.tif"});  // no .aux.xml, no partial
}

TEST(EsriAsciiGrid, GdalReadsTheSameRaster) {
  simlod::test::TempDir dir;
  simlod::examples::write_esri_ascii(dir / "dtm.asc", small_raster(), {1000.0, 2000.0, 0.0});
  const GeoTiff t = read_with_gdal(dir / "dtm.asc");
  ASSERT_EQ(t.width, 3);
  ASSERT_EQ(t.height, 2);
  EXPECT_EQ(t.transform, (std::array<double, 6>{1010.0, 0.5, 0.0, 2020.0, 0.0, -0.5}));
  EXPECT_EQ(t.values, (std::vector<float>{1.0f, 2.5f, -9999.0f, -3.25f, 0.125f, 7.0f}));
  EXPECT_TRUE(t.has_nodata);
  EXPECT_EQ(t.nodata, -9999.0);
}

TEST(GeoTiff, HaystackRocksCrs) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  simlod::test::TempDir dir;
  const auto crs = simlod::examples::las_crs(simlod::read_las_metadata(data / "haystack_rock.las"));
  EXPECT_EQ(simlod::examples::write_geotiff(dir / "h.tif", small_raster(), {}, crs),
            "EPSG:3645 + EPSG:5703");
  const GeoTiff t = read_with_gdal(dir / "h.tif");
  ASSERT_NE(t.srs.GetAuthorityCode("PROJCS"), nullptr);
  EXPECT_STREQ(t.srs.GetAuthorityCode("PROJCS"), "3645");
  EXPECT_DOUBLE_EQ(t.srs.GetLinearUnits(), 1.0);
}

TEST(GeoTiff, WktAndRefusedVerticalCodes) {
  simlod::test::TempDir dir;
  OGRSpatialReference feet;
  ASSERT_EQ(feet.importFromEPSG(2927), OGRERR_NONE);
  char* wkt = nullptr;
  ASSERT_EQ(feet.exportToWkt(&wkt), OGRERR_NONE);
  simlod::examples::LasCrs crs;
  crs.wkt = wkt;
  CPLFree(wkt);
  EXPECT_EQ(simlod::examples::write_geotiff(dir / "f.tif", small_raster(), {}, crs),
            "the input's WKT");
  EXPECT_NEAR(read_with_gdal(dir / "f.tif").srs.GetLinearUnits(), 1200.0 / 3937.0, 1e-12);
  // 4326 is no vertical CRS: the horizontal one alone, and said so.
  simlod::examples::LasCrs odd;
  odd.epsg = 3645;
  odd.vertical_epsg = 4326;
  const std::string written =
      simlod::examples::write_geotiff(dir / "v.tif", small_raster(), {}, odd);
  EXPECT_EQ(written.rfind("EPSG:3645 (vertical EPSG:4326 left out", 0), 0u) << written;
  const GeoTiff t = read_with_gdal(dir / "v.tif");
  EXPECT_FALSE(t.srs.IsCompound());
  EXPECT_STREQ(t.srs.GetAuthorityCode("PROJCS"), "3645");
  EXPECT_EQ(simlod::examples::write_geotiff(dir / "n.tif", small_raster(), {}, {}), "none");
  EXPECT_TRUE(read_with_gdal(dir / "n.tif").srs.IsEmpty());
}

TEST(GeoTiff, AFailedWriteNamesTheFileAndLeavesNothing) {
  simlod::test::TempDir dir;
  try {
    (void)simlod::examples::write_geotiff(dir / "missing" / "dtm.tif", small_raster(), {}, {});
    FAIL() << "no error";
  } catch (const simlod::IoError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("missing/dtm.tif'"), std::string::npos) << what;
    EXPECT_EQ(what.find("partial"), std::string::npos) << what;
  }
  Raster r = small_raster();
  r.cell = 0.0;
  EXPECT_THROW((void)simlod::examples::write_geotiff(dir / "dtm.tif", r, {}, {}),
               simlod::InvalidInput);
  EXPECT_TRUE(names(dir.path()).empty());
}

#else

TEST(GeoTiff, WithoutGdalItSaysHowToGetIt) {
  EXPECT_FALSE(simlod::examples::geotiff_available());
  simlod::test::TempDir dir;
  try {
    (void)simlod::examples::write_geotiff(dir / "dtm.tif", small_raster(), {}, {});
    FAIL() << "no error";
  } catch (const simlod::InvalidInput& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("dtm.tif"), std::string::npos) << what;
    EXPECT_NE(what.find("built without GDAL (install libgdal-dev"), std::string::npos) << what;
  }
  EXPECT_TRUE(names(dir.path()).empty());
}

#endif

}  // namespace
