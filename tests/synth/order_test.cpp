// The two orders: same multiset, Morton locality, scan strips and sweep lines.
#include "synth/order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "synth/stream.hpp"
#include "synth/tuning.hpp"
#include "synth_test_util.hpp"

namespace simlod::synth {
namespace {

using test::generate;

TEST(SynthOrder, BothOrdersGiveTheSameMultiset) {
  const std::vector<Point> scan = generate({.points = 200'000, .seed = 21, .order = Order::Scan});
  const std::vector<Point> morton =
      generate({.points = 200'000, .seed = 21, .order = Order::Morton});
  EXPECT_FALSE(test::identical(scan, morton));  // different sequences ...
  EXPECT_TRUE(test::identical(test::sorted(scan), test::sorted(morton)));  // ... same points
}

TEST(SynthOrder, MultisetAlsoMatchesWithManyTiles) {
  // Scan units are groups of tile rows; Morton units single tiles: still the same points.
  const SceneConfig scan{.points = 80'000, .seed = 8, .order = Order::Scan};
  SceneConfig morton = scan;
  morton.order = Order::Morton;
  detail::PointStream a(scan, 3'000);
  detail::PointStream b(morton, 3'000);
  ASSERT_GE(a.plan().level(), 3);
  EXPECT_TRUE(test::identical(test::sorted(test::drain(a)), test::sorted(test::drain(b))));
}

TEST(SynthOrder, MortonOrderIsLocal) {
  const std::vector<Point> scan = generate({.points = 200'000, .seed = 5, .order = Order::Scan});
  const std::vector<Point> morton =
      generate({.points = 200'000, .seed = 5, .order = Order::Morton});
  const double scan_step = test::mean_step(scan);
  const double morton_step = test::mean_step(morton);
  EXPECT_LT(morton_step * 2.0, scan_step) << morton_step << " vs " << scan_step;
  // A batch of 1% of the points covers a compact block in Morton order, a long thin slice
  // across the strip in scan order.
  const double scan_batch = test::mean_batch_diagonal(scan, 2000);
  const double morton_batch = test::mean_batch_diagonal(morton, 2000);
  EXPECT_LT(morton_batch * 3.0, scan_batch) << morton_batch << " vs " << scan_batch;
}

TEST(SynthOrder, MortonCodesAscendWithinEachTile) {
  const SceneConfig config{.points = 100'000, .seed = 13, .order = Order::Morton};
  detail::PointStream stream(config, 15'000);
  const detail::TilePlan& plan = stream.plan();
  ASSERT_GE(plan.level(), 3);
  const std::vector<Point> points = test::drain(stream);
  const Bounds cube = stream.bounds().cube();
  const double scale = static_cast<double>(1u << 21) / (cube.max[0] - cube.min[0]);
  auto code3 = [&](const Point& p) {
    auto q = [&](double v, double lo) {
      return static_cast<std::uint32_t>(std::clamp((v - lo) * scale, 0.0, 2097151.0));
    };
    return detail::morton3(q(p.x, cube.min[0]), q(p.y, cube.min[1]), q(p.z, cube.min[2]));
  };
  auto code2 = [](const Point& p) {  // 2D Morton code at 2^16 cells per side
    std::uint64_t code = 0;
    const auto cx = static_cast<std::uint32_t>(std::clamp(p.x / 1000.0 * 65536, 0.0, 65535.0));
    const auto cy = static_cast<std::uint32_t>(std::clamp(p.y / 1000.0 * 65536, 0.0, 65535.0));
    for (int bit = 0; bit < 16; ++bit) {
      code |= std::uint64_t{(cx >> bit) & 1u} << (2 * bit);
      code |= std::uint64_t{(cy >> bit) & 1u} << (2 * bit + 1);
    }
    return code;
  };
  const std::uint32_t side = plan.tiles_per_side();
  const double tile = 1000.0 / side;
  std::size_t first = 0;
  std::size_t descents = 0;
  std::size_t inside = 0;
  double last_median = -1.0;
  for (std::uint64_t m = 0; m < plan.tile_count(); ++m) {
    std::uint32_t tx = 0;
    std::uint32_t ty = 0;
    detail::morton2_decode(m, tx, ty);
    const std::size_t n = plan.budget(ty * side + tx);
    if (n == 0) continue;
    std::vector<double> codes2;
    for (std::size_t i = first; i < first + n; ++i) {
      const Point& p = points[i];
      if (i > first && code3(p) < code3(points[i - 1])) ++descents;
      const bool in = p.x >= tx * tile - 0.01 && p.x <= (tx + 1) * tile + 0.01 &&
                      p.y >= ty * tile - 0.01 && p.y <= (ty + 1) * tile + 0.01;
      inside += in ? 1 : 0;
      codes2.push_back(static_cast<double>(code2(p)));
    }
    std::nth_element(codes2.begin(), codes2.begin() + codes2.size() / 2, codes2.end());
    const double median = codes2[codes2.size() / 2];
    EXPECT_GT(median, last_median) << "tile " << m;
    last_median = median;
    first += n;
  }
  ASSERT_EQ(first, points.size());
  // Float rounding of coordinates next to a code boundary may swap a few neighbours.
  EXPECT_LT(descents, points.size() / 1000);
  // Surface pieces belong to the tile of their centre, so a few points stick out a little.
  EXPECT_GT(inside, points.size() * 95 / 100);
}

TEST(SynthOrder, ScanFliesAlternatingStripsOfTileRows) {
  const SceneConfig config{.points = 100'000, .seed = 3, .order = Order::Scan};
  detail::PointStream stream(config, 15'000);
  const detail::TilePlan& plan = stream.plan();
  ASSERT_GE(plan.level(), 3);
  const std::vector<Point> points = test::drain(stream);
  const std::uint32_t side = plan.tiles_per_side();
  const double tile = 1000.0 / side;
  std::size_t first = 0;
  for (std::uint32_t row = 0; row < side; ++row) {
    std::size_t n = 0;
    for (std::uint32_t tx = 0; tx < side; ++tx) n += plan.budget(row * side + tx);
    std::size_t in_strip = 0;
    double x_head = 0.0;
    double x_tail = 0.0;
    for (std::size_t i = first; i < first + n; ++i) {
      in_strip += (points[i].y >= row * tile - 2.0 && points[i].y <= (row + 1) * tile + 2.0);
      (i < first + n / 4 ? x_head : x_tail) += points[i].x;
    }
    EXPECT_GT(in_strip, n * 95 / 100) << "strip " << row;
    x_head /= static_cast<double>(n / 4);
    x_tail /= static_cast<double>(n - n / 4);
    // Even strips fly towards +x, odd ones back.
    if (row % 2 == 0) {
      EXPECT_LT(x_head, x_tail) << "strip " << row;
    } else {
      EXPECT_GT(x_head, x_tail) << "strip " << row;
    }
    first += n;
  }
  EXPECT_EQ(first, points.size());
}

TEST(SynthOrder, ScanSweepsLinesAcrossTheStrip) {
  // 200k points make one strip over the whole scene: a sweep line is a few metres wide and
  // 1000 m long, and the channels' points interleave.
  const std::vector<Point> points =
      test::generate({.points = 200'000, .seed = 3, .order = Order::Scan});
  double along = 0.0;
  double across = 0.0;
  constexpr std::size_t kBatch = 400;
  for (std::size_t first = 0; first + kBatch <= points.size(); first += kBatch) {
    Bounds box;
    for (std::size_t i = first; i < first + kBatch; ++i) {
      box.expand(points[i].x, points[i].y, points[i].z);
    }
    along += box.size()[0];
    across += box.size()[1];
  }
  EXPECT_LT(along * 20.0, across) << along << " vs " << across;
  // Consecutive points mostly jump between channels' segments, across the strip.
  EXPECT_GT(test::mean_step(points), 1000.0 / detail::kScanChannels / 4);
}

}  // namespace
}  // namespace simlod::synth
