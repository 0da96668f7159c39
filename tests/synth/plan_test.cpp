// The tile plan: exact totals, bounded tiles, and the level growing with the point count.
#include "synth/plan.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "synth/scene.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {
namespace {

std::uint64_t total(const TilePlan& plan) {
  std::uint64_t sum = 0;
  for (std::uint32_t t = 0; t < plan.tile_count(); ++t) sum += plan.budget(t);
  return sum;
}

std::uint64_t fullest(const TilePlan& plan) {
  std::uint64_t most = 0;
  for (std::uint32_t t = 0; t < plan.tile_count(); ++t) most = std::max(most, plan.budget(t));
  return most;
}

TEST(SynthPlan, BudgetsAddUpExactly) {
  const Scene scene(3);
  for (std::uint64_t n : {0ull, 1ull, 7ull, 12345ull, 1'000'003ull, 123'456'789ull}) {
    const TilePlan plan(scene, n, kMaxUnitPoints);
    EXPECT_EQ(total(plan), n) << n;
  }
}

TEST(SynthPlan, TilesStayWithinTheMemoryBound) {
  const Scene scene(1);
  int last_level = -1;
  for (std::uint64_t n : {100'000ull, 10'000'000ull, 300'000'000ull, 2'000'000'000ull}) {
    const TilePlan plan(scene, n, kMaxUnitPoints);
    EXPECT_LE(fullest(plan), kMaxUnitPoints) << n;
    EXPECT_GE(plan.level(), last_level);
    last_level = plan.level();
  }
  EXPECT_GE(last_level, 8);
}

TEST(SynthPlan, EveryPopulatedTileHasSurfaces) {
  const Scene scene(2);
  const TilePlan plan(scene, 50'000, 2'000);
  ASSERT_GE(plan.level(), 3);
  std::size_t with_elements = 0;
  for (std::uint32_t t = 0; t < plan.tile_count(); ++t) {
    with_elements += plan.elements(t).empty() ? 0 : 1;
    double weight = 0.0;
    for (const Element& e : plan.elements(t)) weight += e.weight;
    const std::uint32_t cells = plan.cells_per_tile();
    const std::uint32_t side = plan.tiles_per_side();
    for (std::uint32_t j = 0; j < cells; ++j) {
      for (std::uint32_t i = 0; i < cells; ++i) {
        weight += plan.cell_weight((t % side) * cells + i, (t / side) * cells + j);
      }
    }
    if (plan.budget(t) > 0) {
      EXPECT_GT(weight, 0.0) << t;
    }
  }
  EXPECT_GT(with_elements, plan.tile_count() / 4);
}

TEST(SynthPlan, SceneIsTheSameForEveryPointCount) {
  const Scene a(5);
  const Scene b(5);
  ASSERT_EQ(a.primitives.size(), b.primitives.size());
  EXPECT_GT(a.primitives.size(), 1000u);
  EXPECT_GT(a.footprints.rects().size(), 50u);
  EXPECT_EQ(a.bounds.hi.z, b.bounds.hi.z);
}

}  // namespace
}  // namespace simlod::synth::detail
