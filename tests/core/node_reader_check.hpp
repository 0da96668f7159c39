// The node reader (Octree::for_each_node, read_node) against the snapshot of the same octree:
// both list nodes in id order (snapshot index = node id), so records and samples must match
// exactly, read whole or in pieces. Shared by the CPU and GPU tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "simlod/error.hpp"
#include "simlod/octree.hpp"

namespace simlod::test {

inline bool same_point(const Point& a, const Point& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.rgba == b.rgba;
}

/// Every node's record equals the snapshot's; every node read in pieces of `piece` samples
/// (starting anywhere) gives the snapshot's samples in order.
inline void expect_reader_matches_snapshot(const Octree& tree, std::size_t piece) {
  const NodeSnapshot snap = tree.snapshot();
  std::vector<NodeInfo> infos;
  tree.for_each_node([&](const NodeInfo& n) { infos.push_back(n); });
  ASSERT_EQ(infos.size(), snap.nodes.size());
  std::vector<Point> buffer(piece);
  for (std::uint32_t id = 0; id < infos.size(); ++id) {
    const NodeInfo& n = infos[id];
    const NodeSnapshot::Node& s = snap.nodes[id];
    ASSERT_EQ(n.id, id);
    EXPECT_EQ(n.level, s.level);
    EXPECT_EQ(n.position, s.position);
    EXPECT_EQ(n.leaf, s.leaf);
    EXPECT_EQ(n.bounds.min, s.bounds.min);
    EXPECT_EQ(n.bounds.max, s.bounds.max);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(n.children[k], s.children[k]) << "node " << id;
    const std::vector<Point>& expected = s.leaf ? s.points : s.voxels;
    ASSERT_EQ(n.samples, expected.size()) << "node " << id;
    // Start at an odd offset too, so that pieces straddle chunk boundaries differently.
    for (const std::uint64_t start : {std::uint64_t{0}, std::uint64_t{expected.size() / 3}}) {
      std::vector<Point> got;
      for (std::uint64_t at = start;;) {
        const std::uint64_t k = tree.read_node(id, buffer, at);
        if (k == 0) break;
        ASSERT_LE(k, buffer.size());
        got.insert(got.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(k));
        at += k;
      }
      ASSERT_EQ(got.size(), expected.size() - start) << "node " << id;
      EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin() + start, same_point))
          << "node " << id << " from " << start;
    }
  }
  EXPECT_EQ(tree.read_node(0, buffer, ~std::uint64_t{0}), 0u);  // past the end: nothing
  EXPECT_THROW((void)tree.read_node(static_cast<std::uint32_t>(infos.size()), buffer),
               InvalidInput);
}

}  // namespace simlod::test
