// Two VisibilityMaps with the same results: pair counts, links per level, every leaf pair's
// visible() and every node's links (for the CUDA-against-CPU and the blocked-against-whole
// tests).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "simlod/visibility.hpp"

namespace simlod::test {

inline void expect_same_links(const VisibilityMap& a, const VisibilityMap& b) {
  EXPECT_EQ(a.stats().facing_pairs, b.stats().facing_pairs);
  EXPECT_EQ(a.stats().visible_pairs, b.stats().visible_pairs);
  EXPECT_EQ(a.stats().links, b.stats().links);
  EXPECT_EQ(a.stats().links_per_level, b.stats().links_per_level);
  ASSERT_EQ(a.leaves().size(), b.leaves().size());
  ASSERT_EQ(a.nodes().size(), b.nodes().size());
  const auto leaves = static_cast<std::uint32_t>(b.leaves().size());
  for (std::uint32_t x = 0; x < leaves; ++x) {
    for (std::uint32_t y = x + 1; y < leaves; ++y) {
      ASSERT_EQ(a.visible(x, y), b.visible(x, y)) << x << " " << y;
      ASSERT_EQ(a.visible(y, x), b.visible(x, y)) << y << " " << x;
    }
  }
  for (std::uint32_t n = 0; n < b.nodes().size(); ++n) {
    const auto u = a.links(n), v = b.links(n);
    ASSERT_TRUE(std::equal(u.begin(), u.end(), v.begin(), v.end())) << "links of node " << n;
  }
}

}  // namespace simlod::test
