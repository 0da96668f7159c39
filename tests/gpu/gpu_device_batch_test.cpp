// DeviceBatch: points uploaded piece by piece through two staging pieces, checked on the
// device and inserted with Octree::insert_now() without another upload. The tree must be the
// CPU's tree of the same batches; staging pieces are reused many times (a piece handed out
// before its earlier copy finished would corrupt points), batches are refilled right after
// their insert, the device check names the first bad point, and bad points and wrong uses are
// refused without touching the tree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
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
    fill_device_batch(b, all.subspan(i, kBatch));
    ASSERT_EQ(b.size(), kBatch);
    EXPECT_FALSE(b.checked_for(tree.cube()));
    const UpdateStats u = tree.insert_now(b);  // checks it on the device first
    EXPECT_EQ(u.points, kBatch);
    EXPECT_EQ(u.batches, 1u);
    EXPECT_TRUE(b.checked_for(tree.cube()));
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

TEST_F(GpuDeviceBatchUse, TheDeviceCheckNamesTheFirstBadPointAndNothingGoesIn) {
  const float edge = static_cast<float>(tree->cube().max[0] - tree->cube().min[0]);
  std::vector<Point> points(all.begin(), all.end());
  // The first and the last point, one point per thread stride and one after a piece border.
  for (const std::size_t at : {std::size_t{0}, points.size() - 1, std::size_t{70'001}}) {
    SCOPED_TRACE(at);
    for (const auto& [value, reason] :
         {std::pair{std::numeric_limits<float>::quiet_NaN(), "not finite"},
          std::pair{2.0f * edge, "outside"}, std::pair{-1.0f, "outside"}}) {
      std::vector<Point> bad = points;
      bad[at].y = value;
      bad[at / 2 + 7].z = edge;  // on the face: good
      batch.clear();
      fill_device_batch(batch, bad);
      const auto found = batch.check(tree->cube());
      ASSERT_TRUE(found.has_value());
      EXPECT_EQ(found->index, at);
      EXPECT_NE(found->reason.find(reason), std::string::npos) << found->reason;
      EXPECT_FALSE(batch.checked_for(tree->cube()));
      try {
        (void)tree->insert_now(batch);
        FAIL() << "expected InvalidInput";
      } catch (const InvalidInput& e) {
        EXPECT_NE(std::string(e.what()).find("point " + std::to_string(at)), std::string::npos)
            << e.what();
      }
      EXPECT_EQ(tree->stats().points, 0u) << "nothing of a batch with a bad point goes in";
    }
  }
  batch.clear();
  fill_device_batch(batch, all);
  EXPECT_FALSE(batch.check(tree->cube()).has_value());
  EXPECT_TRUE(batch.checked_for(tree->cube()));
  EXPECT_EQ(tree->insert_now(batch).points, all.size());
  expect_all_points_in_one_batch();
}

TEST_F(GpuDeviceBatchUse, WrongUsesAreRefusedAndTheTreeStaysUsable) {
  fill_device_batch(batch, all);
  // Into a CPU octree.
  Octree cpu_tree = Octree::create(scene.bounds, on_backend(c, Backend::Cpu));
  EXPECT_THROW((void)cpu_tree.insert_now(batch), InvalidInput);
  // Past queued batches.
  tree->insert(all.first(10));
  EXPECT_THROW((void)tree->insert_now(batch), InvalidInput);
  EXPECT_EQ(tree->discard_queued(), 10u);
  // A commit without a piece, or larger than the piece.
  EXPECT_THROW(batch.commit(1), InvalidInput);
  DeviceBatch small(10, c.device);
  EXPECT_EQ(small.piece().size(), 10u);
  EXPECT_THROW(small.commit(11), InvalidInput);
  // Checked good for a larger cube, but outside this octree's: checked again, refused.
  Bounds larger = tree->cube();
  for (double& m : larger.max) m += 2.0 * (larger.max[0] - larger.min[0]);
  DeviceBatch outside(1, c.device);
  std::span<Point> piece = outside.piece();
  piece[0] = all[0];
  piece[0].x = static_cast<float>(1.5 * (tree->cube().max[0] - tree->cube().min[0]));
  outside.commit(1);
  EXPECT_FALSE(outside.check(larger).has_value());
  EXPECT_FALSE(outside.checked_for(tree->cube()));
  EXPECT_THROW((void)tree->insert_now(outside), InvalidInput);
  // A commit after a check needs a new check.
  DeviceBatch grown(2, c.device);
  fill_device_batch(grown, all.first(1));
  EXPECT_FALSE(grown.check(tree->cube()).has_value());
  EXPECT_TRUE(grown.checked_for(tree->cube()));
  fill_device_batch(grown, all.subspan(1, 1));
  EXPECT_FALSE(grown.checked_for(tree->cube()));
  EXPECT_EQ(tree->stats().points, 0u);

  // The refusals changed nothing: the batch still goes in whole.
  EXPECT_EQ(tree->insert_now(batch).points, all.size());
  expect_all_points_in_one_batch();
}

}  // namespace
}  // namespace simlod::test
