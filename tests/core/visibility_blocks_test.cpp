// VisibilityMap built in blocks (a leaf matrix beyond VisibilityConfig::matrix_bytes): the same
// pair counts, links and visible() as the whole matrix, for budgets of a third and an eighth of
// the leaves a group, and of two leaves (hundreds of tiles); a blocked map saved and loaded; a
// budget of 0 refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/cpu/visibility/blocks.hpp"
#include "core/expect_refused.hpp"
#include "core/visibility_compare.hpp"
#include "core/visibility_scenes.hpp"
#include "simlod/visibility.hpp"

namespace simlod::test {
namespace {

/// Groups the blocked build of `s` makes for `bytes`.
std::size_t groups_for(const VisScene& s, const VisibilityConfig& config, std::uint64_t bytes) {
  const auto tree = detail::cpu::build_vis_tree(s.points, s.normals, config);
  return detail::cpu::plan_blocks(detail::cpu::vis_levels(tree), bytes * 8).groups.size() - 1;
}

TEST(VisibilityBlocks, SameMapAsTheWholeMatrix) {
  const VisScene big = box_scene(1.0 / 30, 0.13, 1.0 / 60);
  const VisScene small = box_scene(1.0 / 10, 0.13, 1.0 / 20);
  struct Case {
    const VisScene* scene;
    VisibilityConfig config;
    double group;  ///< a group's share of the leaves, or 0 for a budget of 1 byte
  };
  const Case cases[] = {{&big, {5, 4, 1, Backend::Cpu}, 1.0 / 3},
                        {&big, {6, 2, 2, Backend::Cpu}, 1.0 / 8},
                        {&small, {4, 2, 1, Backend::Cpu}, 0.0}};
  for (const Case& c : cases) {
    const VisibilityMap whole = VisibilityMap::build(c.scene->points, c.scene->normals, c.config);
    const std::uint64_t leaves = whole.stats().leaves;
    const auto width = static_cast<std::uint64_t>(static_cast<double>(leaves) * c.group);
    VisibilityConfig blocked_config = c.config;
    blocked_config.matrix_bytes = c.group > 0 ? 2 * width * width / 8 : 1;
    SCOPED_TRACE(testing::Message()
                 << leaves << " leaves, " << blocked_config.matrix_bytes << " bytes a tile");
    EXPECT_GE(groups_for(*c.scene, c.config, blocked_config.matrix_bytes), 3u);
    const VisibilityMap blocked =
        VisibilityMap::build(c.scene->points, c.scene->normals, blocked_config);
    EXPECT_GT(whole.stats().visible_pairs, 0u);
    EXPECT_LT(blocked.stats().bytes, whole.stats().bytes);  // no matrix kept
    expect_same_links(blocked, whole);
  }
}

TEST(VisibilityBlocks, BlockedMapSavesAndLoads) {
  const VisScene s = box_scene(1.0 / 16, 0.13, 1.0 / 32);
  const VisibilityMap whole = VisibilityMap::build(s.points, s.normals, {4, 4, 1, Backend::Cpu});
  const VisibilityMap blocked =
      VisibilityMap::build(s.points, s.normals, {4, 4, 1, Backend::Cpu, 64});
  const auto path = std::filesystem::temp_directory_path() / "simlod_blocked_map.slvmap";
  blocked.save(path);
  const VisibilityMap loaded = VisibilityMap::load(path);
  std::filesystem::remove(path);
  expect_same_links(loaded, whole);
}

TEST(VisibilityBlocks, ZeroBudgetIsRefused) {
  const VisScene s = box_scene(1.0 / 10, 0.13);
  expect_refused(
      [&] {
        (void)VisibilityMap::build(s.points, s.normals, {4, 4, 1, Backend::Cpu, 0});
      },
      "matrix_bytes");
}

}  // namespace
}  // namespace simlod::test
