// The generator's contract: exact counts, determinism, batch-size and thread-count
// independence, bounds, and configuration errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "simlod/error.hpp"
#include "simlod/synth.hpp"
#include "synth/parallel.hpp"
#include "synth_test_util.hpp"

namespace simlod::synth {
namespace {

using test::drain;
using test::generate;
using test::identical;

TEST(SynthGenerator, SameConfigGivesTheSameSequence) {
  for (Order order : {Order::Scan, Order::Morton}) {
    const SceneConfig config{.points = 150'000, .seed = 7, .order = order};
    EXPECT_TRUE(identical(generate(config), generate(config)));
  }
}

TEST(SynthGenerator, BatchSizeDoesNotChangeTheSequence) {
  for (Order order : {Order::Scan, Order::Morton}) {
    const SceneConfig config{.points = 40'000, .seed = 3, .order = order};
    const std::vector<Point> reference = generate(config, 1'000'000);
    EXPECT_TRUE(identical(generate(config, 1), reference));
    EXPECT_TRUE(identical(generate(config, 7), reference));
    // Irregular batch sizes, including empty spans.
    Generator gen(config);
    std::vector<Point> all;
    std::vector<Point> buf(5000);
    for (std::size_t call = 0; gen.points_left() > 0; ++call) {
      const std::size_t want = (call * 2654435761u) % 4999;
      const std::size_t got = gen.next(std::span(buf).first(want));
      EXPECT_EQ(got, std::min<std::uint64_t>(want, got + gen.points_left()));
      all.insert(all.end(), buf.begin(), buf.begin() + got);
      EXPECT_EQ(gen.points_generated(), all.size());
    }
    EXPECT_TRUE(identical(all, reference));
  }
}

TEST(SynthGenerator, TheSceneIsTheSameWithEveryCompiler) {
  // FNV-1a of the first 100,000 scan-order points (the record bytes), as GCC 12 and Clang 14
  // build it: a draw inside a call's arguments (unspecified order) once made Clang's scene
  // differ from GCC's.
  Generator gen({.points = 100'000, .seed = 1, .order = Order::Scan});
  std::vector<Point> points(100'000);
  ASSERT_EQ(gen.next(points), points.size());
  std::uint64_t h = 1469598103934665603ull;
  for (const Point& p : points) {
    unsigned char bytes[sizeof(Point)];
    std::memcpy(bytes, &p, sizeof(Point));
    for (const unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
  }
  EXPECT_EQ(h, 0x7354d67325f68120ull);
}

TEST(SynthGenerator, ThreadsSettingDoesNotChangeThePoints) {
  auto run = [](unsigned threads) {
    Generator gen({.points = 60'000, .seed = 11, .order = Order::Morton, .threads = threads});
    std::vector<Point> out(60'000);
    EXPECT_EQ(gen.next(out), out.size());
    return out;
  };
  const std::vector<Point> one = run(1);
  EXPECT_TRUE(identical(run(3), one));
  EXPECT_TRUE(identical(run(0), one));
}

TEST(SynthGenerator, ThreadCountDoesNotChangeTheSequence) {
  // Small units force many tiles and several chunks at a small point count.
  const SceneConfig config{.points = 60'000, .seed = 11, .order = Order::Morton};
  auto run = [&](unsigned workers) {
    detail::set_worker_limit(workers);
    detail::PointStream stream(config, 5'000);
    std::vector<Point> points = drain(stream, 4096);
    detail::set_worker_limit(0);
    return points;
  };
  const std::vector<Point> one = run(1);
  EXPECT_TRUE(identical(run(5), one));
  EXPECT_TRUE(identical(run(0), one));
}

TEST(SynthGenerator, ProducesExactlyTheRequestedCount) {
  for (Order order : {Order::Scan, Order::Morton}) {
    for (std::uint64_t n : {0ull, 1ull, 2ull, 1000ull, 12345ull}) {
      Generator gen({.points = n, .seed = 5, .order = order});
      EXPECT_EQ(gen.points_left(), n);
      const std::vector<Point> all = drain(gen, 999);
      EXPECT_EQ(all.size(), n) << "order " << static_cast<int>(order);
      EXPECT_EQ(gen.points_left(), 0u);
      EXPECT_EQ(gen.points_generated(), n);
      std::vector<Point> more(10);
      EXPECT_EQ(gen.next(more), 0u);
    }
  }
}

TEST(SynthGenerator, PointsAreFiniteAndInsideBounds) {
  for (Order order : {Order::Scan, Order::Morton}) {
    Generator gen({.points = 200'000, .seed = 2, .order = order});
    const Bounds b = gen.bounds();
    EXPECT_EQ(b.min[0], 0.0);
    EXPECT_EQ(b.min[1], 0.0);
    EXPECT_GE(b.max[0], 1000.0);
    EXPECT_LE(b.max[0], 1000.001);
    EXPECT_LT(b.size()[2], 400.0);  // hills and towers, not mountains
    Bounds seen;
    for (const Point& p : drain(gen)) {
      ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
      ASSERT_TRUE(b.contains(p.x, p.y, p.z)) << p.x << " " << p.y << " " << p.z;
      ASSERT_EQ(alpha_of(p.rgba), 255u);
      seen.expand(p.x, p.y, p.z);
    }
    // The points fill the box sideways (it is not needlessly large).
    EXPECT_GT(seen.size()[0], 990.0);
    EXPECT_GT(seen.size()[1], 990.0);
    EXPECT_GT(seen.size()[2], 0.3 * b.size()[2]);
  }
}

TEST(SynthGenerator, SeedChangesTheScene) {
  const std::vector<Point> a = generate({.points = 20'000, .seed = 1});
  const std::vector<Point> b = generate({.points = 20'000, .seed = 2});
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i] ? 1 : 0;
  EXPECT_LT(same, a.size() / 100);
  EXPECT_FALSE(test::identical(test::sorted(a), test::sorted(b)));
}

TEST(SynthGenerator, ExtentScalesTheScene) {
  const std::vector<Point> full = generate({.points = 20'000, .seed = 4, .extent = 1000.0});
  const std::vector<Point> small = generate({.points = 20'000, .seed = 4, .extent = 10.0});
  ASSERT_EQ(full.size(), small.size());
  for (std::size_t i = 0; i < full.size(); ++i) {
    ASSERT_NEAR(small[i].x, full[i].x * 0.01f, 1e-4f);
    ASSERT_NEAR(small[i].y, full[i].y * 0.01f, 1e-4f);
    ASSERT_NEAR(small[i].z, full[i].z * 0.01f, 1e-4f);
    ASSERT_EQ(small[i].rgba, full[i].rgba);
  }
  const Bounds b = Generator({.points = 1, .extent = 10.0}).bounds();
  EXPECT_NEAR(b.max[0], 10.0, 1e-5);
}

TEST(SynthGenerator, ZeroPointsIsAnEmptyScene) {
  Generator gen({.points = 0});
  EXPECT_FALSE(gen.bounds().empty());
  std::vector<Point> buf(4);
  EXPECT_EQ(gen.next(buf), 0u);
}

TEST(SynthGenerator, RejectsBadConfiguration) {
  for (double extent : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity(), 1e-9, 1e12}) {
    EXPECT_THROW(Generator({.points = 10, .extent = extent}), InvalidInput) << extent;
  }
  EXPECT_THROW(Generator({.points = 10, .order = static_cast<Order>(9)}), InvalidInput);
  try {
    Generator gen({.points = 10, .extent = -5.0});
    FAIL();
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("extent"), std::string::npos) << e.what();
  }
}

TEST(SynthGenerator, MovesKeepTheStream) {
  Generator a({.points = 3000, .seed = 9});
  std::vector<Point> first(1000);
  ASSERT_EQ(a.next(first), 1000u);
  Generator b(std::move(a));
  EXPECT_EQ(b.points_left(), 2000u);
  std::vector<Point> rest = drain(b);
  first.insert(first.end(), rest.begin(), rest.end());
  EXPECT_TRUE(identical(first, generate({.points = 3000, .seed = 9})));
}

}  // namespace
}  // namespace simlod::synth
