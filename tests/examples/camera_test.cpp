// The cameras the programs share (examples/common/camera.hpp): named views, the meaning of
// yaw, pitch and distance, y-up data, and the checks made before loading.
#include "common/camera.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "common/views.hpp"
#include "simlod/error.hpp"

namespace simlod::examples {
namespace {

/// Pixel column and row of `p` and its clip w (> 0: in front of the camera).
std::array<double, 3> project(const View& v, const std::array<double, 3>& p) {
  const auto m = v.view_projection();
  double c[4];
  for (int r = 0; r < 4; ++r) c[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
  return {(c[0] / c[3] + 1.0) / 2.0 * v.width, (1.0 - c[1] / c[3]) / 2.0 * v.height, c[3]};
}

Bounds make_box(std::array<double, 3> lo, std::array<double, 3> hi) {
  Bounds b;
  b.expand(lo[0], lo[1], lo[2]);
  b.expand(hi[0], hi[1], hi[2]);
  return b;
}

TEST(Camera, NamedViewsKeepTheirEarlierFraming) {
  const Bounds terrain = make_box({0, 0, 0}, {1000, 800, 40});
  const CameraOptions none;
  EXPECT_EQ(camera_view(none, "overview", terrain, 640, 480).view_projection(),
            View::overview(terrain, 640, 480, 30.0, 45.0).view_projection());
  EXPECT_EQ(camera_view(none, "closeup", terrain, 640, 480).view_projection(),
            closeup_view(terrain, 640, 480).view_projection());
}

TEST(Camera, YawAndPitchMeanTheSameEverywhere) {
  const Bounds box = make_box({-10, -10, -10}, {10, 10, 10});
  CameraOptions o;
  // Top: straight down, north up on the screen: a point north of the centre lies above it, a
  // point east of it to the right.
  const View top = camera_view(o, "top", box, 400, 400);
  const auto centre = project(top, {0, 0, 0});
  EXPECT_NEAR(centre[0], 200.0, 1e-3);
  EXPECT_NEAR(centre[1], 200.0, 1e-3);
  EXPECT_LT(project(top, {0, 5, 0})[1], centre[1] - 10);
  EXPECT_GT(project(top, {5, 0, 0})[0], centre[0] + 10);
  EXPECT_LT(project(top, {0, 0, 5})[2], project(top, {0, 0, -5})[2]);  // higher is nearer
  // Front: level, looking north (+y): east is right, up is up, north is farther.
  const View front = camera_view(o, "front", box, 400, 400);
  EXPECT_GT(project(front, {5, 0, 0})[0], 210.0);
  EXPECT_LT(project(front, {0, 0, 5})[1], 190.0);
  EXPECT_GT(project(front, {0, 5, 0})[2], project(front, {0, -5, 0})[2]);
  // --yaw 90 looks east (+x): east is farther, north is left.
  o.yaw = 90.0;
  const View east = camera_view(o, "front", box, 400, 400);
  EXPECT_GT(project(east, {5, 0, 0})[2], project(east, {-5, 0, 0})[2]);
  EXPECT_LT(project(east, {0, 5, 0})[0], 190.0);
  // --pitch overrides a view's angle: overview at pitch 90 is the top view's direction.
  o.yaw = 0.0;
  o.pitch = 90.0;
  EXPECT_LT(project(camera_view(o, "overview", box, 400, 400), {0, 5, 0})[1], 190.0);
}

TEST(Camera, DistanceIsFromTheCentre) {
  const Bounds box = make_box({0, 0, 0}, {10, 10, 10});
  CameraOptions o;
  o.distance = 50.0;
  const View v = camera_view(o, "front", box, 320, 240);
  // The centre lies 50 units in front of the camera (clip w of a perspective view is the
  // distance along the view axis).
  EXPECT_NEAR(project(v, {5, 5, 5})[2], 50.0, 1e-3);
  o.distance = 200.0;
  EXPECT_NEAR(project(camera_view(o, "overview", box, 320, 240), {5, 5, 5})[2], 200.0, 1e-2);
}

TEST(Camera, ObjectCloseUpFramesItsMiddle) {
  const Bounds object = make_box({0, 0, 0}, {2, 2, 3});  // taller than wide: not terrain
  const CameraOptions o;
  const View close = camera_view(o, "closeup", object, 640, 480);
  const View whole = camera_view(o, "overview", object, 640, 480);
  const auto c = project(close, {1, 1, 1.5});
  EXPECT_NEAR(c[0], 320.0, 1.0);
  EXPECT_NEAR(c[1], 240.0, 1.0);
  EXPECT_LT(c[2], project(whole, {1, 1, 1.5})[2]);  // nearer than the overview
  // Every corner of the middle half lies in the picture; some corner of the whole box not.
  bool outside = false;
  for (int k = 0; k < 8; ++k) {
    const std::array<double, 3> half{k & 1 ? 1.5 : 0.5, k & 2 ? 1.5 : 0.5, k & 4 ? 2.25 : 0.75};
    const auto p = project(close, half);
    EXPECT_GT(p[2], 0.0);
    EXPECT_GE(p[0], 0.0);
    EXPECT_LE(p[0], 640.0);
    EXPECT_GE(p[1], 0.0);
    EXPECT_LE(p[1], 480.0);
    const std::array<double, 3> full{k & 1 ? 2.0 : 0.0, k & 2 ? 2.0 : 0.0, k & 4 ? 3.0 : 0.0};
    const auto q = project(close, full);
    outside = outside || q[0] < 0 || q[0] > 640 || q[1] < 0 || q[1] > 480;
  }
  EXPECT_TRUE(outside);
}

TEST(Camera, YUpDataIsSeenAsItsZUpTwin) {
  // A y-up box and its z-up twin (x, -z, y): every view projects a point and its twin alike.
  const Bounds y_up = make_box({0, 0, -4}, {10, 3, 6});
  CameraOptions y;
  y.up = "y";
  CameraOptions z;
  Bounds twin;
  for (int k = 0; k < 8; ++k) {
    const auto p = to_z_up(y, {k & 1 ? 10.0 : 0.0, k & 2 ? 3.0 : 0.0, k & 4 ? 6.0 : -4.0});
    twin.expand(p[0], p[1], p[2]);
  }
  for (const char* name : {"overview", "closeup", "top", "front"}) {
    SCOPED_TRACE(name);
    const View a = camera_view(y, name, y_up, 320, 240);
    const View b = camera_view(z, name, twin, 320, 240);
    for (const std::array<double, 3> p : {std::array<double, 3>{1, 2, 3}, {9, 0.5, -3}}) {
      const auto pa = project(a, p);
      const auto pb = project(b, to_z_up(y, p));
      for (int i = 0; i < 3; ++i) EXPECT_NEAR(pa[i], pb[i], 1e-3 * (1 + std::abs(pb[i])));
    }
  }
}

TEST(Camera, BadOptionsAreRefusedBeforeLoading) {
  auto refused = [](CameraOptions o, const char* says) {
    try {
      check_camera(o);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused({.views = {"overview", "sideways"}}, "unknown view 'sideways'");
  refused({.views = {}}, "no view");
  refused({.views = {"top"}, .pitch = 91.0}, "--pitch 91");
  refused({.views = {"top"}, .yaw = NAN}, "--yaw");
  refused({.views = {"top"}, .distance = 0.0}, "--distance 0");
  refused({.views = {"top"}, .up = "x"}, "--up 'x'");
  EXPECT_NO_THROW(check_camera({.views = {"top", "front"}, .pitch = -90.0, .up = "y"}));
}

}  // namespace
}  // namespace simlod::examples
