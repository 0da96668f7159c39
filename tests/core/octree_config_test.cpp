// Octree creation: configuration and cube validation, backend resolution, geometry, moves.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/error.hpp"
#include "simlod/simlod.hpp"

namespace simlod::test {
namespace {

Bounds unit_box() {
  Bounds b;
  b.expand(0.0, 0.0, 0.0);
  b.expand(10.0, 5.0, 2.0);
  return b;
}

/// Expects InvalidInput from create() with `text` in its message.
void expect_invalid(const OctreeConfig& config, const std::string& text,
                    const Bounds& bounds = unit_box()) {
  try {
    (void)Octree::create(bounds, config);
    ADD_FAILURE() << "expected InvalidInput mentioning '" << text << "'";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(OctreeConfig, BadValuesAreInvalidInputNamingTheSetting) {
  for (std::uint32_t grid : {0u, 1u, 3u, 100u, 2048u, 1u << 31}) {
    OctreeConfig c = small_config();
    c.voxel_grid = grid;
    expect_invalid(c, "voxel_grid");
  }
  OctreeConfig c = small_config();
  c.max_points_per_leaf = 0;
  expect_invalid(c, "max_points_per_leaf");
  c = small_config();
  for (const std::uint32_t cap : {0u, 7u}) {
    c.chunk_capacity = cap;
    expect_invalid(c, "chunk_capacity");
  }
  for (double f : {0.0, -0.5, 1.5, std::nan("")}) {
    c = small_config();
    c.memory_fraction = f;
    expect_invalid(c, "memory_fraction");
  }
  c = small_config();
  c.max_batch_points = 0;
  expect_invalid(c, "max_batch_points");
  c = small_config();
  c.backend = static_cast<Backend>(7);
  expect_invalid(c, "backend");
  c = small_config();
  c.sampling = static_cast<Sampling>(4);
  expect_invalid(c, "sampling");
}

TEST(OctreeConfig, LimitsOfTheValidRangeAreAccepted) {
  for (std::uint32_t grid : {2u, 1024u}) {
    OctreeConfig c = small_config();
    c.voxel_grid = grid;
    c.max_points_per_leaf = 1;
    c.chunk_capacity = 8;
    c.max_batch_points = 1;
    c.memory_fraction = 1.0;
    EXPECT_NO_THROW((void)Octree::create(unit_box(), c));
  }
}

TEST(OctreeConfig, FilteredSamplingIsKeptByBothBuilders) {
  const std::vector<Point> points{{1.0f, 1.0f, 1.0f, 7u}, {9.0f, 4.0f, 1.0f, 9u}};
  for (const Sampling s : {Sampling::Random, Sampling::Average, Sampling::Weighted}) {
    OctreeConfig c = small_config();
    c.sampling = s;
    c.sampling_seed = 0;  // any seed is valid
    EXPECT_EQ(Octree::build(points, unit_box(), c).config().sampling, s);
    // Both backends' incremental builders keep every filter.
    c.backend = Backend::Auto;
    const Octree tree = Octree::create(unit_box(), c);
    EXPECT_EQ(tree.config().sampling, s);
    EXPECT_EQ(tree.backend(), resolve_backend(Backend::Auto));
  }
  OctreeConfig c = small_config();
  c.sampling = static_cast<Sampling>(4);
  EXPECT_THROW((void)Octree::build(points, unit_box(), c), InvalidInput);
  expect_invalid(c, "sampling");
}

TEST(OctreeConfig, BadCubesAreInvalidInput) {
  expect_invalid(small_config(), "empty", Bounds{});
  const double inf = std::numeric_limits<double>::infinity();
  Bounds b = unit_box();
  b.max[1] = inf;
  expect_invalid(small_config(), "not finite", b);
  b = unit_box();
  b.min[2] = std::nan("");
  expect_invalid(small_config(), "not finite", b);
  b = unit_box();
  b.max[0] = 1e300;  // finite as double, not as float
  expect_invalid(small_config(), "float", b);
}

TEST(OctreeConfig, GeometryFollowsTheBounds) {
  Octree tree = Octree::create(unit_box(), small_config());
  EXPECT_EQ(tree.cube(), unit_box().cube());
  EXPECT_EQ(tree.cube().max[2], 10.0);
  const NodeSnapshot snap = tree.snapshot();
  ASSERT_EQ(snap.nodes.size(), 1u);
  EXPECT_TRUE(snap.nodes[0].leaf);
  EXPECT_EQ(snap.cube, tree.cube());
  EXPECT_EQ(snap.nodes[0].bounds.max[0], 10.0);
  const OctreeStats stats = tree.stats();
  EXPECT_EQ(stats.nodes, 1u);
  EXPECT_EQ(stats.leaves, 1u);
  EXPECT_EQ(stats.points, 0u);
  EXPECT_EQ(stats.chunks_allocated, 0u);
}

TEST(OctreeConfig, ZeroSizeCubeIsWidened) {
  Bounds one;
  one.expand(5.0, 6.0, 7.0);
  Octree tree = Octree::create(one, small_config());
  EXPECT_EQ(tree.cube().min, one.min);
  EXPECT_EQ(tree.cube().max[0], 6.0);
  const Point p{0.0f, 0.0f, 0.0f, 42};
  tree.insert(std::span(&p, 1));
  tree.update();
  EXPECT_EQ(tree.stats().points, 1u);
}

TEST(OctreeConfig, BackendIsResolved) {
  OctreeConfig c = small_config();
  c.backend = Backend::Auto;
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present on this machine";
  Octree tree = Octree::create(unit_box(), c);
  EXPECT_EQ(tree.backend(), Backend::Cpu);
  EXPECT_EQ(tree.config().backend, Backend::Cpu);
  EXPECT_EQ(tree.config().max_points_per_leaf, c.max_points_per_leaf);
  c.backend = Backend::Cuda;
  EXPECT_THROW((void)Octree::create(unit_box(), c), CudaError);
}

TEST(OctreeConfig, MemoryReserveTooSmallForTheRootIsCapacityError) {
  OctreeConfig c = small_config();
  c.memory_bytes = 8;
  EXPECT_THROW((void)Octree::create(unit_box(), c), CapacityError);
}

TEST(OctreeConfig, MovesTransferTheTree) {
  Octree a = Octree::create(unit_box(), small_config());
  const Point p{1.0f, 2.0f, 1.5f, 7};
  a.insert(std::span(&p, 1));
  Octree b = std::move(a);
  b.update();
  EXPECT_EQ(b.stats().points, 1u);
  EXPECT_THROW((void)a.stats(), InvalidInput);  // NOLINT(bugprone-use-after-move)
  a = std::move(b);
  EXPECT_EQ(a.stats().points, 1u);
}

}  // namespace
}  // namespace simlod::test
