// simlod-info's LAS summary: the CRS from GeoKeys and WKT records (and a GeoKey directory that
// lies about its size), and the counts and ranges over records, against the rule of the shared
// formats/ files.
#include "common/las_summary.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../io/test_data.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace {

using simlod::LasMetadata;
using simlod::LasVlr;
using simlod::examples::las_crs;

LasVlr record(const char* user, std::uint16_t id, const std::vector<std::uint16_t>& words) {
  LasVlr v;
  std::strncpy(v.user_id.data(), user, v.user_id.size());
  v.record_id = id;
  v.data.resize(words.size() * 2);
  std::memcpy(v.data.data(), words.data(), v.data.size());
  return v;
}

TEST(LasSummary, CrsFromGeoKeysAndWkt) {
  LasMetadata m;
  // 3 keys: GTModelType (1024) projected, ProjectedCSType (3072) 32610, PCSCitation (3073)
  // from the ASCII record at offset 0, 10 characters.
  m.vlrs.push_back(record("LASF_Projection", 34735,
                          {1, 1, 0, 3, 1024, 0, 1, 1, 3072, 0, 1, 32610, 3073, 34737, 10, 0}));
  LasVlr ascii;
  std::strncpy(ascii.user_id.data(), "LASF_Projection", 16);
  ascii.record_id = 34737;
  for (const char c : std::string("UTM 10N|||")) ascii.data.push_back(std::byte(c));
  m.vlrs.push_back(ascii);
  auto crs = las_crs(m);
  ASSERT_TRUE(crs.epsg.has_value());
  EXPECT_EQ(*crs.epsg, 32610u);
  EXPECT_EQ(crs.citation, "UTM 10N");
  EXPECT_EQ(crs.text(), "EPSG:32610 (UTM 10N)");
  // WKT in an extended VLR.
  LasVlr wkt;
  std::strncpy(wkt.user_id.data(), "LASF_Projection", 16);
  wkt.record_id = 2112;
  for (const char c : std::string("PROJCS[\"x\"]")) wkt.data.push_back(std::byte(c));
  wkt.data.push_back(std::byte{0});
  m.evlrs.push_back(wkt);
  EXPECT_EQ(las_crs(m).wkt, "PROJCS[\"x\"]");
  EXPECT_EQ(las_crs(LasMetadata{}).text(), "none");
}

TEST(LasSummary, AGeoKeyDirectoryThatLiesIsAClearError) {
  LasMetadata m;
  m.vlrs.push_back(
      record("LASF_Projection", 34735, {1, 1, 0, 5, 1024, 0, 1, 1}));  // 5 keys, 1 held
  try {
    (void)las_crs(m);
    FAIL() << "no error";
  } catch (const simlod::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("34735"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("5 keys"), std::string::npos) << e.what();
  }
}

TEST(LasSummary, CountsAndRangesFollowTheFormatsRule) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  for (const int f : {1, 6, 8}) {
    SCOPED_TRACE(f);
    std::string name = "f";
    name += std::to_string(f);
    name += ".las";
    auto reader = simlod::open_reader(data / "formats" / name);
    const auto& info = reader->info();
    std::vector<simlod::Point> points(30'000);
    std::vector<std::byte> records(points.size() * info.record_length);
    simlod::examples::LasAttributeSummary s;
    for (std::size_t n; (n = reader->read(points, records)) > 0;) {
      s.add(records, n, info.point_format, info.record_length);
    }
    EXPECT_EQ(s.returns.size(), 1u);
    EXPECT_EQ(s.returns[1], 100'000u);
    if (f > 5) {
      ASSERT_EQ(s.classes.size(), 20u);  // i % 20
      EXPECT_EQ(s.classes[19], 5'000u);
    }
    ASSERT_FALSE(s.ranges.empty());
    EXPECT_EQ(s.ranges[0].first, "intensity");
    EXPECT_EQ(s.ranges[0].second.max, 65535.0);
    for (const auto& [name, r] : s.ranges) {
      if (name == "gps_time") {
        EXPECT_NEAR(r.max, 99.999, 1e-9);
      }
      if (name == "nir") {
        EXPECT_EQ(r.min, 7.0);
      }
    }
  }
}

}  // namespace
