// The fixed batch order of a stream (src/stream/stream_plan.hpp).
#include "stream/stream_plan.hpp"

#include <gtest/gtest.h>

namespace simlod::detail {
namespace {

std::vector<std::uint32_t> sizes(const StreamPlan& plan) {
  std::vector<std::uint32_t> out;
  for (const auto& b : plan.batches) out.push_back(b.points);
  return out;
}

TEST(StreamPlan, SeekableFilesGetOneUnitPerBatchAndTheFirstBatchIsSmall) {
  const StreamPlan plan = make_stream_plan({{250, 1, false}, {120, 1, false}}, 30, 100);
  EXPECT_EQ(sizes(plan), (std::vector<std::uint32_t>{30, 100, 100, 20, 100, 20}));
  ASSERT_EQ(plan.units.size(), plan.batches.size());
  EXPECT_EQ(plan.batches[3].first, 230u);
  EXPECT_EQ(plan.batches[4].source, 1u);
  EXPECT_EQ(plan.batches[4].first, 0u);
  EXPECT_EQ(plan.last_of_source, (std::vector<bool>{false, false, false, true, false, true}));
}

TEST(StreamPlan, ChunkedFilesAreCutAtWholeChunks) {
  // Chunks of 40: a batch of 100 holds two chunks; the first batch (30) is smaller than a
  // chunk, so the first chunk is read in order as 30 + 10.
  const StreamPlan plan = make_stream_plan({{250, 40, false}}, 30, 100);
  EXPECT_EQ(sizes(plan), (std::vector<std::uint32_t>{30, 10, 80, 80, 50}));
  ASSERT_EQ(plan.units.size(), 4u);
  EXPECT_EQ(plan.units[0].batch_count, 2u);
  for (const auto& b : plan.batches) {
    if (b.first != 30) {
      EXPECT_EQ(b.first % 40, 0u) << "a unit starts mid-chunk";
    }
  }
}

TEST(StreamPlan, ChunksLargerThanABatchAreReadInOrderInBatches) {
  const StreamPlan plan = make_stream_plan({{250, 200, false}}, 100, 100);
  EXPECT_EQ(sizes(plan), (std::vector<std::uint32_t>{100, 100, 50}));
  ASSERT_EQ(plan.units.size(), 2u);
  EXPECT_EQ(plan.units[0].batch_count, 2u);
}

TEST(StreamPlan, SequentialSourcesAreOneUnit) {
  const StreamPlan plan = make_stream_plan({{250, 0, false}}, 50, 100);
  EXPECT_EQ(sizes(plan), (std::vector<std::uint32_t>{50, 100, 100}));
  ASSERT_EQ(plan.units.size(), 1u);
  EXPECT_EQ(plan.units[0].batch_count, 3u);
}

TEST(StreamPlan, FailedAndEmptySourcesKeepOneEmptyBatchAtTheirPlace) {
  const StreamPlan plan =
      make_stream_plan({{10, 1, false}, {0, 0, true}, {0, 1, false}, {10, 1, false}}, 100, 100);
  EXPECT_EQ(sizes(plan), (std::vector<std::uint32_t>{10, 0, 0, 10}));
  EXPECT_EQ(plan.batches[1].source, 1u);
  EXPECT_EQ(plan.batches[2].source, 2u);
  EXPECT_EQ(plan.last_of_source, (std::vector<bool>{true, true, true, true}));
}

}  // namespace
}  // namespace simlod::detail
