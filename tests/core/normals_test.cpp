// estimate_normals: planes, a sphere and the box scene against their true normals, both
// orientations, neighbourhoods without a plane, and bad input.
#include "simlod/normals.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "core/expect_refused.hpp"
#include "core/visibility_scenes.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

double dot(const Normal& a, const Normal& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

TEST(Normals, PlaneGetsItsNormal) {
  VisScene plane;
  add_face(plane, {0, 0, 0}, {1, 1, 0}, 2, false, 0.02, 0.0, 1.0f, 0);
  const auto n = estimate_normals(plane.points);
  for (std::size_t i = 0; i < n.size(); ++i) {
    ASSERT_NEAR(n[i].z, 1.0, 1e-6) << i;  // propagated from the seed, whose normal points up
  }
}

TEST(Normals, SpherePropagatesOutward) {
  std::vector<Point> points;
  const int count = 4000;
  const double golden = std::numbers::pi * (3.0 - std::sqrt(5.0));
  for (int i = 0; i < count; ++i) {  // a Fibonacci sphere of radius 2 around (1, 1, 1)
    const double z = 1.0 - 2.0 * (i + 0.5) / count, r = std::sqrt(1.0 - z * z);
    points.push_back({static_cast<float>(1 + 2 * r * std::cos(golden * i)),
                      static_cast<float>(1 + 2 * r * std::sin(golden * i)),
                      static_cast<float>(1 + 2 * z), 0});
  }
  const auto n = estimate_normals(points);
  for (int i = 0; i < count; ++i) {
    const Normal radial{(points[i].x - 1) / 2, (points[i].y - 1) / 2, (points[i].z - 1) / 2};
    ASSERT_GT(dot(n[i], radial), 0.99) << i;
  }
}

TEST(Normals, BoxWallsFaceTheViewpointInside) {
  const VisScene box = box_scene(1.0 / 40, 0.13);
  for (const auto orientation : {NormalOrientation::Viewpoint, NormalOrientation::Propagate}) {
    NormalParams params;
    params.orientation = orientation;
    params.viewpoint = std::array<double, 3>{0.5, 0.5, 0.5};
    const auto n = estimate_normals(box.points, params);
    for (std::size_t i = 0; i < n.size(); ++i) {
      ASSERT_GT(dot(n[i], box.normals[i]), 0.99) << i;  // the scene's own normals point inward
    }
  }
}

TEST(Normals, NoPlaneGivesZero) {
  std::vector<Point> line;
  for (int i = 0; i < 40; ++i) line.push_back({static_cast<float>(i) * 0.1f, 2.0f, 3.0f, 0});
  for (const Normal& n : estimate_normals(line)) EXPECT_EQ(n, (Normal{0, 0, 0}));
  const std::vector<Point> spot(20, Point{1, 1, 1, 0});
  for (const Normal& n : estimate_normals(spot)) EXPECT_EQ(n, (Normal{0, 0, 0}));
}

TEST(Normals, BadInputIsAClearError) {
  const VisScene box = box_scene(1.0 / 10, 0.13);
  expect_refused([&] { (void)estimate_normals(box.points, {.neighbours = 2}); }, "2 neighbours");
  expect_refused([&] { (void)estimate_normals(box.points, {.neighbours = 129}); },
                 "129 neighbours");
  expect_refused([&] { (void)estimate_normals(std::span(box.points).first(10)); },
                 "10 points for 16");
  NormalParams viewpoint;
  viewpoint.orientation = NormalOrientation::Viewpoint;
  expect_refused([&] { (void)estimate_normals(box.points, viewpoint); }, "needs a viewpoint");
  auto points = box.points;
  points[5].z = std::numeric_limits<float>::quiet_NaN();
  expect_refused([&] { (void)estimate_normals(points); }, "point 5");
}

}  // namespace
}  // namespace simlod::test
