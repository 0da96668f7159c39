// Ground classification on the CPU backend: seeds against the brute force, window counts of
// the paper's data sets, the DTM and the classifier, bad input.
#include "simlod/terrain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/terrain_brute.hpp"
#include "simlod/error.hpp"
#include "simlod/synth.hpp"

namespace simlod {
namespace {

using terrain::GroundParams;

GroundParams cpu_params() {
  GroundParams p;
  p.backend = Backend::Cpu;
  return p;
}

TEST(TerrainSeeds, EqualBruteForceOnEdgesAndTies) {
  // Half-metre coordinates: the window edges (every 2 m from a half-metre minimum) carry many
  // points; z in steps of 0.1 ties often.
  const std::vector<Point> pts = test::terrain_points(6000, 120.0, 0.5, 7);
  GroundParams p = cpu_params();
  const terrain::Seeds s = terrain::find_seeds(pts, p);
  EXPECT_TRUE(test::same_seeds(s.indices, test::brute_seeds(pts, p)));
  EXPECT_GT(s.stats.window_seeds, 50u);
  EXPECT_EQ(s.stats.window_seeds + s.stats.gap_seeds, s.indices.size());
  EXPECT_EQ(s.stats.cells_x, s.stats.windows_x + 4);  // w / o = 5: n + k - 1 strips
}

TEST(TerrainSeeds, EqualBruteForceWithoutQuantisationAndGaps) {
  const std::vector<Point> pts = test::terrain_points(5000, 100.0, 0.0, 11);
  GroundParams p = cpu_params();
  p.gap_cell = 0.0;
  const terrain::Seeds s = terrain::find_seeds(pts, p);
  EXPECT_TRUE(test::same_seeds(s.indices, test::brute_seeds(pts, p)));
  EXPECT_EQ(s.stats.gap_seeds, 0u);
}

TEST(TerrainSeeds, NonIntegerWindowRatioEqualsBruteForce) {
  // o = 3.5, w / o = 2.857: windows end between cell edges, so strips are uneven.
  const std::vector<Point> pts = test::terrain_points(4000, 90.0, 0.25, 3);
  GroundParams p = cpu_params();
  p.overlap = 0.65;
  p.min_points = 5;
  const terrain::Seeds s = terrain::find_seeds(pts, p);
  EXPECT_TRUE(test::same_seeds(s.indices, test::brute_seeds(pts, p)));
  EXPECT_GT(s.stats.cells_x, s.stats.windows_x + 2);
}

TEST(TerrainSeeds, OtherWindowsAndOverlapsEqualBruteForce) {
  const std::vector<Point> pts = test::terrain_points(3000, 80.0, 0.5, 5);
  for (const auto& [w, o] : {std::pair{6.0, 0.5}, {12.0, 0.75}, {5.0, 0.0}, {7.3, 0.9}}) {
    GroundParams p = cpu_params();
    p.window = w;
    p.overlap = o;
    p.gap_cell = 15.0;
    EXPECT_TRUE(test::same_seeds(terrain::find_seeds(pts, p).indices, test::brute_seeds(pts, p)))
        << "w " << w << " O " << o;
  }
}

TEST(TerrainSeeds, SkippedPointsAreIgnored) {
  std::vector<Point> pts = test::terrain_points(4000, 100.0, 0.5, 9);
  std::vector<std::uint8_t> skip(pts.size(), 0);
  for (std::size_t i = 0; i < pts.size(); i += 7) {
    skip[i] = 1;
    pts[i].z -= 50.0f;  // noise far below: would be a seed if it counted
  }
  GroundParams p = cpu_params();
  const terrain::Seeds s = terrain::find_seeds(pts, p, skip);
  EXPECT_TRUE(test::same_seeds(s.indices, test::brute_seeds(pts, p, skip)));
  EXPECT_EQ(s.stats.skipped, (pts.size() + 6) / 7);
  for (std::uint32_t i : s.indices) EXPECT_EQ(skip[i], 0) << i;
}

TEST(TerrainSeeds, SkipMaskFromAttributes) {
  PointAttributes a;
  a.classification = {2, 7, 1, 18, 2};
  a.classification_flags = {0, 0, 4, 0, 1};
  EXPECT_EQ(terrain::skip_mask(a), (std::vector<std::uint8_t>{0, 1, 1, 1, 0}));
  EXPECT_TRUE(terrain::skip_mask(PointAttributes{}).empty());
}

TEST(TerrainSeeds, LowOutlierFilterDropsALonePit) {
  std::vector<Point> pts = test::terrain_points(8000, 100.0, 0.0, 21);
  pts[100] = {50.3f, 50.7f, -40.0f, 0};  // one return far below the ground
  GroundParams p = cpu_params();
  const terrain::Seeds plain = terrain::find_seeds(pts, p);
  EXPECT_TRUE(std::binary_search(plain.indices.begin(), plain.indices.end(), 100u));
  EXPECT_EQ(plain.stats.low_outliers, 0u);
  p.low_outlier = 5.0;
  const terrain::Seeds filtered = terrain::find_seeds(pts, p);
  EXPECT_FALSE(std::binary_search(filtered.indices.begin(), filtered.indices.end(), 100u));
  EXPECT_EQ(filtered.stats.low_outliers, 1u);
}

TEST(TerrainSeeds, WindowCountsOfThePapersDataSets) {
  // Table 1 extents; the paper's window counts (714 x 959 for Alcoy, 372 x 276 for Brion urban).
  const GroundParams p;
  EXPECT_EQ(detail::window_edges(0.0, 1413.08, p).count, 714u);
  EXPECT_EQ(detail::window_edges(0.0, 1904.30, p).count, 959u);
  EXPECT_EQ(detail::window_edges(0.0, 730.54, p).count, 372u);
  EXPECT_EQ(detail::window_edges(0.0, 538.35, p).count, 276u);
  EXPECT_EQ(detail::window_edges(0.0, 1413.08, p).k, 5u);  // 10 / 2 within rounding
}

TEST(TerrainSeeds, DeterministicAcrossRuns) {
  const std::vector<Point> pts = test::terrain_points(20000, 200.0, 0.5, 13);
  const GroundParams p = cpu_params();
  EXPECT_EQ(terrain::find_seeds(pts, p).indices, terrain::find_seeds(pts, p).indices);
}

TEST(TerrainBadInput, ParametersAndPoints) {
  const std::vector<Point> pts = test::terrain_points(2000, 60.0, 0.0, 1);
  const auto fails = [&](GroundParams p, const char* needle) {
    p.backend = Backend::Cpu;
    try {
      (void)terrain::find_seeds(pts, p);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  GroundParams p;
  p.window = 0.0;
  fails(p, "window");
  p = {};
  p.window = std::nan("");
  fails(p, "window");
  p = {};
  p.overlap = 1.0;
  fails(p, "overlap");
  p = {};
  p.overlap = -0.1;
  fails(p, "overlap");
  p = {};
  p.gap_cell = -1.0;
  fails(p, "gap_cell");
  p = {};
  p.min_points = 5000;
  fails(p, "fewer than one window needs");
  p = {};
  p.window = 1e-6;
  fails(p, "at most");
}

TEST(TerrainBadInput, NonFiniteCoordinateNamesThePoint) {
  std::vector<Point> pts = test::terrain_points(2000, 60.0, 0.0, 1);
  pts[1234].y = std::numeric_limits<float>::quiet_NaN();
  try {
    (void)terrain::find_seeds(pts, cpu_params());
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("point 1234"), std::string::npos) << e.what();
  }
  pts[1234].y = 1.0f;
  pts[77].z = std::numeric_limits<float>::infinity();
  EXPECT_THROW((void)terrain::find_seeds(pts, cpu_params()), InvalidInput);
}

TEST(TerrainBadInput, DegenerateClouds) {
  std::vector<Point> one_spot(500, Point{3.0f, 4.0f, 1.0f, 0});
  EXPECT_THROW((void)terrain::find_seeds(one_spot, cpu_params()), InvalidInput);
  std::vector<Point> line(500);
  for (std::size_t i = 0; i < line.size(); ++i) line[i] = {static_cast<float>(i), 2.0f, 0.0f, 0};
  EXPECT_THROW((void)terrain::find_seeds(line, cpu_params()), InvalidInput);
  EXPECT_THROW((void)terrain::find_seeds({}, cpu_params()), InvalidInput);
  const std::vector<Point> pts = test::terrain_points(100, 60.0, 0.0, 1);
  const std::vector<std::uint8_t> short_mask(10, 0);
  EXPECT_THROW((void)terrain::find_seeds(pts, cpu_params(), short_mask), InvalidInput);
  const std::vector<std::uint8_t> all_skipped(pts.size(), 1);
  EXPECT_THROW((void)terrain::find_seeds(pts, cpu_params(), all_skipped), InvalidInput);
}

TEST(TerrainDtm, PlaneIsReproducedAndClassified) {
  if (!terrain::dtm_available()) GTEST_SKIP() << "built without CGAL";
  // Points on a tilted plane and, over part of it, a roof 6 m up.
  std::vector<Point> pts;
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(0.0f, 100.0f);
  const auto plane = [](double x, double y) { return 0.05 * x - 0.02 * y + 3.0; };
  for (int i = 0; i < 20000; ++i) {
    const float x = u(rng), y = u(rng);
    const bool roof = x > 40 && x < 55 && y > 40 && y < 52;
    pts.push_back({x, y, static_cast<float>(plane(x, y) + (roof ? 6.0 : 0.0)), 0});
  }
  GroundParams p = cpu_params();
  p.refine = 0;  // the TIN alone is linear, so exact on a plane
  const terrain::GroundResult r = terrain::ground(pts, p);
  ASSERT_GT(r.dtm.width, 90u);
  std::size_t checked = 0;
  for (std::uint32_t row = 0; row < r.dtm.height; ++row) {
    for (std::uint32_t col = 0; col < r.dtm.width; ++col) {
      const float v = r.dtm.at(row, col);
      if (std::isnan(v)) continue;
      const double x = r.dtm.x0 + (col + 0.5) * r.dtm.cell;
      const double y = r.dtm.y0 - (row + 0.5) * r.dtm.cell;
      if (x < 10 || y < 10 || x > 90 || y > 90) continue;  // hull edges: extended values
      EXPECT_NEAR(v, plane(x, y), 1e-3) << row << "," << col;
      ++checked;
    }
  }
  EXPECT_GT(checked, 6000u);
  EXPECT_EQ(r.dtm_stats.nodata, 0u);
  std::size_t wrong = 0, first_wrong = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const bool roof = pts[i].z > plane(pts[i].x, pts[i].y) + 1.0;
    const bool inner = pts[i].x > 10 && pts[i].y > 10 && pts[i].x < 90 && pts[i].y < 90;
    if (inner && r.ground[i] != (roof ? 0 : 1) && wrong++ == 0) first_wrong = i;
  }
  EXPECT_EQ(wrong, 0u) << "first: point " << first_wrong << " at " << pts[first_wrong].x << ", "
                       << pts[first_wrong].y << ", " << pts[first_wrong].z << ": dtm "
                       << terrain::dtm_height(r.dtm, pts[first_wrong].x, pts[first_wrong].y);
  EXPECT_EQ(r.dtm_stats.vertices, r.seeds.indices.size());
  EXPECT_NEAR(terrain::dtm_height(r.dtm, 30.2, 70.9), plane(30.2, 70.9), 1e-3);
  EXPECT_TRUE(std::isnan(terrain::dtm_height(r.dtm, -50.0, 20.0)));
  // Refined, a cell holds the mean height of its ground points: the plane at their mean
  // position, within |gradient| x half a diagonal (0.038 m) of its centre.
  p.refine = 1;
  const terrain::GroundResult refined = terrain::ground(pts, p);
  EXPECT_GT(refined.dtm_stats.refined, 8000u);  // 2 points per cell: 86% hold one
  for (std::uint32_t row = 10; row < 90; ++row) {
    for (std::uint32_t col = 10; col < 90; ++col) {
      const double x = refined.dtm.x0 + (col + 0.5) * refined.dtm.cell;
      const double y = refined.dtm.y0 - (row + 0.5) * refined.dtm.cell;
      const bool roof = x > 39 && x < 56 && y > 39 && y < 53;
      if (!roof) {
        EXPECT_NEAR(refined.dtm.at(row, col), plane(x, y), 0.04) << row << "," << col;
      }
    }
  }
  std::size_t refined_wrong = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const bool roof = pts[i].z > plane(pts[i].x, pts[i].y) + 1.0;
    const bool inner = pts[i].x > 10 && pts[i].y > 10 && pts[i].x < 90 && pts[i].y < 90;
    refined_wrong += inner && refined.ground[i] != (roof ? 0 : 1);
  }
  EXPECT_EQ(refined_wrong, 0u);
}

TEST(TerrainDtm, NoSeedsOrBadCellIsRefused) {
  if (!terrain::dtm_available()) GTEST_SKIP() << "built without CGAL";
  const std::vector<Point> pts = test::terrain_points(100, 60.0, 0.0, 1);
  terrain::Seeds none;
  EXPECT_THROW((void)terrain::make_dtm(pts, none, cpu_params()), InvalidInput);
  terrain::Seeds one;
  one.indices = {5};
  one.extent = {0, 0, 60, 60};
  GroundParams p = cpu_params();
  p.dtm_cell = 0.0;
  EXPECT_THROW((void)terrain::make_dtm(pts, one, p), InvalidInput);
  p.dtm_cell = 1e-6;  // 6e7 x 6e7 cells
  EXPECT_THROW((void)terrain::make_dtm(pts, one, p), InvalidInput);
}

TEST(TerrainClassify, RefusesABadRasterOrMask) {
  const std::vector<Point> pts = test::terrain_points(100, 60.0, 0.0, 1);
  terrain::Raster empty;
  EXPECT_THROW((void)terrain::classify(pts, empty, cpu_params()), InvalidInput);
  terrain::Raster r;
  r.width = 2;
  r.height = 2;
  r.values = {1, 2, 3};
  EXPECT_THROW((void)terrain::classify(pts, r, cpu_params()), InvalidInput);
}

TEST(TerrainClassify, BilinearHeightSkipsNoData) {
  terrain::Raster r;
  r.width = 2;
  r.height = 2;
  r.x0 = 0.0;
  r.y0 = 2.0;
  r.cell = 1.0;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  r.values = {1.0f, 3.0f, 5.0f, nan};  // row 0 north: (0.5, 1.5) = 1, (1.5, 1.5) = 3
  EXPECT_DOUBLE_EQ(terrain::dtm_height(r, 0.5, 1.5), 1.0);
  EXPECT_DOUBLE_EQ(terrain::dtm_height(r, 1.0, 1.5), 2.0);
  EXPECT_DOUBLE_EQ(terrain::dtm_height(r, 0.5, 1.0), 3.0);
  // Centre of the four: three have values, weights 1/4 each, renormalised.
  EXPECT_DOUBLE_EQ(terrain::dtm_height(r, 1.0, 1.0), 3.0);
  EXPECT_TRUE(std::isnan(terrain::dtm_height(r, 1.5, 0.5)));
}

}  // namespace
}  // namespace simlod

namespace simlod {
namespace {

TEST(TerrainRefine, CellsTakeTheMeanOfTheirGroundPoints) {
  terrain::Raster r;
  r.width = 2;
  r.height = 2;
  r.x0 = 0.0;
  r.y0 = 2.0;
  r.values = {5.0f, 5.0f, 5.0f, 5.0f};
  // Cell (row 0, col 0) is x in [0, 1), y in [1, 2).
  const std::vector<Point> pts = {{0.2f, 1.5f, 1.0f, 0},
                                  {0.7f, 1.2f, 2.0f, 0},
                                  {0.5f, 1.5f, 10.0f, 0},
                                  {1.5f, 0.5f, 7.0f, 0},
                                  {-3.0f, 0.5f, 1.0f, 0}};
  const std::vector<std::uint8_t> ground = {1, 1, 0, 0, 1};
  std::uint64_t refined = 0;
  const terrain::Raster out = terrain::refine_dtm(pts, r, ground, cpu_params(), &refined);
  EXPECT_EQ(refined, 1u);
  EXPECT_FLOAT_EQ(out.at(0, 0), 1.5f);
  // The one correction (1.5 - 5) spreads to every other cell.
  EXPECT_FLOAT_EQ(out.at(1, 1), 1.5f);
  EXPECT_FLOAT_EQ(out.at(0, 1), 1.5f);
  const std::vector<std::uint8_t> short_flags(2, 1);
  EXPECT_THROW((void)terrain::refine_dtm(pts, r, short_flags, cpu_params()), InvalidInput);
  terrain::Raster bad = r;
  bad.cell = 0.0;
  EXPECT_THROW((void)terrain::refine_dtm(pts, bad, ground, cpu_params()), InvalidInput);
}

}  // namespace
}  // namespace simlod

namespace simlod {
namespace {

TEST(TerrainSeeds, SyntheticSceneEqualsBruteForce) {
  // A small piece of the synthetic scene (buildings, trees, a lake), in scan order.
  synth::SceneConfig config;
  config.points = 6000;
  config.extent = 120.0;
  synth::Generator gen(config);
  std::vector<Point> pts(config.points);
  ASSERT_EQ(gen.next(pts), pts.size());
  GroundParams p = cpu_params();
  p.window = 8.0;
  p.gap_cell = 12.0;
  EXPECT_TRUE(test::same_seeds(terrain::find_seeds(pts, p).indices, test::brute_seeds(pts, p)));
}

}  // namespace
}  // namespace simlod

namespace simlod {
namespace {

/// Seeds every 2 m on a plane over 100 x 100, a 12 x 12 block of them lifted by `roof` (a
/// building's roof) and a 40 x 40 block by `plateau` (wider than B = 20).
std::vector<Point> seeded_plane(float roof, float plateau, terrain::Seeds& seeds) {
  std::vector<Point> pts;
  for (int j = 0; j <= 50; ++j) {
    for (int i = 0; i <= 50; ++i) {
      const float x = 2.0f * i, y = 2.0f * j;
      float z = 0.01f * x;
      if (x >= 20 && x < 32 && y >= 20 && y < 32) z += roof;
      if (x >= 50 && x < 90 && y >= 50 && y < 90) z += plateau;
      seeds.indices.push_back(static_cast<std::uint32_t>(pts.size()));
      pts.push_back({x, y, z, 0});
    }
  }
  seeds.extent = {0, 0, 100, 100};
  return pts;
}

TEST(TerrainDtm, ObjectFilterLeavesRoofsOutAndPlateausIn) {
  if (!terrain::dtm_available()) GTEST_SKIP() << "built without CGAL";
  terrain::Seeds seeds;
  const std::vector<Point> pts = seeded_plane(6.0f, 8.0f, seeds);
  GroundParams p = cpu_params();
  terrain::DtmStats s;
  const terrain::Raster dtm = terrain::make_dtm(pts, seeds, p, &s);
  EXPECT_EQ(s.objects, 1u);
  EXPECT_EQ(s.object_vertices, 36u);                              // 6 x 6 seeds on the roof
  EXPECT_NEAR(terrain::dtm_height(dtm, 25.0, 25.0), 0.25, 1e-3);  // the plane under the roof
  EXPECT_NEAR(terrain::dtm_height(dtm, 70.0, 70.0), 8.7, 1e-3);   // the plateau stays
  p.object_step = 0.0;
  const terrain::Raster all = terrain::make_dtm(pts, seeds, p, &s);
  EXPECT_EQ(s.objects, 0u);
  EXPECT_NEAR(terrain::dtm_height(all, 25.0, 25.0), 6.25, 1e-3);
  p.object_step = 7.0;  // the roof's step is lower than that: it stays
  (void)terrain::make_dtm(pts, seeds, p, &s);
  EXPECT_EQ(s.objects, 0u);
}

TEST(TerrainRefine, CorrectionsSpreadFromTheCellsSetNearestFirst) {
  // A row of 9 cells at height 0; ground points set cell 0 to +1 and cell 8 to -1. Cell 4 has
  // no value (it keeps none), the others move by the corrections around them: the correction
  // falls from +1 to -1 along the row, within their range. (The pyramid blends the two more
  // on the side of the odd cell: cell 7 takes -0.16, cell 1 +0.97.)
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const terrain::Raster r{
      .width = 9, .height = 1, .y0 = 1.0, .values = {0, 0, 0, 0, nan, 0, 0, 0, 0}};
  const std::vector<Point> pts = {{0.5f, 0.5f, 1.0f, 0}, {8.5f, 0.5f, -1.0f, 0}};
  const std::vector<std::uint8_t> ground = {1, 1};
  std::uint64_t refined = 0;
  const terrain::Raster out = terrain::refine_dtm(pts, r, ground, cpu_params(), &refined);
  EXPECT_EQ(refined, 2u);
  EXPECT_FLOAT_EQ(out.at(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(out.at(0, 8), -1.0f);
  EXPECT_TRUE(std::isnan(out.at(0, 4)));
  EXPECT_GT(out.at(0, 1), 0.5f);
  EXPECT_LT(out.at(0, 7), 0.0f);
  for (std::uint32_t c = 1; c < 8; ++c) {
    if (c == 4 || c + 1 == 4) continue;
    EXPECT_GE(out.at(0, c), out.at(0, c + 1)) << "cell " << c;
  }
  EXPECT_GE(out.at(0, 3), out.at(0, 5));
  for (std::uint32_t c = 0; c < 9; ++c) {
    if (c == 4) continue;
    EXPECT_LE(out.at(0, c), 1.0f);
    EXPECT_GE(out.at(0, c), -1.0f);
  }
  // Nothing set: the raster is unchanged.
  const std::vector<std::uint8_t> none = {0, 0};
  const terrain::Raster same = terrain::refine_dtm(pts, r, none, cpu_params(), &refined);
  EXPECT_EQ(refined, 0u);
  for (std::uint32_t c = 0; c < 9; ++c) {
    if (c == 4) continue;
    EXPECT_EQ(same.at(0, c), 0.0f);
  }
}

}  // namespace
}  // namespace simlod
