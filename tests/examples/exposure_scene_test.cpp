// The exposure test scene of simlod-compare (examples/common/exposure_scene.hpp).
#include "common/exposure_scene.hpp"

#include <gtest/gtest.h>

#include "simlod/error.hpp"

namespace {

using simlod::examples::exposure_scene;

TEST(ExposureScene, TheSameConfigGivesTheSamePointsAndOtherSeedsOthers) {
  const auto a = exposure_scene({.points = 20'001, .seed = 3});
  const auto b = exposure_scene({.points = 20'001, .seed = 3});
  const auto c = exposure_scene({.points = 20'001, .seed = 4});
  ASSERT_EQ(a.points.size(), 20'001u);
  EXPECT_EQ(a.points, b.points);
  EXPECT_NE(a.points, c.points);
}

TEST(ExposureScene, BoundsAreThoseOfThePoints) {
  const auto s = exposure_scene({.points = 5'000, .seed = 1});
  simlod::Bounds exact;
  for (const simlod::Point& p : s.points) exact.expand(p.x, p.y, p.z);
  EXPECT_EQ(s.bounds.min, exact.min);
  EXPECT_EQ(s.bounds.max, exact.max);
  EXPECT_GE(exact.min[0], 0.0);
  EXPECT_LE(exact.max[0], 200.0);
}

// Scan B is scan A's texture darkened: over many points, its mean brightness is `dark` times
// scan A's. Both scans sample the same surfaces, so the means of all points with and without
// the dark scan tell them apart: with dark = 1 the two scans are one.
TEST(ExposureScene, TheDarkScanIsDarker) {
  const auto mean_red = [](const simlod::examples::ExposureScene& s) {
    double sum = 0.0;
    for (const simlod::Point& p : s.points) sum += simlod::red_of(p.rgba);
    return sum / static_cast<double>(s.points.size());
  };
  const double bright = mean_red(exposure_scene({.points = 200'000, .seed = 1, .dark = 1.0}));
  const double mixed = mean_red(exposure_scene({.points = 200'000, .seed = 1, .dark = 0.55}));
  EXPECT_NEAR(mixed / bright, (1.0 + 0.55) / 2.0, 0.01);
}

TEST(ExposureScene, RefusesBadConfigs) {
  EXPECT_THROW(exposure_scene({.points = 0}), simlod::InvalidInput);
  EXPECT_THROW(exposure_scene({.points = 10, .dark = 0.0}), simlod::InvalidInput);
  EXPECT_THROW(exposure_scene({.points = 10, .dark = 1.5}), simlod::InvalidInput);
}

}  // namespace
