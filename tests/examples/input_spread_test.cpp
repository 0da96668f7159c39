// The demo's warning about inputs far apart: adjacent tiles never trigger it, distant ones do.
#include "common/input_spread.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

simlod::FileInfo tile(double x, double y, double size) {
  simlod::FileInfo f;
  f.point_count = 1000;
  f.bounds.expand(x, y, 0.0);
  f.bounds.expand(x + size, y + size, 10.0);
  return f;
}

TEST(InputSpread, AdjacentTilesAreFineDistantOnesWarn) {
  std::vector<simlod::FileInfo> tiles;
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) tiles.push_back(tile(500.0 * i, 500.0 * j, 500.0));
  }
  EXPECT_FALSE(simlod::examples::far_apart_warning(tiles));
  // A line of tiles: the union spans exactly the sum of the tiles.
  std::vector<simlod::FileInfo> line;
  for (int i = 0; i < 20; ++i) line.push_back(tile(500.0 * i, 0.0, 500.0));
  EXPECT_FALSE(simlod::examples::far_apart_warning(line));
  // Two surveys 6,000 km apart.
  const std::vector<simlod::FileInfo> far{tile(0.0, 0.0, 1000.0), tile(6.0e6, 1.0e5, 1000.0)};
  const auto w = simlod::examples::far_apart_warning(far);
  ASSERT_TRUE(w);
  EXPECT_NE(w->find("lie far apart"), std::string::npos) << *w;
  EXPECT_NE(w->find("span 6001000 units"), std::string::npos) << *w;
  // One file, or files without points, never warn.
  EXPECT_FALSE(simlod::examples::far_apart_warning(std::vector{far[0]}));
  std::vector<simlod::FileInfo> empty(2);
  EXPECT_FALSE(simlod::examples::far_apart_warning(empty));
}

}  // namespace
