// Ground-truth classes of the generator: determinism, no effect on the points, every class
// present, terrain classes on the generator's ground height and water level, and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "simlod/error.hpp"
#include "simlod/synth.hpp"
#include "synth/tuning.hpp"
#include "synth_test_util.hpp"

namespace simlod::synth {
namespace {

using test::generate;
using test::identical;

struct Labelled {
  std::vector<Point> points;
  std::vector<std::uint8_t> classes;
};

Labelled drain_labelled(Generator& gen, std::size_t batch = 1 << 16) {
  Labelled all;
  std::vector<Point> buf(batch);
  std::vector<std::uint8_t> cls(batch);
  while (const std::size_t n = gen.next(buf, cls)) {
    all.points.insert(all.points.end(), buf.begin(), buf.begin() + n);
    all.classes.insert(all.classes.end(), cls.begin(), cls.begin() + n);
  }
  return all;
}

Labelled generate_labelled(const SceneConfig& config, std::size_t batch = 1 << 16) {
  Generator gen(config);
  return drain_labelled(gen, batch);
}

// The measurement noise in output units, with room for the float rounding of x, y and z.
double noise_bound(double extent) {
  return detail::kSurfaceNoise * extent / detail::kReferenceExtent + 1e-6 * extent;
}

TEST(SynthClasses, AreDeterministic) {
  for (Order order : {Order::Scan, Order::Morton}) {
    const SceneConfig config{.points = 120'000, .seed = 5, .order = order};
    const Labelled a = generate_labelled(config);
    const Labelled b = generate_labelled(config, 777);
    EXPECT_TRUE(identical(a.points, b.points));
    EXPECT_EQ(a.classes, b.classes);
  }
}

TEST(SynthClasses, DoNotChangeThePoints) {
  for (Order order : {Order::Scan, Order::Morton}) {
    const SceneConfig config{.points = 150'000, .seed = 2, .order = order};
    EXPECT_TRUE(identical(generate_labelled(config).points, generate(config)));
    // Calls with and without classes mixed on one generator give the same sequence too.
    Generator gen(config);
    std::vector<Point> all;
    std::vector<Point> buf(10'000);
    std::vector<std::uint8_t> cls(10'000);
    for (bool labels = false; gen.points_left() > 0; labels = !labels) {
      const std::size_t n = labels ? gen.next(buf, cls) : gen.next(buf);
      all.insert(all.end(), buf.begin(), buf.begin() + n);
    }
    EXPECT_TRUE(identical(all, generate(config)));
  }
}

TEST(SynthClasses, EveryClassAppears) {
  const Labelled scene = generate_labelled({.points = 200'000, .seed = 1});
  std::map<int, std::size_t> counts;
  for (std::uint8_t c : scene.classes) ++counts[c];
  std::vector<int> seen;
  for (const auto& [c, n] : counts) seen.push_back(c);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 5, 6, 9}));
}

TEST(SynthClasses, GroundLiesOnTheGroundHeight) {
  for (double extent : {1000.0, 37.5}) {
    Generator gen({.points = 200'000, .seed = 3, .extent = extent});
    const Labelled scene = drain_labelled(gen);
    const double bound = noise_bound(extent);
    std::size_t ground = 0;
    for (std::size_t i = 0; i < scene.points.size(); ++i) {
      if (scene.classes[i] != 2) continue;
      const Point& p = scene.points[i];
      ASSERT_NEAR(p.z, gen.ground_height(p.x, p.y), bound) << i << " extent " << extent;
      ++ground;
    }
    EXPECT_GT(ground, scene.points.size() / 4);
  }
}

TEST(SynthClasses, ObjectsStandOnTheGroundNotInIt) {
  // Walls, roofs, trunks and the pedestal are modelled reaching into the ground; a scan sees
  // only what stands above it. Their noise moves them along their normals, which on a slope
  // changes the ground height under them by up to about the noise again. Crowns are not
  // tested by the generator: at most one point in 10^5 of them may dip into the ground.
  for (double extent : {1000.0, 37.5}) {
    Generator gen({.points = 1'000'000, .seed = 1, .extent = extent});
    const Labelled scene = drain_labelled(gen);
    const double bound = 3.0 * noise_bound(extent);
    std::map<std::uint8_t, std::size_t> near_ground, below;
    for (std::size_t i = 0; i < scene.points.size(); ++i) {
      const std::uint8_t c = scene.classes[i];
      if (c != 1 && c != 5 && c != 6) continue;
      const Point& p = scene.points[i];
      const double ground = gen.ground_height(p.x, p.y);
      if (p.z < ground - bound) ++below[c];
      if (p.z < ground + 0.5 * extent / detail::kReferenceExtent) ++near_ground[c];
    }
    EXPECT_EQ(below[6], 0u) << "building points below the ground, extent " << extent;
    EXPECT_EQ(below[1], 0u) << "sculpture points below the ground, extent " << extent;
    EXPECT_LE(below[5], scene.points.size() / 100'000) << "extent " << extent;
    // The feet of walls and trunks are there: the test sees the ground line.
    EXPECT_GT(near_ground[6], 100u) << "extent " << extent;
    EXPECT_GT(near_ground[5], 10u) << "extent " << extent;
  }
}

TEST(SynthClasses, WaterLiesOnTheWaterLevel) {
  for (double extent : {1000.0, 37.5}) {
    Generator gen({.points = 200'000, .seed = 3, .extent = extent});
    const Labelled scene = drain_labelled(gen);
    const double bound = noise_bound(extent);
    const double level = gen.water_level();
    EXPECT_GE(level, gen.bounds().min[2]);
    std::size_t water = 0;
    for (std::size_t i = 0; i < scene.points.size(); ++i) {
      if (scene.classes[i] != 9) continue;
      const Point& p = scene.points[i];
      ASSERT_NEAR(p.z, level, bound) << i << " extent " << extent;
      EXPECT_LE(gen.ground_height(p.x, p.y), level + bound) << "dry land under water " << i;
      ++water;
    }
    EXPECT_GT(water, 0u);
  }
}

TEST(SynthClasses, ShortClassesSpanThrowsAndConsumesNothing) {
  const SceneConfig config{.points = 50'000, .seed = 4};
  const std::vector<Point> reference = generate(config);
  Generator gen(config);
  std::vector<Point> buf(1000);
  std::vector<std::uint8_t> cls(999);
  EXPECT_THROW(gen.next(buf, cls), InvalidInput);
  EXPECT_EQ(gen.points_generated(), 0u);
  ASSERT_EQ(gen.next(std::span(buf).first(300)), 300u);
  try {
    gen.next(buf, cls);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("999 classes for 1000 points"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(gen.points_generated(), 300u);
  std::vector<Point> all(buf.begin(), buf.begin() + 300);
  cls.resize(buf.size());
  while (const std::size_t n = gen.next(buf, cls))
    all.insert(all.end(), buf.begin(), buf.begin() + n);
  EXPECT_TRUE(identical(all, reference));
}

TEST(SynthClasses, OrdersGiveTheSamePairs) {
  using Pair = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t, int>;
  const auto pairs = [](Order order) {
    const Labelled scene = generate_labelled({.points = 100'000, .seed = 6, .order = order});
    std::vector<Pair> out;
    for (std::size_t i = 0; i < scene.points.size(); ++i) {
      std::uint32_t w[4];
      std::memcpy(w, &scene.points[i], sizeof(Point));
      out.emplace_back(w[0], w[1], w[2], w[3], scene.classes[i]);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<Pair> scan = pairs(Order::Scan);
  EXPECT_EQ(scan.size(), 100'000u);
  EXPECT_TRUE(scan == pairs(Order::Morton));
}

}  // namespace
}  // namespace simlod::synth
