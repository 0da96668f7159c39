// The real file: the lion statue scan (341,989 points) inserted in three batch sizes.
#include <gtest/gtest.h>

#include <vector>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "io/test_data.hpp"
#include "simlod/io.hpp"

namespace simlod::test {
namespace {

TEST(OctreeLion, InvariantsHoldForThreeBatchSizes) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  auto reader = open_reader(data / "lion_takanawa.las");
  std::vector<Point> points(reader->info().point_count);
  ASSERT_EQ(reader->read(points), points.size());
  ASSERT_EQ(points.size(), 341'989u);
  // The reader's origin is the header's minimum corner; the octree's cube starts there too.
  const Bounds& header = reader->info().bounds;
  Bounds bounds;
  bounds.expand(header.min[0], header.min[1], header.min[2]);
  for (const Point& p : points) {
    bounds.expand(header.min[0] + p.x, header.min[1] + p.y, header.min[2] + p.z);
  }
  ASSERT_EQ(bounds.min, header.min) << "a point lies below the header's minimum";

  struct Case {
    std::size_t batch;
    OctreeConfig config;
  };
  OctreeConfig paper;  // SimLOD's values: 50k points per leaf, 128^3 voxels
  paper.backend = Backend::Cpu;
  for (const Case& c : {Case{1000, small_config(5000, 64, 1000)},
                        Case{50'000, small_config(2000, 32, 500)}, Case{points.size(), paper}}) {
    SCOPED_TRACE(testing::Message() << "batch " << c.batch);
    const Octree tree = build(bounds, c.config, points, c.batch);
    const OctreeStats stats = tree.stats();
    EXPECT_GT(stats.inner_nodes, 0u);
    expect_octree_invariants(tree.snapshot(), points, c.config, &stats);
  }
}

}  // namespace
}  // namespace simlod::test
