// Attribute channels under Sampling::Random: a voxel takes the record of the point whose colour
// it took (the largest key below its cell), exactly, batch by batch; points of equal keys (equal
// positions and colours) break the tie by the larger record digest, in any order and batching;
// the channels change no colour.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/channel_scenes.hpp"
#include "core/octree_check.hpp"

namespace simlod::test {
namespace {

constexpr AttributeMask kSome = attribute_bit(Attribute::Intensity) |
                                attribute_bit(Attribute::Classification) |
                                attribute_bit(Attribute::GpsTime);

TEST(RandomChannels, VoxelsTakeTheRecordOfThePointWhoseColourTheyTook) {
  // Leaves of 1000 points, batches of 7000: leaves split in later batches, so the stored points
  // fold into the new inner nodes with the records of the spill buffer.
  constexpr std::size_t kN = 60'000;
  for (const AttributeMask mask : {kAllAttributes, kSome}) {
    const Built b = build(kN, mask, 7000, 1000, 0, Sampling::Random);
    const NodeSnapshot s = b.tree.snapshot();
    EXPECT_EQ(expect_channels_follow_colours(s, b.attributes, mask), kN);
    // The channels change no colour: the same tree as without them, colours included.
    const Built plain = build(kN, 0, 7000, 1000, 0, Sampling::Random);
    expect_same_tree(plain.tree.snapshot(), s, /*colours=*/true);
  }
}

TEST(RandomChannels, OneThreadAndOneBatchGiveTheSameRecords) {
  constexpr std::size_t kN = 30'000;
  const Built streamed = build(kN, kSome, 3000, 500, 0, Sampling::Random);
  const Built whole = build(kN, kSome, kN, 500, 1, Sampling::Random);
  const NodeSnapshot a = streamed.tree.snapshot(), b = whole.tree.snapshot();
  expect_same_tree(a, b, /*colours=*/true);
  EXPECT_EQ(expect_channels_follow_colours(a, streamed.attributes, kSome), kN);
  EXPECT_EQ(expect_channels_follow_colours(b, whole.attributes, kSome), kN);
}

/// tied_points() in the order `order`, inserted in batches of `batch` (CPU, `threads`).
NodeSnapshot build_tied(const std::vector<Point>& points, const PointAttributes& all,
                        const std::vector<std::size_t>& order, std::size_t batch,
                        unsigned threads) {
  std::vector<Point> p(order.size());
  PointAttributes a;
  for (std::size_t k = 0; k < order.size(); ++k) {
    p[k] = points[order[k]];
    a.copy_from(slice_attributes(all, order[k], 1, kSome), 1, k, kSome);
  }
  Bounds bounds;
  for (const Point& q : points) bounds.expand(q.x, q.y, q.z);
  Octree tree = Octree::create(bounds, channel_config(Sampling::Random, kSome, threads));
  for (std::size_t at = 0; at < p.size(); at += batch) {
    const std::size_t n = std::min(batch, p.size() - at);
    tree.insert(std::span(p).subspan(at, n), slice_attributes(a, at, n, kSome));
    tree.update();
  }
  return tree.snapshot();
}

TEST(RandomChannels, TiesGoToTheLargestRecordDigestInAnyOrder) {
  constexpr std::size_t kPositions = 12'000, kCopies = 3;
  const std::vector<Point> points = tied_points(kPositions, kCopies);
  const PointAttributes all = make_attributes(points.size());
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  const NodeSnapshot forward = build_tied(points, all, order, 5000, 0);
  std::reverse(order.begin(), order.end());
  const NodeSnapshot backward = build_tied(points, all, order, 3000, 1);
  EXPECT_GT(expect_ties_go_to_largest_digest(forward, all, kSome, kCopies), 1000u);
  EXPECT_GT(expect_ties_go_to_largest_digest(backward, all, kSome, kCopies), 1000u);
}

}  // namespace
}  // namespace simlod::test
