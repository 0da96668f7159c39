// A Streamer filling the octree's attribute channels (OctreeConfig::channels): every stored
// point carries its own attributes, every voxel those of one point of its cell, and the bad
// requests are refused up front.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "io/test_data.hpp"
#include "simlod/error.hpp"
#include "stream/formats_channels.hpp"
#include "stream/stream_test_util.hpp"

namespace simlod::test {
namespace {

TEST(StreamChannels, EveryPointKeepsItsAttributes) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  StreamConfig config = cpu_stream(30'000, 1'000);
  config.octree.channels = kChannels;
  config.octree.max_points_per_leaf = 2000;  // leaves split while the stream goes in
  Streamer streamer = Streamer::open({data / "formats" / "f6.las"}, config);
  EXPECT_TRUE(stream_to_end(streamer).empty());
  const NodeSnapshot s = streamer.octree().snapshot();
  EXPECT_EQ(s.channels, kChannels);
  expect_formats_channels(s);
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
