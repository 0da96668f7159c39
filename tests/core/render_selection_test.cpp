// Node selection: hand-computed sets for a small tree, frustum culling, the budget, and on a
// synthetic tree the invariant that every visible leaf is covered by exactly one drawn node.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/cpu/render/render.hpp"
#include "core/octree_test_util.hpp"
#include "core/render_test_util.hpp"

namespace simlod::test {
namespace {

using detail::cpu::Selection;
using detail::cpu::SnapshotTree;

/// Root [0, 8]^3 (inner, one voxel) with 8 leaf children of one point each; child of octant o
/// is snapshot node 1 + o.
NodeSnapshot two_level_tree() {
  NodeSnapshot s;
  s.nodes.resize(9);
  s.nodes[0].bounds.expand(0, 0, 0);
  s.nodes[0].bounds.expand(8, 8, 8);
  s.nodes[0].leaf = false;
  s.nodes[0].voxels.push_back({4.0f, 4.0f, 4.0f, pack_rgba(9, 9, 9)});
  for (std::uint32_t o = 0; o < 8; ++o) {
    auto& c = s.nodes[1 + o];
    s.nodes[0].children[o] = static_cast<std::int32_t>(1 + o);
    c.level = 1;
    c.position = {o & 1u, (o >> 1) & 1u, o >> 2};
    const float x = 4.0f * c.position[0] + 2, y = 4.0f * c.position[1] + 2,
                z = 4.0f * c.position[2] + 2;
    c.points.push_back({x, y, z, pack_rgba(o, 0, 0)});
  }
  return s;
}

std::vector<std::uint32_t> selected(const NodeSnapshot& s, View view, float threshold,
                                    std::uint64_t budget = 0) {
  view.lod_threshold = threshold;
  view.point_budget = budget;
  detail::PoolView pool(detail::ThreadPool::shared(), 2);
  return detail::cpu::select_nodes(SnapshotTree(s), detail::make_render_job(view, 8.0f), pool)
      .drawn;
}

using Ids = std::vector<std::uint32_t>;

TEST(RenderSelection, HandComputedSetsOfATwoLevelTree) {
  const NodeSnapshot s = two_level_tree();
  // Top view of the whole root on 64 x 64 pixels: root 64 px, children 32 px on screen.
  const View view = top_view(0, 8, 0, 8, 64, 64);
  EXPECT_EQ(selected(s, view, 128.0f), Ids({0}));                      // root small enough
  EXPECT_EQ(selected(s, view, 64.0f), Ids({0}));                       // size <= T
  EXPECT_EQ(selected(s, view, 63.0f), Ids({1, 2, 3, 4, 5, 6, 7, 8}));  // refined
  EXPECT_EQ(selected(s, view, 0.0f), Ids({1, 2, 3, 4, 5, 6, 7, 8}));   // no LOD
}

TEST(RenderSelection, FrustumCullingDropsOctantsOutsideTheView) {
  const NodeSnapshot s = two_level_tree();
  // Only x in [0, 3.9] is on screen: the children with x-octant 1 (x in [4, 8]) are culled.
  const View view = top_view(0, 3.9f, 0, 8, 64, 64);
  EXPECT_EQ(selected(s, view, 48.0f), Ids({1, 3, 5, 7}));
}

TEST(RenderSelection, NodesBehindTheCameraAreCulled) {
  const NodeSnapshot s = two_level_tree();
  // Looking away from the cube: nothing.
  View away = View::look_at({4, -1, 4}, {4, -5, 4}, {0, 0, 1}, 90, 64, 64, 0.1, 100);
  EXPECT_TRUE(selected(s, away, 48.0f).empty());
  // Inside the root at y = 6 looking along +y: the children with y in [0, 4] are behind the
  // camera; those with y in [4, 8] reach the near plane (unbounded size), leaves: drawn.
  View inside = View::look_at({4, 6, 4}, {4, 9, 4}, {0, 0, 1}, 90, 64, 64, 0.1, 100);
  EXPECT_EQ(selected(s, inside, 48.0f), Ids({3, 4, 7, 8}));
  EXPECT_EQ(selected(s, inside, 1e6f), Ids({3, 4, 7, 8}));  // the root is never small enough
}

TEST(RenderSelection, BudgetRaisesTheThreshold) {
  const NodeSnapshot s = two_level_tree();
  const View view = top_view(0, 8, 0, 8, 64, 64);
  EXPECT_EQ(selected(s, view, 32.0f, 100), Ids({1, 2, 3, 4, 5, 6, 7, 8}));  // 8 samples fit
  EXPECT_EQ(selected(s, view, 32.0f, 7), Ids({0}));  // 8 do not: coarsened to the root
  EXPECT_EQ(selected(s, view, 0.0f, 7), Ids({0}));   // also from "no LOD"
}

TEST(RenderSelection, StatsCountTheDrawnSamples) {
  const NodeSnapshot s = two_level_tree();
  Framebuffer fb(64, 64, Backend::Cpu);
  View view = top_view(0, 8, 0, 8, 64, 64);
  view.lod_threshold = 128.0f;
  RenderStats st = rasterize(s, view, fb);
  EXPECT_EQ(st.nodes, 1u);
  EXPECT_EQ(st.leaves, 0u);
  EXPECT_EQ(st.voxels, 1u);
  EXPECT_EQ(covered(fb.download(), view.background), 1u);
  view.lod_threshold = 16.0f;
  st = rasterize(s, view, fb);
  EXPECT_EQ(st.nodes, 8u);
  EXPECT_EQ(st.leaves, 8u);
  EXPECT_EQ(st.points, 8u);
  EXPECT_EQ(st.threshold, 16.0f);
  EXPECT_EQ(covered(fb.download(), view.background), 4u);  // 8 points, 2 per top-down pixel
}

/// Every leaf not culled has exactly one drawn node on its path from the root; no drawn node
/// has a drawn ancestor.
void expect_cover(const NodeSnapshot& s, const View& view, float edge, const Selection& sel) {
  std::vector<std::int32_t> parent(s.nodes.size(), -1);
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    for (std::int32_t c : s.nodes[i].children) {
      if (c >= 0) parent[c] = static_cast<std::int32_t>(i);
    }
  }
  std::vector<bool> drawn(s.nodes.size(), false);
  for (std::uint32_t i : sel.drawn) drawn[i] = true;
  const detail::RenderJob job = detail::make_render_job(view, edge);
  std::size_t leaves_checked = 0;
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    const auto& n = s.nodes[i];
    int on_path = 0;
    for (std::int32_t a = static_cast<std::int32_t>(i); a >= 0; a = parent[a]) on_path += drawn[a];
    if (drawn[i]) {
      EXPECT_EQ(on_path, 1) << "node " << i << " and an ancestor are both drawn";
    }
    if (!n.leaf) continue;
    bool culled = false;
    (void)detail::projected_size(
        job.params,
        detail::node_box(job.params.edge, n.level, n.position[0], n.position[1], n.position[2]),
        culled);
    if (culled) continue;
    ++leaves_checked;
    EXPECT_EQ(on_path, 1) << "visible leaf " << i;
  }
  EXPECT_GT(leaves_checked, 0u);
}

TEST(RenderSelection, VisibleLeavesAreCoveredExactlyOnce) {
  const Scene& scene = synth_scene(200'000, synth::Order::Scan);
  Octree tree = build(scene.bounds, small_config(1000, 32, 500), scene.points, 50'000);
  const NodeSnapshot s = tree.snapshot();
  const auto edge = static_cast<float>(s.nodes[0].bounds.max[0]);
  Bounds box;
  for (const Point& p : scene.points) box.expand(p.x, p.y, p.z);
  const View overview = View::overview(box, 320, 200, 30.0, 40.0);
  const auto c = box.center();
  const View close = View::look_at({c[0], box.min[1], c[2] + 5.0}, {c[0], c[1], c[2]}, {0, 0, 1},
                                   60.0, 320, 200, 0.5, 5000.0);
  detail::PoolView pool(detail::ThreadPool::shared(), 2);
  for (const View& base : {overview, close}) {
    for (float t : {0.0f, 8.0f, 32.0f, 100.0f, 1000.0f}) {
      View v = base;
      v.lod_threshold = t;
      const Selection sel =
          detail::cpu::select_nodes(SnapshotTree(s), detail::make_render_job(v, edge), pool);
      SCOPED_TRACE("threshold " + std::to_string(t));
      expect_cover(s, v, edge, sel);
    }
  }
}

}  // namespace
}  // namespace simlod::test
