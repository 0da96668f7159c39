// DeviceBatch: points uploaded piece by piece through two staging pieces, then inserted with
// Octree::insert_now() without another upload. The tree must be the CPU's tree of the same
// batches; staging pieces are reused many times (a piece handed out before its earlier copy
// finished would corrupt points), batches are refilled right after their insert, and bad
// points and wrong uses are refused without touching the tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

TEST(GpuDeviceBatch, BatchesFilledPieceByPieceGiveTheCpuTree) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(1'000'000, synth::Order::Scan);
  const std::span<const Point> all(scene.points);
  constexpr std::size_t kBatch = 250'000;  // 4 pieces: each staging piece is reused
  OctreeConfig c = small_config(5000, 32, 500);
  c.backend = Backend::Cuda;
  Octree tree = Octree::create(scene.bounds, c);
  // Two batches in turn, each refilled right after its insert, as the Streamer's ring does.
  DeviceBatch batches[2] = {DeviceBatch(kBatch, c.device), DeviceBatch(kBatch, c.device)};
  for (std::size_t i = 0, k = 0; i < all.size(); i += kBatch, k ^= 1) {
    DeviceBatch& b = batches[k];
    b.clear();
    fill_device_batch(b, all.subspan(i, kBatch), tree.cube());
    ASSERT_EQ(b.size(), kBatch);
    EXPECT_TRUE(b.checked_for(tree.cube()));
    const UpdateStats u = tree.insert_now(b);
    EXPECT_EQ(u.points, kBatch);
    EXPECT_EQ(u.batches, 1u);
  }
  const Octree cpu = build(scene.bounds, on_backend(c, Backend::Cpu), all, kBatch);
  expect_same_octree(cpu, tree);
}

/// A 100,000-point scene, an empty CUDA octree over it and a DeviceBatch with room for all.
class GpuDeviceBatchUse : public ::testing::Test {
 protected:
  void SetUp() override {
    SIMLOD_REQUIRE_GPU();
    c.backend = Backend::Cuda;
    tree.emplace(Octree::create(scene.bounds, c));
    batch = DeviceBatch(all.size(), c.device);
  }
  /// The octree is the CPU's tree of all points in one batch.
  void expect_all_points_in_one_batch() {
    const Octree cpu = build(scene.bounds, on_backend(c, Backend::Cpu), all, all.size());
    expect_same_octree(cpu, *tree);
  }

  const Scene& scene = synth_scene(100'000, synth::Order::Scan);
  const std::span<const Point> all{scene.points};
  OctreeConfig c = small_config(5000, 32, 500);
  std::optional<Octree> tree;
  DeviceBatch batch;
};

TEST_F(GpuDeviceBatchUse, ABadPointIsNamedAndCopiesNothing) {
  const std::size_t first = DeviceBatch::kPiecePoints;
  fill_device_batch(batch, all.first(first), tree->cube());

  std::span<Point> piece = batch.piece();
  const std::size_t rest = all.size() - first;
  ASSERT_GE(piece.size(), rest);
  std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(first), rest, piece.begin());
  piece[5].y = std::numeric_limits<float>::quiet_NaN();
  const auto bad = batch.commit(rest, tree->cube());
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->index, first + 5) << "the index in the batch, not in the piece";
  EXPECT_EQ(batch.size(), first) << "nothing of a piece with a bad point is copied";
  piece[5] = all[first + 5];  // repaired: the same piece goes in
  ASSERT_FALSE(batch.commit(rest, tree->cube()).has_value());
  EXPECT_EQ(batch.size(), all.size());
  EXPECT_THROW((void)batch.commit(1, tree->cube()), InvalidInput) << "commit without a piece()";

  EXPECT_EQ(tree->insert_now(batch).points, all.size());
  expect_all_points_in_one_batch();
}

TEST_F(GpuDeviceBatchUse, WrongUsesAreRefusedAndTheTreeStaysUsable) {
  fill_device_batch(batch, all, tree->cube());
  // Into a CPU octree.
  Octree cpu_tree = Octree::create(scene.bounds, on_backend(c, Backend::Cpu));
  EXPECT_THROW((void)cpu_tree.insert_now(batch), InvalidInput);
  // Past queued batches.
  tree->insert(all.first(10));
  EXPECT_THROW((void)tree->insert_now(batch), InvalidInput);
  EXPECT_EQ(tree->discard_queued(), 10u);
  // Committed against a cube of another edge.
  Bounds larger = tree->cube();
  for (double& m : larger.max) m += 1.0;
  DeviceBatch other(10, c.device);
  fill_device_batch(other, all.first(10), larger);
  EXPECT_FALSE(other.checked_for(tree->cube()));
  EXPECT_THROW((void)tree->insert_now(other), InvalidInput);
  EXPECT_EQ(tree->stats().points, 0u);

  // The refusals changed nothing: the batch still goes in whole.
  EXPECT_EQ(tree->insert_now(batch).points, all.size());
  expect_all_points_in_one_batch();
}

}  // namespace
}  // namespace simlod::test
