#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"

namespace simlod {
namespace {

TEST(Point, IsTheSixteenByteSimRecord) {
  static_assert(sizeof(Point) == 16);
  static_assert(std::is_trivially_copyable_v<Point>);
  Point p{1.0f, 2.0f, 3.0f, pack_rgba(10, 20, 30, 40)};
  unsigned char raw[16];
  std::memcpy(raw, &p, sizeof raw);
  // SIM: float x, y, z then uint8 r, g, b, a (little-endian).
  EXPECT_EQ(raw[12], 10);
  EXPECT_EQ(raw[13], 20);
  EXPECT_EQ(raw[14], 30);
  EXPECT_EQ(raw[15], 40);
  float y;
  std::memcpy(&y, raw + 4, 4);
  EXPECT_EQ(y, 2.0f);
}

TEST(Point, ChannelAccessorsInvertPacking) {
  const auto c = pack_rgba(255, 1, 128);
  EXPECT_EQ(red_of(c), 255u);
  EXPECT_EQ(green_of(c), 1u);
  EXPECT_EQ(blue_of(c), 128u);
  EXPECT_EQ(alpha_of(c), 255u);
  EXPECT_EQ(pack_rgba(256 + 7, 0, 0, 0), 7u) << "channels are masked to 8 bits";
}

TEST(Bounds, StartsEmptyAndGrows) {
  Bounds b;
  EXPECT_TRUE(b.empty());
  b.expand(1, 2, 3);
  EXPECT_FALSE(b.empty());
  b.expand(-1, 5, 0);
  EXPECT_EQ(b.min, (std::array<double, 3>{-1, 2, 0}));
  EXPECT_EQ(b.max, (std::array<double, 3>{1, 5, 3}));
  EXPECT_TRUE(b.contains(0, 3, 1));
  EXPECT_FALSE(b.contains(0, 6, 1));
  EXPECT_EQ(b.center(), (std::array<double, 3>{0, 3.5, 1.5}));
}

TEST(Bounds, CubeKeepsMinimumAndUsesLongestEdge) {
  Bounds b;
  b.expand(10, 20, 30);
  b.expand(14, 21, 31);
  const Bounds c = b.cube();
  EXPECT_EQ(c.min, b.min);
  EXPECT_EQ(c.size(), (std::array<double, 3>{4, 4, 4}));
  EXPECT_TRUE(c.contains(14, 21, 31));
}

TEST(Bounds, MergingAnEmptyBoxChangesNothing) {
  Bounds a;
  a.expand(0, 0, 0);
  const Bounds before = a;
  a.expand(Bounds{});
  EXPECT_EQ(a, before);
}

}  // namespace
}  // namespace simlod
