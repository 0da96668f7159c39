// Attribute channels in the bulk builder (Octree::build(points, attributes, ...), CPU): leaves
// keep their points' records, voxels the record of the point whose colour they took; Random
// gives the incremental builder's tree, records included, also when batches follow the build
// (the voxel index is then made from the stored records); ties go to the larger digest.
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "core/channel_scenes.hpp"
#include "core/octree_check.hpp"

namespace simlod::test {
namespace {

constexpr AttributeMask kSome = attribute_bit(Attribute::Intensity) |
                                attribute_bit(Attribute::Classification) |
                                attribute_bit(Attribute::GpsTime);

TEST(BulkChannels, VoxelsTakeTheRecordOfTheirColoursPoint) {
  constexpr std::size_t kN = 50'000;
  const Scene& scene = random_scene(kN, 3);
  const std::vector<Point> points = indexed(scene.points);
  const PointAttributes all = make_attributes(kN);
  for (const Sampling sampling : {Sampling::FirstCome, Sampling::Random}) {
    for (const AttributeMask mask : {kAllAttributes, kSome}) {
      const Octree tree = Octree::build(points, slice_attributes(all, 0, kN, mask), scene.bounds,
                                        channel_config(sampling, mask));
      const NodeSnapshot s = tree.snapshot();
      EXPECT_EQ(s.channels, mask);
      EXPECT_EQ(expect_channels_follow_colours(s, all, mask), kN);
      EXPECT_GT(tree.stats().bytes_channels[static_cast<std::size_t>(Attribute::Intensity)], 0u);
    }
  }
}

TEST(BulkChannels, RandomEqualsTheIncrementalTreeAlsoWithBatchesAfterTheBuild) {
  constexpr std::size_t kN = 40'000;
  const Built streamed = build(kN, kSome, 6000, 1000, 0, Sampling::Random);
  const NodeSnapshot want = streamed.tree.snapshot();
  const Octree bulk =
      Octree::build(streamed.points, streamed.attributes, random_scene(kN, 3).bounds,
                    channel_config(Sampling::Random, kSome));
  expect_same_tree(want, bulk.snapshot(), /*colours=*/true);
  // Half built, the rest inserted: the first batch indexes the built voxels with their records.
  const std::size_t half = kN / 2;
  Octree mixed = Octree::build(
      std::span(streamed.points).first(half), slice_attributes(streamed.attributes, 0, half, kSome),
      random_scene(kN, 3).bounds, channel_config(Sampling::Random, kSome, 1));
  for (std::size_t at = half; at < kN; at += 7000) {
    const std::size_t n = std::min<std::size_t>(7000, kN - at);
    mixed.insert(std::span(streamed.points).subspan(at, n),
                 slice_attributes(streamed.attributes, at, n, kSome));
    mixed.update();
  }
  const NodeSnapshot got = mixed.snapshot();
  expect_same_tree(want, got, /*colours=*/true);
  EXPECT_EQ(expect_channels_follow_colours(got, streamed.attributes, kSome), kN);
}

TEST(BulkChannels, TiesGoToTheLargestRecordDigest) {
  constexpr std::size_t kPositions = 10'000, kCopies = 3;
  const std::vector<Point> points = tied_points(kPositions, kCopies);
  const PointAttributes all = make_attributes(points.size());
  const Octree tree =
      Octree::build(points, slice_attributes(all, 0, points.size(), kSome),
                    random_scene(kPositions, 11).bounds, channel_config(Sampling::Random, kSome));
  EXPECT_GT(expect_ties_go_to_largest_digest(tree.snapshot(), all, kSome, kCopies), 1000u);
}

}  // namespace
}  // namespace simlod::test
