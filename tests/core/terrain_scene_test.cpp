// Ground classification against the synthetic scene's ground truth (CPU backend): seeds are
// terrain, ground flags match the labels, and the DTM follows the generator's terrain.
// - With the scene's parameters (B = 50 m, above the town's largest building, 48 m; windows of
//   20 m, above most of its buildings; 16 refinement passes for the sparser seeds), the issue's
//   targets: >= 98% of seeds terrain, ground precision and recall >= 95%, the DTM within 0.2 m
//   on >= 95% of open-ground cells.
// - With the paper's defaults (w = 10, B = 20), windows that lie wholly on the town's larger
//   roofs take roof points (the method's seeds): about 95% of the seeds are terrain; the flags
//   and the DTM still meet the targets. docs/terrain.md ("Quality") has the measured values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "simlod/synth.hpp"
#include "simlod/terrain.hpp"

namespace simlod {
namespace {

bool terrain_class(std::uint8_t c) { return c == 2 || c == 9; }

struct Quality {
  double seeds = 0.0, precision = 0.0, recall = 0.0, dtm = 0.0;
};

struct TerrainScene {
  synth::Generator gen{{.points = 3'000'000}};  // 3 points per square metre over 1 km^2
  std::vector<Point> points;
  std::vector<std::uint8_t> classes;
};

const TerrainScene& scene() {
  static const TerrainScene s = [] {
    TerrainScene t;
    t.points.resize(3'000'000);
    t.classes.resize(t.points.size());
    EXPECT_EQ(t.gen.next(t.points, t.classes), t.points.size());
    return t;
  }();
  return s;
}

Quality quality(const terrain::GroundParams& params) {
  const TerrainScene& s = scene();
  const terrain::GroundResult r = terrain::ground(s.points, params);
  Quality q;
  std::size_t terrain_seeds = 0;
  for (std::uint32_t i : r.seeds.indices) terrain_seeds += terrain_class(s.classes[i]);
  q.seeds = static_cast<double>(terrain_seeds) / r.seeds.indices.size();

  std::uint64_t tp = 0, fp = 0, fn = 0;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const bool truth = terrain_class(s.classes[i]);
    const bool flag = r.ground[i] != 0;
    tp += truth && flag;
    fp += !truth && flag;
    fn += truth && !flag;
  }
  q.precision = static_cast<double>(tp) / (tp + fp);
  q.recall = static_cast<double>(tp) / (tp + fn);

  // Open ground: DTM cells whose points are all ground (no water, roof, tree or sculpture).
  const terrain::Raster& d = r.dtm;
  std::vector<std::int8_t> open(d.values.size(), -1);  // -1 no point, 0 other, 1 ground only
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const Point& p = s.points[i];
    const double col = std::floor((p.x - d.x0) / d.cell);
    const double row = std::floor((d.y0 - p.y) / d.cell);
    if (col < 0 || row < 0 || col >= d.width || row >= d.height) continue;
    std::int8_t& o = open[static_cast<std::size_t>(row) * d.width + static_cast<std::size_t>(col)];
    o = (s.classes[i] == 2 && o != 0) ? 1 : 0;
  }
  std::size_t cells = 0, close = 0;
  for (std::uint32_t row = 0; row < d.height; ++row) {
    for (std::uint32_t col = 0; col < d.width; ++col) {
      if (open[std::size_t{row} * d.width + col] != 1) continue;
      const double x = d.x0 + (col + 0.5) * d.cell;
      const double y = d.y0 - (row + 0.5) * d.cell;
      ++cells;
      close += std::abs(d.at(row, col) - s.gen.ground_height(x, y)) <= 0.2;
    }
  }
  EXPECT_GT(cells, 100'000u);
  q.dtm = static_cast<double>(close) / cells;
  std::printf(
      "terrain scene, w %g B %g, %u passes: seeds %.4f terrain, precision %.4f, recall %.4f, DTM "
      "within 0.2 m on %.4f of %zu open cells\n",
      params.window, params.gap_cell, params.refine, q.seeds, q.precision, q.recall, q.dtm, cells);
  return q;
}

void record(const Quality& q) {
  ::testing::Test::RecordProperty("seed_share", std::to_string(q.seeds));
  ::testing::Test::RecordProperty("precision", std::to_string(q.precision));
  ::testing::Test::RecordProperty("recall", std::to_string(q.recall));
  ::testing::Test::RecordProperty("dtm_within_0_2", std::to_string(q.dtm));
}

TEST(TerrainScene, TheScenesParametersMeetTheTargets) {
  if (!terrain::dtm_available()) GTEST_SKIP() << "built without CGAL";
  terrain::GroundParams params;
  params.backend = Backend::Cpu;
  params.window = 20.0;
  params.gap_cell = 50.0;
  params.refine = 16;
  const Quality q = quality(params);
  EXPECT_GE(q.seeds, 0.98);
  EXPECT_GE(q.precision, 0.95);
  EXPECT_GE(q.recall, 0.95);
  EXPECT_GE(q.dtm, 0.95);
  record(q);
}

TEST(TerrainScene, ThePapersDefaultsTakeRoofSeedsButFlagTheGround) {
  if (!terrain::dtm_available()) GTEST_SKIP() << "built without CGAL";
  terrain::GroundParams params;
  params.backend = Backend::Cpu;
  const Quality q = quality(params);
  EXPECT_GE(q.seeds, 0.94);
  EXPECT_LT(q.seeds, 0.98);  // roofs larger than a window: the paper's seeds hold them
  EXPECT_GE(q.precision, 0.95);
  EXPECT_GE(q.recall, 0.95);
  EXPECT_GE(q.dtm, 0.95);
  record(q);
}

}  // namespace
}  // namespace simlod
