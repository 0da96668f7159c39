// What the scene looks like: colours, surfaces, density variation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>
#include <vector>

#include "synth/stream.hpp"
#include "synth_test_util.hpp"

namespace simlod::synth {
namespace {

TEST(SynthContent, ColoursArePlausibleAndVaried) {
  const std::vector<Point> points = test::generate({.points = 100'000, .seed = 6});
  std::unordered_set<std::uint32_t> distinct;
  std::size_t green = 0;
  std::size_t grey = 0;
  std::size_t vivid = 0;  // sculpture, autumn trees, roof tiles
  for (const Point& p : points) {
    distinct.insert(p.rgba);
    const int r = static_cast<int>(red_of(p.rgba));
    const int g = static_cast<int>(green_of(p.rgba));
    const int b = static_cast<int>(blue_of(p.rgba));
    green += (g > r + 10 && g > b + 10) ? 1 : 0;
    grey += (std::abs(r - g) < 12 && std::abs(g - b) < 12) ? 1 : 0;
    vivid += (std::max({r, g, b}) - std::min({r, g, b}) > 120) ? 1 : 0;
  }
  EXPECT_GT(distinct.size(), 5000u);
  EXPECT_GT(green, points.size() / 3);  // grass and trees dominate
  EXPECT_GT(grey, points.size() / 50);  // streets, flat roofs, walls
  EXPECT_GT(vivid, points.size() / 200);
}

TEST(SynthContent, MostPointsLieOnTheTerrainSurface) {
  detail::PointStream stream({.points = 100'000, .seed = 12});
  const detail::Terrain& terrain = stream.scene().terrain;
  std::size_t on_ground = 0;
  std::size_t above = 0;
  for (const Point& p : test::drain(stream)) {
    const double dz = p.z - terrain.surface(p.x, p.y);
    on_ground += std::abs(dz) < 0.05 ? 1 : 0;
    above += dz > 1.0 ? 1 : 0;
  }
  EXPECT_GT(on_ground, 50'000u);  // open ground, streets, water
  EXPECT_GT(above, 8'000u);       // buildings, trees, the sculpture
}

TEST(SynthContent, PointsFormSurfacesNotVolumes) {
  // Halving the voxel size multiplies occupied voxels by about 4 for surfaces, 8 for volumes.
  const std::vector<Point> points = test::generate({.points = 400'000, .seed = 1});
  auto occupied = [&](double size) {
    std::set<std::tuple<int, int, int>> cells;
    for (const Point& p : points) {
      cells.emplace(static_cast<int>(std::floor(p.x / size)),
                    static_cast<int>(std::floor(p.y / size)),
                    static_cast<int>(std::floor(p.z / size)));
    }
    return static_cast<double>(cells.size());
  };
  const double ratio = occupied(8.0) / occupied(16.0);
  EXPECT_GT(ratio, 3.0);
  EXPECT_LT(ratio, 5.5);
}

TEST(SynthContent, DensityVariesLikeASurvey) {
  const std::vector<Point> points = test::generate({.points = 200'000, .seed = 4});
  constexpr int kCells = 32;
  std::vector<std::size_t> histogram(kCells * kCells, 0);
  for (const Point& p : points) {
    const int cx = std::clamp(static_cast<int>(p.x / 1000.0 * kCells), 0, kCells - 1);
    const int cy = std::clamp(static_cast<int>(p.y / 1000.0 * kCells), 0, kCells - 1);
    ++histogram[static_cast<std::size_t>(cy * kCells + cx)];
  }
  std::sort(histogram.begin(), histogram.end());
  const double median = static_cast<double>(histogram[histogram.size() / 2]);
  const double top = static_cast<double>(histogram.back());
  const double low = static_cast<double>(histogram[histogram.size() / 50]);  // 2nd percentile
  EXPECT_GT(top / median, 8.0);          // the scanned sculpture
  EXPECT_GT(median / (low + 1.0), 3.0);  // water and sparsely covered patches
}

}  // namespace
}  // namespace simlod::synth
