// The CUDA backend on edge cases (empty tree, identical points down to the depth limit, points
// on the cube's faces, two trees at once), the real lion scan, and a 10^6-point run small
// enough for compute-sanitizer (filter: --gtest_filter=GpuOctree.SanitizerSized).
#include <gtest/gtest.h>

#include <vector>

#include "gpu/snapshot_compare.hpp"
#include "io/test_data.hpp"
#include "simlod/io.hpp"

namespace simlod::test {
namespace {

TEST(GpuOctree, EmptyTreeIsTheRootLeaf) {
  SIMLOD_REQUIRE_GPU();
  OctreeConfig c;
  c.backend = Backend::Cuda;
  const Octree tree = Octree::create(cube_at_origin(10.0), c);
  const NodeSnapshot snap = tree.snapshot();
  ASSERT_EQ(snap.nodes.size(), 1u);
  EXPECT_TRUE(snap.nodes[0].leaf);
  EXPECT_TRUE(snap.nodes[0].points.empty());
  const OctreeStats s = tree.stats();
  EXPECT_EQ(s.nodes, 1u);
  EXPECT_EQ(s.leaves, 1u);
  EXPECT_EQ(s.points, 0u);
  EXPECT_GT(s.bytes_reserved, 0u);
  EXPECT_GT(s.bytes_free, 0u);
}

TEST(GpuOctree, IdenticalPointsReachTheDepthLimit) {
  SIMLOD_REQUIRE_GPU();
  std::vector<Point> points(5000, Point{3.25f, 1.5f, 7.75f, pack_rgba(10, 20, 30)});
  for (std::size_t i = 0; i < 500; ++i) points.push_back(Point{1.0f, 2.0f, 3.0f, 7});
  OctreeConfig c;
  c.max_points_per_leaf = 100;
  expect_cuda_matches_cpu(cube_at_origin(10.0), c, points, 1000, /*invariants=*/true);
  const Octree gpu = build(cube_at_origin(10.0), on_backend(c, Backend::Cuda), points, 1000);
  EXPECT_EQ(gpu.stats().depth, 24u) << "a leaf at max_depth never splits";
  std::size_t biggest = 0;
  for (const auto& n : gpu.snapshot().nodes) biggest = std::max(biggest, n.points.size());
  EXPECT_EQ(biggest, 5000u);
}

TEST(GpuOctree, PointsOnTheCubeFaces) {
  SIMLOD_REQUIRE_GPU();
  const float e = 4.0f;
  const float values[] = {0.0f, e, e / 2, 0.999f * e, 1e-7f};
  std::vector<Point> points;
  for (int rep = 0; rep < 40; ++rep) {
    for (float x : values) {
      for (float y : values) {
        for (float z : values) points.push_back(Point{x, y, z, static_cast<std::uint32_t>(rep)});
      }
    }
  }
  OctreeConfig c;
  c.max_points_per_leaf = 50;
  c.voxel_grid = 16;
  c.chunk_capacity = 64;
  expect_cuda_matches_cpu(cube_at_origin(e), c, points, 777, /*invariants=*/true);
}

TEST(GpuOctree, TwoTreesAtOnce) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(300'000, synth::Order::Scan);
  OctreeConfig c;
  c.max_points_per_leaf = 2000;
  c.memory_bytes = std::uint64_t{2} << 30;
  Octree a = Octree::create(scene.bounds, on_backend(c, Backend::Cuda));
  Octree b = Octree::create(scene.bounds, on_backend(c, Backend::Cuda));
  const std::span<const Point> all(scene.points);
  for (std::size_t i = 0; i < all.size(); i += 50'000) {
    const auto piece = all.subspan(i, std::min<std::size_t>(50'000, all.size() - i));
    a.insert(piece);
    a.update();
    b.insert(piece.first(piece.size() / 2));
    b.update();
  }
  std::vector<Point> halves;
  for (std::size_t i = 0; i < all.size(); i += 50'000) {
    const auto piece = all.subspan(i, std::min<std::size_t>(50'000, all.size() - i));
    const auto half = piece.first(piece.size() / 2);
    halves.insert(halves.end(), half.begin(), half.end());
  }
  const Octree cpu_a = build(scene.bounds, on_backend(c, Backend::Cpu), all, 50'000);
  expect_same_octree(cpu_a, a);
  Octree cpu_b = Octree::create(scene.bounds, on_backend(c, Backend::Cpu));
  for (std::size_t i = 0; i < all.size(); i += 50'000) {
    const auto piece = all.subspan(i, std::min<std::size_t>(50'000, all.size() - i));
    cpu_b.insert(piece.first(piece.size() / 2));
    cpu_b.update();
  }
  expect_same_octree(cpu_b, b);
  const OctreeStats sb = b.stats();
  expect_octree_invariants(b.snapshot(), halves, on_backend(c, Backend::Cuda), &sb);
}

TEST(GpuOctree, LionMatchesCpu) {
  SIMLOD_REQUIRE_GPU();
  SIMLOD_REQUIRE_TEST_DATA(data);
  auto reader = open_reader(data / "lion_takanawa.las");
  std::vector<Point> points(reader->info().point_count);
  ASSERT_EQ(reader->read(points), points.size());
  const Bounds& header = reader->info().bounds;
  Bounds bounds;
  bounds.expand(header.min[0], header.min[1], header.min[2]);
  for (const Point& p : points) {
    bounds.expand(header.min[0] + p.x, header.min[1] + p.y, header.min[2] + p.z);
  }
  OctreeConfig deep;
  deep.max_points_per_leaf = 1000;
  for (const std::size_t batch : {std::size_t{1000}, std::size_t{50'000}, points.size()}) {
    SCOPED_TRACE(testing::Message() << "batch " << batch);
    expect_cuda_matches_cpu(bounds, OctreeConfig{}, points, batch, /*invariants=*/true);
    expect_cuda_matches_cpu(bounds, deep, points, batch, /*invariants=*/true);
  }
}

// Short enough to run under compute-sanitizer memcheck and racecheck.
TEST(GpuOctree, SanitizerSized) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(1'000'000, synth::Order::Morton);
  OctreeConfig c;
  c.max_points_per_leaf = 1000;
  c.memory_bytes = std::uint64_t{3} << 30;  // the sanitizer shadows device memory
  expect_cuda_matches_cpu(scene.bounds, c, scene.points, 100'000, /*invariants=*/true);
}

TEST(GpuOctree, BatchTimingIsReported) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(100'000, synth::Order::Morton);
  OctreeConfig c;
  c.backend = Backend::Cuda;
  c.memory_bytes = std::uint64_t{1} << 30;
  Octree tree = Octree::create(scene.bounds, c);
  const UpdateStats u = tree.insert_now(scene.points);
  EXPECT_EQ(u.batches, 1u);
  EXPECT_GE(u.split_rounds, 2u) << "100,000 points split the root";
  EXPECT_GT(u.device_upload_ms, 0.0);
  EXPECT_GT(u.device_update_ms, 0.0);
  EXPECT_EQ(tree.stats().last_update.device_update_ms, u.device_update_ms);
  EXPECT_EQ(tree.stats().points, scene.points.size());
  tree.insert(scene.points);
  EXPECT_GT(tree.update().device_update_ms, 0.0) << "update() of queued batches reports it too";
}

}  // namespace
}  // namespace simlod::test
