// simlod-ground's raster outputs: the exact text of an ESRI ASCII grid, the shaded-relief PNG,
// and that a failed write leaves nothing half-written (the GeoTIFF: raster_geotiff_test.cpp).
#include "common/raster_writers.hpp"

#include <gtest/gtest.h>
#include <png.h>

#include <fstream>
#include <string>
#include <vector>

#include "../io/temp_dir.hpp"
#include "io/read_png.hpp"
#include "raster_test_util.hpp"
#include "simlod/error.hpp"

namespace {

using simlod::examples::HillshadeOptions;
using simlod::terrain::Raster;
using simlod::test::names;
using simlod::test::read_text;
using simlod::test::small_raster;

using simlod::test::read_png;

TEST(EsriAsciiGrid, ExactText) {
  simlod::test::TempDir dir;
  simlod::examples::write_esri_ascii(dir / "dtm.asc", small_raster(), {1000.0, 2000.0, 0.0});
  EXPECT_EQ(read_text(dir / "dtm.asc"),
            "ncols 3\n"
            "nrows 2\n"
            "xllcorner 1010\n"
            "yllcorner 2019\n"
            "cellsize 0.5\n"
            "NODATA_value -9999\n"
            "1 2.5 -9999\n"
            "-3.25 0.125 7\n");
  // Heights move with the origin's z; floats print as the shortest text that reads back.
  Raster r = small_raster();
  r.values[0] = 0.1f;
  simlod::examples::write_esri_ascii(dir / "dtm.asc", r, {0.0, 0.0, 100.0});
  EXPECT_NE(read_text(dir / "dtm.asc").find("\n100.1 102.5 -9999\n96.75 100.125 107\n"),
            std::string::npos)
      << read_text(dir / "dtm.asc");
  EXPECT_EQ(names(dir.path()), std::vector<std::string>{"dtm.asc"});
}

TEST(EsriAsciiGrid, BadInputNamesTheFileAndKeepsTheOldOne) {
  simlod::test::TempDir dir;
  std::ofstream(dir / "dtm.asc") << "old";
  Raster r = small_raster();
  r.values.pop_back();
  try {
    simlod::examples::write_esri_ascii(dir / "dtm.asc", r, {});
    FAIL() << "no error";
  } catch (const simlod::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("dtm.asc': a raster of 3x2 cells needs 6 values"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_text(dir / "dtm.asc"), "old");
  try {
    simlod::examples::write_esri_ascii(dir / "missing" / "dtm.asc", small_raster(), {});
    FAIL() << "no error";
  } catch (const simlod::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("missing/dtm.asc'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(names(dir.path()), std::vector<std::string>{"dtm.asc"});
}

TEST(Hillshade, OnePixelPerCellAndNodataTransparent) {
  simlod::test::TempDir dir;
  simlod::examples::write_hillshade_png(dir / "dtm.png", small_raster());
  std::uint32_t w = 0, h = 0;
  const auto png = read_png(dir / "dtm.png", w, h);
  ASSERT_EQ(w, 3u);
  ASSERT_EQ(h, 2u);
  ASSERT_EQ(png.size(), 3u * 2u * 4u);
  const auto pixel = [&](int row, int col) {
    return std::vector<std::uint8_t>(png.begin() + (row * 3 + col) * 4,
                                     png.begin() + (row * 3 + col + 1) * 4);
  };
  EXPECT_EQ(pixel(0, 2)[3], 0);  // no value: transparent
  for (const auto& [row, col] : {std::pair{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}}) {
    EXPECT_EQ(pixel(row, col)[3], 255);
    EXPECT_NE(pixel(row, col), pixel(0, 2));
  }
  // Highest cell white-ish, lowest green.
  const auto top = pixel(1, 2), low = pixel(1, 0);
  EXPECT_GT(top[2], low[2]);
  EXPECT_GT(low[1], low[0]);
  EXPECT_EQ(names(dir.path()), std::vector<std::string>{"dtm.png"});
}

TEST(Hillshade, SlopesFacingTheSunAreBrighter) {
  // Two planes over 5 x 5 cells: one rising to the south-east (facing the north-western sun),
  // one rising to the north-west. Their centres have the same tint, so only light differs.
  Raster facing, away;
  for (Raster* r : {&facing, &away}) {
    r->width = r->height = 5;
    r->values.resize(25);
  }
  for (int row = 0; row < 5; ++row) {
    for (int col = 0; col < 5; ++col) {
      facing.values[row * 5 + col] = static_cast<float>(row + col);
      away.values[row * 5 + col] = static_cast<float>(-(row + col));
    }
  }
  const auto lit = simlod::examples::hillshade_rgba(facing);
  const auto dark = simlod::examples::hillshade_rgba(away);
  const std::size_t centre = (2 * 5 + 2) * 4;
  for (int c = 0; c < 3; ++c) EXPECT_GT(lit[centre + c], dark[centre + c]) << c;
  // A flat raster: one colour, lit by cos(45 degrees).
  Raster flat;
  flat.width = flat.height = 2;
  flat.values.assign(4, 3.0f);
  const auto f = simlod::examples::hillshade_rgba(flat);
  EXPECT_EQ(std::vector<std::uint8_t>(f.begin(), f.begin() + 4),
            std::vector<std::uint8_t>(f.end() - 4, f.end()));
  EXPECT_GT(lit[centre + 1], f[1]);
  EXPECT_LT(dark[centre + 1], f[1]);
  HillshadeOptions bad;
  bad.altitude = 91.0;
  EXPECT_THROW((void)simlod::examples::hillshade_rgba(flat, bad), simlod::InvalidInput);
  EXPECT_THROW((void)simlod::examples::hillshade_rgba(Raster{}), simlod::InvalidInput);
}

}  // namespace
