// The loader of the bulk builds (examples/common/point_loader.hpp): which files an input
// stands for, and tiles with different origins brought into one octree's coordinates.
#include "common/point_loader.hpp"

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <vector>

#include "io/temp_dir.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "simlod/octree.hpp"

namespace {

using simlod::Point;
using simlod::examples::load_points;
using simlod::test::TempDir;

/// Writes `points` (relative to `origin`) to a LAS file at millimetre precision.
void write_las(const std::filesystem::path& path, const std::vector<Point>& points,
               const std::array<double, 3>& origin) {
  const auto writer = simlod::create_writer(path, {.origin = origin});
  writer->write(points);
  writer->close();
}

std::vector<Point> grid(int n, float step, std::uint32_t rgba) {
  std::vector<Point> points;
  for (int i = 0; i < n; ++i) {
    points.push_back({static_cast<float>(i % 7) * step, static_cast<float>(i / 7) * step,
                      static_cast<float>(i % 3) * step, rgba});
  }
  return points;
}

TEST(PointLoader, AFolderStandsForItsPointCloudsSortedByNameNotRecursive) {
  TempDir dir;
  std::filesystem::create_directories(dir / "tiles" / "sub");
  for (const char* name : {"c.sim", "a.las", "b.ply", "d.LAZ"}) std::ofstream(dir / "tiles" / name);
  std::ofstream(dir / "tiles" / "notes.txt");
  std::ofstream(dir / "tiles" / "sub" / "e.las");
  std::ofstream(dir / "z.las");
  const auto files = simlod::point_cloud_files({dir / "z.las", dir / "tiles"});
  const std::vector<std::filesystem::path> want{dir / "z.las", dir / "tiles" / "a.las",
                                                dir / "tiles" / "b.ply", dir / "tiles" / "c.sim",
                                                dir / "tiles" / "d.LAZ"};
  EXPECT_EQ(files, want);
}

TEST(PointLoader, MissingPathsAndFoldersWithoutPointCloudsAreErrors) {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  std::ofstream(dir / "empty" / "notes.txt");
  EXPECT_THROW((void)simlod::point_cloud_files({}), simlod::InvalidInput);
  try {
    (void)simlod::point_cloud_files({dir / "missing.las"});
    FAIL() << "no error";
  } catch (const simlod::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("missing.las': no such file or folder"),
              std::string::npos);
  }
  EXPECT_THROW((void)simlod::point_cloud_files({dir / "empty"}), simlod::InvalidInput);
}

// Two tiles of a georeferenced survey, 120 m apart with origins at UTM-sized coordinates: the
// loaded points, moved back by the cube's corner and the first file's origin, are the points
// written, and the bounds are the union of both files'.
TEST(PointLoader, FilesWithDifferentOriginsShareTheFirstFilesOrigin) {
  TempDir dir;
  const std::array<double, 3> origin_a{500'000.0, 4'000'000.0, 100.0};
  const std::array<double, 3> origin_b{500'120.0, 3'999'950.0, 90.0};
  const std::vector<Point> a = grid(70, 0.5f, simlod::pack_rgba(200, 10, 10));
  const std::vector<Point> b = grid(35, 0.25f, simlod::pack_rgba(10, 200, 10));
  write_las(dir / "a.las", a, origin_a);
  write_las(dir / "b.las", b, origin_b);

  const auto in = load_points({dir.path()});
  ASSERT_EQ(in.points.size(), a.size() + b.size());
  EXPECT_TRUE(in.has_color);
  EXPECT_EQ(in.files.size(), 2u);
  // The first file's origin: its minimum corner, the first point of the grid.
  const std::array<double, 3> first = origin_a;
  const auto cube = simlod::Octree::root_cube(in.bounds);
  EXPECT_EQ(simlod::Octree::find_bad_point(in.points, cube), std::nullopt);
  simlod::Bounds written;
  for (std::size_t i = 0; i < in.points.size(); ++i) {
    const bool from_a = i < a.size();
    const Point& w = from_a ? a[i] : b[i - a.size()];
    const auto& o = from_a ? origin_a : origin_b;
    const std::array<double, 3> want{o[0] + w.x, o[1] + w.y, o[2] + w.z};
    written.expand(want[0] - first[0], want[1] - first[1], want[2] - first[2]);
    const Point& p = in.points[i];
    EXPECT_NEAR(p.x + cube.min[0] + first[0], want[0], 1e-3) << i;
    EXPECT_NEAR(p.y + cube.min[1] + first[1], want[1], 1e-3) << i;
    EXPECT_NEAR(p.z + cube.min[2] + first[2], want[2], 1e-3) << i;
    EXPECT_EQ(p.rgba, w.rgba) << i;
  }
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_NEAR(in.bounds.min[axis], written.min[axis], 1e-6) << axis;
    EXPECT_NEAR(in.bounds.max[axis], written.max[axis], 1e-6) << axis;
  }
  EXPECT_LT(in.bounds.min[1], -49.0);  // tile b lies south of tile a
  EXPECT_GT(in.bounds.max[0], 120.0);  // and east of it
}

TEST(PointLoader, EmptyFilesAddNoBoundsAndNoPointsIsAnError) {
  TempDir dir;
  write_las(dir / "a.las", {}, {1000.0, 1000.0, 0.0});
  write_las(dir / "b.las", grid(10, 1.0f, 0), {0.0, 0.0, 0.0});
  const auto in = load_points({dir / "a.las", dir / "b.las"});
  EXPECT_EQ(in.points.size(), 10u);
  EXPECT_NEAR(in.bounds.min[0], 0.0, 1e-9);
  EXPECT_NEAR(in.bounds.max[0], 6.0, 1e-9);
  EXPECT_THROW((void)load_points({dir / "a.las"}), simlod::InvalidInput);
  EXPECT_THROW((void)load_points(simlod::synth::SceneConfig{.points = 0}), simlod::InvalidInput);
}

TEST(PointLoader, TheSyntheticTownIsTheGeneratorsPointsInsideTheCube) {
  const simlod::synth::SceneConfig scene{.points = 3'000, .seed = 5};
  std::uint64_t calls = 0, last = 0;
  const auto in = load_points(scene, [&](std::uint64_t done, std::uint64_t total) {
    calls += 1;
    last = done;
    EXPECT_EQ(total, 3'000u);
  });
  EXPECT_GE(calls, 1u);
  EXPECT_EQ(last, 3'000u);
  simlod::synth::Generator g(scene);
  std::vector<Point> want(scene.points);
  ASSERT_EQ(g.next(want), want.size());
  EXPECT_EQ(in.bounds, g.bounds());
  const auto cube = simlod::Octree::root_cube(in.bounds);
  ASSERT_EQ(in.points.size(), want.size());
  EXPECT_EQ(simlod::Octree::find_bad_point(in.points, cube), std::nullopt);
  for (std::size_t i = 0; i < want.size(); i += 97) {
    EXPECT_NEAR(in.points[i].x + cube.min[0], want[i].x, 1e-3) << i;
    EXPECT_EQ(in.points[i].rgba, want[i].rgba) << i;
  }
}

// A source that ends before its declared count must not loop forever nor pass for a smaller
// cloud.
TEST(PointLoader, ASourceThatEndsEarlyIsAnErrorNamingIt) {
  std::vector<Point> out(10);
  std::size_t left = 4;
  const auto next = [&](std::span<Point> s) {
    const std::size_t n = std::min<std::size_t>({s.size(), left, 3});
    left -= n;
    return n;
  };
  try {
    simlod::examples::read_fully(next, out, "'tile.las'");
    FAIL() << "no error";
  } catch (const simlod::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("'tile.las': the data ended after 4 of 10 points"),
              std::string::npos)
        << e.what();
  }
  left = 100;
  EXPECT_NO_THROW(simlod::examples::read_fully(next, out, "x"));  // in pieces of 3
}

}  // namespace
