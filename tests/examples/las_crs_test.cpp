// The kind and units of a LAS file's CRS (simlod-ground needs them: window sizes and the
// tolerance are in the file's units): GeoKeys of a real file, hand-made GeoKeys for the
// geographic, foot and US survey foot cases, and WKT (which decides over GeoKeys).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../io/test_data.hpp"
#include "common/las_summary.hpp"
#include "common/wkt.hpp"
#include "simlod/io.hpp"

namespace {

using simlod::LasMetadata;
using simlod::LasVlr;
using simlod::examples::las_crs;
using simlod::examples::LasCrs;

constexpr double kUsFoot = 1200.0 / 3937.0;

/// A LASF_Projection GeoKeyDirectoryTag with `keys` (id, value) held in the directory itself.
LasMetadata geokeys(const std::vector<std::pair<std::uint16_t, std::uint16_t>>& keys) {
  std::vector<std::uint16_t> words = {1, 1, 0, static_cast<std::uint16_t>(keys.size())};
  for (const auto& [id, value] : keys) words.insert(words.end(), {id, 0, 1, value});
  LasVlr v;
  std::strncpy(v.user_id.data(), "LASF_Projection", v.user_id.size());
  v.record_id = 34735;
  v.data.resize(words.size() * 2);
  std::memcpy(v.data.data(), words.data(), v.data.size());
  LasMetadata m;
  m.vlrs.push_back(v);
  return m;
}

LasCrs with_wkt(LasCrs crs, const std::string& wkt) {
  crs.wkt = wkt;
  return crs;
}

const std::string kUsFeetWkt =
    R"w(PROJCS["NAD83(HARN) / Washington South (ftUS)",GEOGCS["NAD83(HARN)",)w"
    R"w(DATUM["NAD83_High_Accuracy_Reference_Network",SPHEROID["GRS 1980",6378137,298.257222101]],)w"
    R"w(PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],)w"
    R"w(PROJECTION["Lambert_Conformal_Conic_2SP"],PARAMETER["false_easting",1640416.667],)w"
    R"w(UNIT["US survey foot",0.3048006096012192],AXIS["Easting",EAST],AXIS["Northing",NORTH],)w"
    R"w(AUTHORITY["EPSG","2927"]])w";

TEST(LasCrsUnits, HaystackRockIsProjectedInMetres) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  const LasCrs crs = las_crs(simlod::read_las_metadata(data / "haystack_rock.las"));
  // Its GeoKeys: 1024 = 1, 3072 = 3645, 3076 = 9001, 4096 = 5703, 4099 = 9001.
  EXPECT_EQ(crs.model_type, 1);
  EXPECT_EQ(crs.epsg, 3645u);
  EXPECT_EQ(crs.vertical_epsg, 5703u);
  EXPECT_EQ(crs.linear_units, 9001);
  EXPECT_EQ(crs.vertical_units, 9001);
  EXPECT_FALSE(crs.geographic_epsg.has_value());
  EXPECT_FALSE(crs.geographic());
  EXPECT_EQ(crs.metres_per_unit(), 1.0);
  EXPECT_EQ(crs.vertical_metres_per_unit(), 1.0);
  EXPECT_EQ(crs.units_text(), "metre (vertical: metre)");
  EXPECT_EQ(crs.text(), "EPSG:3645 + vertical EPSG:5703");  // what simlod-info prints
}

TEST(LasCrsUnits, GeographicFromTheModelTypeOrTheCodes) {
  const LasCrs geographic = las_crs(geokeys({{1024, 2}, {2048, 4326}}));
  EXPECT_TRUE(geographic.geographic());
  EXPECT_EQ(geographic.epsg, 4326u);
  EXPECT_EQ(geographic.geographic_epsg, 4326u);
  EXPECT_EQ(geographic.metres_per_unit(), 1.0);
  EXPECT_EQ(geographic.units_text(), "degree");
  // Without a model type: a geographic code alone is geographic, one under a projected code
  // is the projection's datum.
  EXPECT_TRUE(las_crs(geokeys({{2048, 4269}})).geographic());
  EXPECT_FALSE(las_crs(geokeys({{3072, 26910}, {2048, 4269}})).geographic());
  EXPECT_FALSE(las_crs(geokeys({{1024, 1}, {2048, 4269}})).geographic());
  EXPECT_FALSE(las_crs(geokeys({{1024, 3}})).geographic());  // geocentric
  EXPECT_FALSE(LasCrs{}.geographic());
}

TEST(LasCrsUnits, FeetAndUsSurveyFeetFromGeoKeys) {
  const LasCrs feet = las_crs(geokeys({{1024, 1}, {3072, 2285}, {3076, 9002}}));
  EXPECT_FALSE(feet.geographic());
  EXPECT_DOUBLE_EQ(feet.metres_per_unit(), 0.3048);
  EXPECT_DOUBLE_EQ(feet.vertical_metres_per_unit(), 0.3048);  // heights follow x and y
  EXPECT_EQ(feet.units_text(), "foot");
  const LasCrs us = las_crs(geokeys({{1024, 1}, {3072, 2927}, {3076, 9003}, {4099, 9001}}));
  EXPECT_DOUBLE_EQ(us.metres_per_unit(), kUsFoot);
  EXPECT_EQ(us.vertical_metres_per_unit(), 1.0);
  EXPECT_EQ(us.units_text(), "US survey foot (vertical: metre)");
  // Unknown or absent units count as metres; an unknown code is named.
  const LasCrs odd = las_crs(geokeys({{3076, 9999}}));
  EXPECT_EQ(odd.metres_per_unit(), 1.0);
  EXPECT_EQ(odd.units_text(), "EPSG unit 9999");
  EXPECT_EQ(LasCrs{}.metres_per_unit(), 1.0);
  EXPECT_EQ(LasCrs{}.units_text(), "");
}

TEST(LasCrsUnits, WktDecidesOverGeoKeys) {
  // GeoKeys say metres; the WKT's projected CRS says US survey feet.
  const LasCrs us = with_wkt(las_crs(geokeys({{1024, 1}, {3076, 9001}})), kUsFeetWkt);
  EXPECT_FALSE(us.geographic());
  EXPECT_DOUBLE_EQ(us.metres_per_unit(), 0.3048006096012192);
  EXPECT_DOUBLE_EQ(us.vertical_metres_per_unit(), 0.3048006096012192);
  EXPECT_EQ(us.units_text(), "US survey foot");
  // A compound CRS: feet across, metres up.
  const LasCrs compound = with_wkt(
      {}, R"w(COMPD_CS["x + h",)w" + kUsFeetWkt +
              R"w(,VERT_CS["NAVD88 height",VERT_DATUM["North American Vertical Datum 1988",2005],)w"
              R"w(UNIT["metre",1.0],AXIS["Gravity-related height",UP]]])w");
  EXPECT_DOUBLE_EQ(compound.metres_per_unit(), 0.3048006096012192);
  EXPECT_EQ(compound.vertical_metres_per_unit(), 1.0);
  EXPECT_EQ(compound.units_text(), "US survey foot (vertical: metre)");
  // Geographic WKT1 and WKT2, over a model type that says projected.
  const LasCrs projected = las_crs(geokeys({{1024, 1}}));
  EXPECT_TRUE(with_wkt(projected, R"w(GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",)w"
                                  R"w(6378137,298.257223563]],UNIT["degree",0.0174532925199433]])w")
                  .geographic());
  EXPECT_TRUE(with_wkt(projected, R"w(GEOGCRS["NAD83(2011)",CS[ellipsoidal,2]])w").geographic());
  EXPECT_TRUE(with_wkt(projected, R"w(GEODCRS["x",CS[Ellipsoidal,2]])w").geographic());
  EXPECT_FALSE(with_wkt(projected, R"w(GEODCRS["x",CS[Cartesian,3]])w").geographic());
  // WKT2: the unit of the axes.
  const LasCrs wkt2 = with_wkt(
      {}, R"w(PROJCRS["y",BASEGEOGCRS["b",ANGLEUNIT["degree",0.0174532925199433]],)w"
          R"w(CONVERSION["c",PARAMETER["p",0,LENGTHUNIT["metre",1]]],CS[Cartesian,2],)w"
          R"w(AXIS["easting (X)",east,LENGTHUNIT["foot",0.3048]],AXIS["northing (Y)",north,)w"
          R"w(LENGTHUNIT["foot",0.3048]]])w");
  EXPECT_DOUBLE_EQ(wkt2.metres_per_unit(), 0.3048);
  // A WKT that does not parse leaves the GeoKeys to answer.
  EXPECT_DOUBLE_EQ(
      with_wkt(las_crs(geokeys({{3076, 9002}})), "PROJCS[\"broken\"").metres_per_unit(), 0.3048);
}

TEST(Wkt, ParsesNestingQuotesAndRefusesHostileInput) {
  const auto tree =
      simlod::examples::parse_wkt(R"w( UNIT["say ""ft""", 0.3048, ID("EPSG", 9002)] )w");
  ASSERT_TRUE(tree.has_value());
  EXPECT_EQ(tree->keyword, "UNIT");
  ASSERT_EQ(tree->values.size(), 2u);
  EXPECT_EQ(tree->values[0], "say \"ft\"");
  EXPECT_EQ(tree->values[1], "0.3048");
  ASSERT_NE(tree->child({"id"}), nullptr);
  EXPECT_EQ(tree->child({"ID"})->values[1], "9002");
  EXPECT_FALSE(simlod::examples::parse_wkt("").has_value());
  EXPECT_FALSE(simlod::examples::parse_wkt("A[1,2").has_value());
  EXPECT_FALSE(simlod::examples::parse_wkt("A[\"open]").has_value());
  EXPECT_FALSE(simlod::examples::parse_wkt("A[1] B[2]").has_value());
  std::string deep;
  for (int i = 0; i < 100'000; ++i) deep += "A[";
  EXPECT_FALSE(simlod::examples::parse_wkt(deep).has_value());  // no stack overflow
}

}  // namespace
