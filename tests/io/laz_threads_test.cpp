// Parallel LAZ decoding: any thread count and batch size gives the same points in order, and
// the batch planner splits only at chunk starts.
#include <gtest/gtest.h>

#include "io/las_chunks.hpp"
#include "las_test_util.hpp"
#include "simlod/io.hpp"
#include "temp_dir.hpp"
#include "test_data.hpp"

namespace simlod::test {
namespace {

using detail::plan_decode_ranges;
using detail::PointRange;

TEST(LazThreads, AnyThreadsAndBatchSizeGiveTheSamePoints) {
  SIMLOD_REQUIRE_TEST_DATA(data);
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  const auto path = data / "lion_takanawa.laz";  // 7 chunks of 50,000 points
  const auto reference = read_all(path, {.origin = {}, .threads = 1}, 1'000'000);
  ASSERT_EQ(reference.size(), 341'989u);
  for (const unsigned threads : {1u, 2u, 7u}) {
    for (const std::size_t batch : {1u, 999u, 50'000u, 1'000'000u}) {
      EXPECT_EQ(read_all(path, {.origin = {}, .threads = threads}, batch), reference)
          << threads << " threads, batch " << batch;
    }
  }
}

TEST(LazThreads, WrittenFileWithManyChunksDecodesInParallel) {
  if (!laz_supported()) GTEST_SKIP() << "this build has no LAZ support";
  TempDir dir;
  const auto points = synthetic_points(260'000);  // 6 chunks, the last one partial
  write_points(dir / "many.laz", points,
               {.origin = {}, .scale = {0.001, 0.001, 0.001}, .las_point_format = 7});
  const auto sequential = read_all(dir / "many.laz", {.origin = {}, .threads = 1});
  ASSERT_EQ(sequential.size(), points.size());
  for (const std::size_t batch : {70'001u, 1'000'000u}) {
    EXPECT_EQ(read_all(dir / "many.laz", {.origin = {}, .threads = 4}, batch), sequential);
  }
}

TEST(LazThreads, PlanSplitsAtChunkStarts) {
  // 1M points from 0 with 50,000-point chunks over 4 threads: cuts at 250k, 500k, 750k.
  const auto ranges = plan_decode_ranges(0, 1'000'000, 50'000, 4);
  ASSERT_EQ(ranges.size(), 4u);
  EXPECT_EQ(ranges[1], (PointRange{250'000, 500'000}));
  // A batch that starts mid-chunk keeps its first range up to a chunk start.
  for (const auto& r : plan_decode_ranges(12'345, 512'345, 50'000, 7)) {
    if (r.begin != 12'345) {
      EXPECT_EQ(r.begin % 50'000, 0u);
    }
    EXPECT_LT(r.begin, r.end);
  }
}

TEST(LazThreads, PlanCoversTheBatchExactlyOnce) {
  for (const unsigned threads : {1u, 2u, 3u, 16u, 64u}) {
    for (const std::uint64_t begin : {0ull, 1ull, 49'999ull, 50'000ull, 123'456ull}) {
      for (const std::uint64_t count : {1ull, 999ull, 50'000ull, 50'001ull, 1'000'000ull}) {
        const auto ranges = plan_decode_ranges(begin, begin + count, 50'000, threads);
        ASSERT_FALSE(ranges.empty());
        EXPECT_LE(ranges.size(), threads);
        EXPECT_EQ(ranges.front().begin, begin);
        EXPECT_EQ(ranges.back().end, begin + count);
        for (std::size_t i = 0; i < ranges.size(); ++i) {
          EXPECT_LT(ranges[i].begin, ranges[i].end);
          if (i > 0) {
            EXPECT_EQ(ranges[i].begin, ranges[i - 1].end);
            EXPECT_EQ(ranges[i].begin % 50'000, 0u);
          }
        }
      }
    }
  }
}

TEST(LazThreads, VariableOrPointwiseChunksDecodeSequentially) {
  using detail::laz_parallel_chunk_size;
  auto vlr = [](std::uint16_t compressor, std::uint32_t chunk_size) {
    detail::LaszipVlr v;
    v.compressor = compressor;
    v.chunk_size = chunk_size;
    return v;
  };
  EXPECT_EQ(laz_parallel_chunk_size(vlr(2, 50'000), 1'000'000), 50'000u);
  EXPECT_EQ(laz_parallel_chunk_size(vlr(3, 50'000), 1'000'000), 50'000u);
  EXPECT_EQ(laz_parallel_chunk_size(vlr(2, 0xFFFFFFFFu), 1'000'000), 0u);  // variable
  EXPECT_EQ(laz_parallel_chunk_size(vlr(1, 50'000), 1'000'000), 0u);       // pointwise
  EXPECT_EQ(laz_parallel_chunk_size(std::nullopt, 1'000'000), 0u);
  EXPECT_EQ(plan_decode_ranges(0, 1'000'000, 0, 16).size(), 1u);
}

}  // namespace
}  // namespace simlod::test
