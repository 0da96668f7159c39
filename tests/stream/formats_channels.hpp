// The channels of an octree streamed from formats/f6.las (the shared data's formats/ rule): a
// check shared by the stream tests of both backends.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "simlod/octree.hpp"

namespace simlod::test {

/// The channels the checks read.
inline constexpr AttributeMask kChannels = attribute_bit(Attribute::Classification) |
                                           attribute_bit(Attribute::Intensity) |
                                           attribute_bit(Attribute::GpsTime);

/// Every point of formats/f6.las is stored once with its own attributes, every voxel with those
/// of one point.
inline void expect_formats_channels(const NodeSnapshot& s) {
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

}  // namespace simlod::test
