// A Streamer filling the octree's attribute channels (OctreeConfig::channels): every stored
// point carries its own attributes, every voxel those of one point of its cell, and the bad
// requests are refused up front.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "io/test_data.hpp"
#include "simlod/error.hpp"
#include "stream/stream_test_util.hpp"

namespace simlod::test {
namespace {

constexpr AttributeMask kChannels = attribute_bit(Attribute::Classification) |
                                    attribute_bit(Attribute::Intensity) |
                                    attribute_bit(Attribute::GpsTime);

TEST(StreamChannels, EveryPointKeepsItsAttributes) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  StreamConfig config = cpu_stream(30'000, 1'000);
  config.octree.channels = kChannels;
  config.octree.max_points_per_leaf = 2000;  // leaves split while the stream goes in
  Streamer streamer = Streamer::open({data / "formats" / "f6.las"}, config);
  EXPECT_TRUE(stream_to_end(streamer).empty());
  const NodeSnapshot s = streamer.octree().snapshot();
  EXPECT_EQ(s.channels, kChannels);
  // The formats/ rule: point i lies at x = 0.01 (i % 1000), y = 0.01 (i / 1000) and has class
  // i % 20, intensity i & 0xFFFF, GPS time i * 0.001.
  std::vector<int> seen(100'000, 0);
  std::size_t voxels = 0;
  for (const auto& n : s.nodes) {
    if (!n.leaf) {
      for (std::size_t j = 0; j < n.voxels.size(); ++j, ++voxels) {
        // One point of the cell: the GPS time names it, the others must agree.
        const auto i = static_cast<std::uint32_t>(std::lround(n.attributes.gps_time[j] / 0.001));
        ASSERT_LT(i, 100'000u);
        EXPECT_EQ(n.attributes.classification[j], i % 20);
        EXPECT_EQ(n.attributes.intensity[j], i & 0xFFFFu);
      }
      continue;
    }
    ASSERT_EQ(n.attributes.classification.size(), n.points.size());
    for (std::size_t j = 0; j < n.points.size(); ++j) {
      const auto i = static_cast<std::uint32_t>(std::lround(n.points[j].y / 0.01) * 1000 +
                                                std::lround(n.points[j].x / 0.01));
      ASSERT_LT(i, 100'000u);
      ++seen[i];
      EXPECT_EQ(n.attributes.classification[j], i % 20) << "point " << i;
      EXPECT_EQ(n.attributes.intensity[j], i & 0xFFFFu) << "point " << i;
      EXPECT_DOUBLE_EQ(n.attributes.gps_time[j], i * 0.001) << "point " << i;
    }
  }
  EXPECT_GT(voxels, 0u);
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "point " << i;
}

TEST(StreamChannels, RequestsThatCannotHoldAreRefused) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  StreamConfig config = cpu_stream(20'000);
  config.octree.channels = attribute_bit(Attribute::Classification);
  try {
    (void)Streamer::open({data / "bun_zipper.ply"}, config);
    ADD_FAILURE() << "a PLY without classification filled its channel";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("classification"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)Streamer::synthetic({.points = 1000}, config), InvalidInput);
  // A file without the channel fails alone; the others fill it.
  Streamer streamer =
      Streamer::open({data / "formats" / "f6.las", data / "bun_zipper.ply"}, config);
  const auto errors = stream_to_end(streamer);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("bun_zipper.ply"), std::string::npos) << errors[0];
  EXPECT_EQ(streamer.octree().stats().points, 100'000u);
}

}  // namespace
}  // namespace simlod::test
