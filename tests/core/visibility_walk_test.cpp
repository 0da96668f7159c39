// The occluder walk's single-precision pruning (detail/visibility_walk.hpp): it never prunes a
// leaf that the exact test says occludes, nor a box the segment touches, in any frame, for
// segments through a disk's rim, tiny disks, segments along a face, and eyes outside the cube;
// and it does prune what is clearly missed.
#include "simlod/detail/visibility_walk.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace simlod::test {
namespace {

using detail::Vec3d;

/// A random frame: the cube anywhere, of any size.
detail::WalkFrame random_frame(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  detail::WalkFrame f;
  for (double& o : f.origin) o = (u(rng) - 0.5) * (n % 2 ? 2e6 : 20.0);
  f.edge = std::pow(10.0, -3.0 + 6.0 * u(rng));
  return f;
}

Vec3d in_frame(const detail::WalkFrame& f, double x, double y, double z) {
  return Vec3d{f.origin[0] + x * f.edge, f.origin[1] + y * f.edge, f.origin[2] + z * f.edge};
}

TEST(VisibilityWalk, NeverPrunesALeafThatOccludes) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uint64_t rim = 0, counted = 0;
  for (int frame_no = 0; frame_no < 40; ++frame_no) {
    const detail::WalkFrame f = random_frame(rng, frame_no);
    for (int k = 0; k < 25'000; ++k) {
      // A leaf: centroid in the cube, a normal (every third along an axis), Delta up to a fifth
      // of the cube (every fifth tiny).
      detail::LeafGeometry g;
      g.centroid = in_frame(f, u(rng), u(rng), u(rng));
      if (k % 3 == 0) {
        g.normal = k % 2 ? Vec3d{0.0, 0.0, 1.0} : Vec3d{-1.0, 0.0, 0.0};
      } else {
        const Vec3d n{2 * u(rng) - 1, 2 * u(rng) - 1, 2 * u(rng) - 1};
        const double len = std::sqrt(detail::dot(n, n));
        g.normal = {n.x / len, n.y / len, n.z / len};
      }
      g.delta = (k % 5 == 0 ? 1e-6 : 0.2) * u(rng) * f.edge;
      // A crossing point h on the plane: on the disk's rim (a hair either side) or inside it.
      Vec3d w{2 * u(rng) - 1, 2 * u(rng) - 1, 2 * u(rng) - 1};
      const double wn = detail::dot(w, g.normal);
      w = {w.x - wn * g.normal.x, w.y - wn * g.normal.y, w.z - wn * g.normal.z};
      const double wl = std::sqrt(detail::dot(w, w));
      const double at = k % 2 ? g.delta * (1.0 + (u(rng) - 0.5) * 1e-12) : g.delta * u(rng);
      rim += k % 2;
      const Vec3d h{g.centroid.x + w.x / wl * at, g.centroid.y + w.y / wl * at,
                    g.centroid.z + w.z / wl * at};
      // The segment through h at t in (0, 1); every fourth starts at an eye far outside.
      const double far = k % 4 == 0 ? 20.0 : 1.0;
      const Vec3d p = in_frame(f, far * (2 * u(rng) - 1), far * (2 * u(rng) - 1), u(rng));
      const double t = 0.05 + 0.9 * u(rng);
      const Vec3d d{(h.x - p.x) / t, (h.y - p.y) / t, (h.z - p.z) / t};
      const detail::WalkNode leaf = detail::make_walk_node(detail::disk_box(g, f), 0, 0);
      if (detail::occluder_counts(p, d, g)) {
        ++counted;
        ASSERT_TRUE(detail::walk_may_meet(detail::walk_segment(f, p, d), leaf))
            << "frame " << frame_no << " case " << k << ": Delta " << g.delta;
      }
    }
  }
  EXPECT_GT(rim, 400'000u);
  EXPECT_GT(counted, 600'000u);
}

TEST(VisibilityWalk, PrunesWhatCannotOcclude) {
  const detail::WalkFrame f{{100.0, -50.0, 7.0}, 10.0};
  detail::LeafGeometry g;
  g.centroid = {105.0, -45.0, 10.0};
  g.normal = {0.0, 0.0, 1.0};
  g.delta = 0.5;
  const detail::WalkNode flat = detail::make_walk_node(detail::disk_box(g, f), 0, 0);
  // Through the disk: met. Just above its plane (by a thousandth of the cube): pruned, however
  // close to the centroid.
  EXPECT_TRUE(detail::walk_may_meet(detail::walk_segment(f, {105.2, -45.0, 9.0}, {0, 0, 2}), flat));
  EXPECT_FALSE(
      detail::walk_may_meet(detail::walk_segment(f, {104.0, -45.0, 10.01}, {2, 0, 0}), flat));
  // Beside the disk in its plane: pruned.
  EXPECT_FALSE(
      detail::walk_may_meet(detail::walk_segment(f, {105.6, -46.0, 9.0}, {0, 0, 2}), flat));
  // A leaf whose normals cancel occludes nothing: no segment meets its box.
  g.normal = {0.0, 0.0, 0.0};
  const detail::WalkNode none = detail::make_walk_node(detail::disk_box(g, f), 0, 0);
  EXPECT_FALSE(
      detail::walk_may_meet(detail::walk_segment(f, {105.0, -45.0, 9.0}, {0, 0, 2}), none));
  EXPECT_FALSE(detail::walk_may_meet(
      detail::walk_segment(f, {-1e7, -1e7, -1e7}, {2e7 + 105.0, 1e7 - 45.0, 1e7 + 10.0}), none));
}

TEST(VisibilityWalk, NeverPrunesABoxTheSegmentTouches) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int frame_no = 0; frame_no < 40; ++frame_no) {
    const detail::WalkFrame f = random_frame(rng, frame_no);
    for (int k = 0; k < 25'000; ++k) {
      const double far = k % 4 == 0 ? 20.0 : 1.0;
      const Vec3d p = in_frame(f, far * (2 * u(rng) - 1), far * (2 * u(rng) - 1), u(rng));
      Vec3d d = detail::sub(in_frame(f, u(rng), u(rng), u(rng)), p);
      if (k % 7 == 0) d.x = 0.0;  // a segment parallel to a face
      if (k % 11 == 0) d = {0.0, 0.0, 0.0};
      // x on the segment lies on the box's surface: per axis, the box ends at x (below or
      // above it) or spans it; at least one axis ends there.
      const double t = k % 5 == 0 ? 0.0 : (k % 5 == 1 ? 1.0 : u(rng));
      const double x[3] = {p.x + t * d.x, p.y + t * d.y, p.z + t * d.z};
      detail::WalkBox box;
      for (int a = 0; a < 3; ++a) {
        const double lx = (x[a] - f.origin[a]) / f.edge;
        const double size = u(rng) * 0.3;
        const int side = a == 0 ? static_cast<int>(u(rng) * 2) : static_cast<int>(u(rng) * 3);
        box.lo[a] = side == 0 ? lx : lx - size;
        box.hi[a] = side == 1 ? lx : lx + size;
      }
      const detail::WalkSegment s = detail::walk_segment(f, p, d);
      ASSERT_TRUE(detail::walk_may_meet(s, detail::make_walk_node(box, 0, 1)))
          << "frame " << frame_no << " case " << k;
      // The same box moved clear above the whole segment (by a thousandth of the reach).
      const double top = (std::max(p.z, p.z + d.z) - f.origin[2]) / f.edge + 1e-3 * far;
      const double h = box.hi[2] - box.lo[2];
      box.lo[2] = top;
      box.hi[2] = top + h;
      ASSERT_FALSE(detail::walk_may_meet(s, detail::make_walk_node(box, 0, 1)))
          << "frame " << frame_no << " case " << k;
    }
  }
}

TEST(VisibilityWalk, ADegenerateSegmentIsAPoint) {
  const detail::WalkFrame f{{10.0, 20.0, 30.0}, 2.0};
  const detail::WalkBox box{{0.5, 0.5, 0.5}, {0.75, 0.75, 0.75}};
  const detail::WalkNode node = detail::make_walk_node(box, 0, 1);
  EXPECT_TRUE(detail::walk_may_meet(detail::walk_segment(f, {11.2, 21.2, 31.5}, {0, 0, 0}), node));
  EXPECT_FALSE(detail::walk_may_meet(detail::walk_segment(f, {11.2, 21.2, 31.6}, {0, 0, 0}), node));
}

}  // namespace
}  // namespace simlod::test
