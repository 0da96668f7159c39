// A Streamer colouring points by an attribute (StreamConfig::color_by): every point of the
// octree has the colour of its attribute, and the bad requests are refused up front.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "io/test_data.hpp"
#include "simlod/detail/attribute_palette.hpp"
#include "simlod/error.hpp"
#include "stream/stream_test_util.hpp"

namespace simlod::test {
namespace {

std::vector<std::uint32_t> leaf_colours(const NodeSnapshot& s) {
  std::vector<std::uint32_t> out;
  for (const auto& n : s.nodes) {
    for (const Point& p : n.points) out.push_back(p.rgba);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(StreamColoring, ClassificationColoursEveryPoint) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  StreamConfig config = cpu_stream(30'000, 1'000);
  config.color_by.by = ColorBy::Classification;
  Streamer streamer = Streamer::open({data / "formats" / "f6.las"}, config);
  EXPECT_TRUE(stream_to_end(streamer).empty());
  // The formats/ rule: point i has class i % 20.
  std::vector<std::uint32_t> expected;
  for (std::uint32_t i = 0; i < 100'000; ++i) {
    expected.push_back(detail::classification_rgba(i % 20));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(leaf_colours(streamer.octree().snapshot()), expected);
}

TEST(StreamColoring, IntensitySharesOneRangeOverTheStream) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  StreamConfig config = cpu_stream(20'000, 1'000);
  config.color_by.by = ColorBy::Intensity;
  config.color_by.intensity_range = std::array<float, 2>{0.0f, 65535.0f};
  Streamer streamer = Streamer::open({data / "formats" / "f1.las"}, config);
  EXPECT_TRUE(stream_to_end(streamer).empty());
  std::vector<std::uint32_t> expected;
  for (std::uint32_t i = 0; i < 100'000; ++i) {
    const auto g =
        static_cast<std::uint32_t>(std::lround(static_cast<float>(i & 0xFFFF) / 65535.0f * 255.0f));
    expected.push_back(pack_rgba(g, g, g));
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(leaf_colours(streamer.octree().snapshot()), expected);
}

TEST(StreamColoring, RequestsThatCannotHoldAreRefused) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  StreamConfig config = cpu_stream(20'000);
  config.color_by.by = ColorBy::Classification;
  try {
    (void)Streamer::open({data / "bun_zipper.ply"}, config);
    ADD_FAILURE() << "a PLY without classification was coloured by it";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("classification"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)Streamer::synthetic({.points = 1000}, config), InvalidInput);
  config.color_by.by = ColorBy::Intensity;
  config.color_by.intensity_range = std::array<float, 2>{3.0f, 3.0f};
  EXPECT_THROW((void)Streamer::open({data / "formats" / "f1.las"}, config), InvalidInput);
}

TEST(StreamColoring, AFileWithoutTheAttributeFailsAlone) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  StreamConfig config = cpu_stream(20'000);
  config.color_by.by = ColorBy::Classification;
  Streamer streamer =
      Streamer::open({data / "formats" / "f6.las", data / "bun_zipper.ply"}, config);
  const auto errors = stream_to_end(streamer);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("bun_zipper.ply"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("classification"), std::string::npos) << errors[0];
  EXPECT_EQ(streamer.octree().stats().points, 100'000u);
}

}  // namespace
}  // namespace simlod::test
