// simlod-compare's builders (examples/common/compare_builders.hpp): the names --builder takes,
// the report's column names, and the incremental build giving the bulk build's tree.
#include "common/compare_builders.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "common/exposure_scene.hpp"
#include "common/point_loader.hpp"
#include "simlod/error.hpp"

namespace {

using simlod::Point;
using simlod::examples::Builder;

TEST(CompareBuilders, NamesAndColumns) {
  EXPECT_EQ(simlod::examples::builders_of("bulk"), std::vector<Builder>{Builder::Bulk});
  EXPECT_EQ(simlod::examples::builders_of("incremental"),
            std::vector<Builder>{Builder::Incremental});
  EXPECT_EQ(simlod::examples::builders_of("both"),
            (std::vector<Builder>{Builder::Bulk, Builder::Incremental}));
  EXPECT_THROW(simlod::examples::builders_of("Bulk"), simlod::InvalidInput);
  EXPECT_EQ(simlod::examples::column_name("average", Builder::Bulk), "average");
  EXPECT_EQ(simlod::examples::column_name("average", Builder::Incremental), "average-incremental");
}

/// Every leaf point and every voxel of the tree, sorted: the trees of two builders hold the
/// same samples when these are equal (node order and the order within a node aside).
std::vector<Point> samples(const simlod::Octree& tree) {
  std::vector<Point> out;
  for (const auto& node : tree.snapshot().nodes) {
    out.insert(out.end(), node.points.begin(), node.points.end());
    out.insert(out.end(), node.voxels.begin(), node.voxels.end());
  }
  std::sort(out.begin(), out.end(), [](const Point& a, const Point& b) {
    return std::tie(a.x, a.y, a.z, a.rgba) < std::tie(b.x, b.y, b.z, b.rgba);
  });
  return out;
}

// Batches of 3,000 points (7 of them, the last short), then finalize(): the same voxel
// colours as Octree::build for every filter that does not depend on the order.
TEST(CompareBuilders, IncrementalGivesTheBulkTree) {
  simlod::examples::ExposureScene scene =
      simlod::examples::exposure_scene({.points = 20'000, .seed = 1});
  const auto origin = simlod::Octree::root_cube(scene.bounds).min;
  simlod::examples::shift_points(scene.points, {-origin[0], -origin[1], -origin[2]});
  for (const simlod::Sampling sampling :
       {simlod::Sampling::Random, simlod::Sampling::Average, simlod::Sampling::Weighted}) {
    SCOPED_TRACE(static_cast<int>(sampling));
    simlod::OctreeConfig config;
    config.backend = simlod::Backend::Cpu;
    config.sampling = sampling;
    config.max_points_per_leaf = 500;
    const simlod::Octree bulk =
        simlod::examples::build_octree(scene.points, scene.bounds, config, Builder::Bulk, 3'000);
    const simlod::Octree incremental = simlod::examples::build_octree(
        scene.points, scene.bounds, config, Builder::Incremental, 3'000);
    EXPECT_GT(bulk.stats().voxels, 0u);
    EXPECT_EQ(bulk.stats().nodes, incremental.stats().nodes);
    EXPECT_EQ(samples(bulk), samples(incremental));
  }
}

}  // namespace
