// FenwickIndex on CUDA against the CPU build: the same words bit for bit, the same query
// results, updates, and the device-side input.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/random_values.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"
#include "simlod/fenwick.hpp"
#include "simlod/rank_bitmap.hpp"

#if SIMLOD_TEST_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace simlod::test {
namespace {

TEST(GpuFenwick, BuildIsBitIdenticalAndQueriesAgree) {
  SIMLOD_REQUIRE_GPU();
  for (std::uint64_t n : {1ull, 3ull, 4096ull, 4097ull, 1000003ull, (1ull << 22) + 5}) {
    for (std::uint32_t b : {1u, 4u, 8u, 31u, 32u}) {
      SCOPED_TRACE(testing::Message() << "n " << n << ", b " << b);
      const auto v = random_values(n, b, static_cast<std::uint32_t>(n + 17 * b));
      const FenwickIndex cpu = FenwickIndex::build(v, b, Backend::Cpu);
      const FenwickIndex gpu = FenwickIndex::build(v, b, Backend::Cuda);
      ASSERT_EQ(gpu.backend(), Backend::Cuda);
      EXPECT_EQ(gpu.words(), cpu.words());
      std::vector<std::uint32_t> back(n);
      gpu.values(back);
      EXPECT_EQ(back, v);
      std::mt19937_64 rng(n);
      std::vector<std::uint64_t> ks(std::min<std::uint64_t>(n + 1, 100'000));
      for (auto& k : ks) k = rng() % (n + 1);
      std::vector<std::uint64_t> a(ks.size()), c(ks.size());
      gpu.prefix(ks, a);
      cpu.prefix(ks, c);
      EXPECT_EQ(a, c);
      for (auto& k : ks) k = rng() % n;
      gpu.value(ks, a);
      cpu.value(ks, c);
      EXPECT_EQ(a, c);
      for (std::size_t i = 0; i < ks.size(); ++i) ASSERT_EQ(a[i], v[ks[i]]) << ks[i];
    }
  }
}

// Trees larger than the other tests' (b = 8 at 2^24 + 5 elements, 18.9 MB; the paper's 1-bit
// case at 2^27 + 3, 33.6 MB) answer batches of random keys, repeated ones and both ends among
// them, against the input and its prefix sums.
TEST(GpuFenwick, LargeTreesAnswerBatchedQueries) {
  SIMLOD_REQUIRE_GPU();
  for (const auto& [n, b] : {std::pair{(1ull << 24) + 5, 8u}, std::pair{(1ull << 27) + 3, 1u}}) {
    SCOPED_TRACE(testing::Message() << "n " << n << ", b " << b);
    const auto v = random_values(n, b, static_cast<std::uint32_t>(b));
    const FenwickIndex gpu = FenwickIndex::build(v, b, Backend::Cuda);
    std::vector<std::uint64_t> sums(n + 1, 0);
    for (std::uint64_t i = 0; i < n; ++i) sums[i + 1] = sums[i] + v[i];
    std::mt19937_64 rng(n);
    std::vector<std::uint64_t> ks((1u << 17) + 3);
    for (auto& k : ks) k = rng() % (n + 1);
    ks[0] = 0;
    ks[1] = n;
    ks[2] = ks[3];  // a repeated key
    std::vector<std::uint64_t> out(ks.size());
    gpu.prefix(ks, out);
    for (std::size_t i = 0; i < ks.size(); ++i) ASSERT_EQ(out[i], sums[ks[i]]) << "key " << ks[i];
    for (auto& k : ks) k = rng() % n;
    gpu.value(ks, out);
    for (std::size_t i = 0; i < ks.size(); ++i) ASSERT_EQ(out[i], v[ks[i]]) << "key " << ks[i];
  }
}

TEST(GpuFenwick, UpdatesAndBadInputMatchTheCpu) {
  SIMLOD_REQUIRE_GPU();
  auto v = random_values(50'001, 7, 5);
  FenwickIndex cpu = FenwickIndex::build(v, 7, Backend::Cpu);
  FenwickIndex gpu = FenwickIndex::build(v, 7, Backend::Cuda);
  std::mt19937 rng(11);
  for (int step = 0; step < 200; ++step) {
    const std::uint64_t k = rng() % v.size();
    const std::int64_t delta = std::int64_t(rng() % 128) - std::int64_t{v[k]};
    cpu.add(k, delta);
    gpu.add(k, delta);
    v[k] = static_cast<std::uint32_t>(v[k] + delta);
  }
  EXPECT_EQ(gpu.words(), cpu.words());
  EXPECT_THROW(gpu.add(3, 1000), InvalidInput);
  EXPECT_EQ(gpu.words(), cpu.words());  // unchanged
  v[4242] = 200;                        // wider than 7 bits
  v[40'000] = 255;                      // another tile: the first is named
  try {
    (void)FenwickIndex::build(v, 7, Backend::Cuda);
    ADD_FAILURE() << "a value wider than the bits was accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("element 4242 is 200"), std::string::npos) << e.what();
  }
}

TEST(GpuFenwick, MultiDimensionalTreesMatchTheCpu) {
  SIMLOD_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  for (const std::vector<std::uint64_t>& n : {std::vector<std::uint64_t>{37, 19},
                                              {1024, 1000},
                                              {1, 77},
                                              {5, 7, 9},
                                              {64, 64, 64},
                                              {3, 1, 500}}) {
    for (std::uint32_t b : {1u, 8u, 32u}) {
      SCOPED_TRACE(testing::Message()
                   << n.size() << " axes, " << n[0] << " x " << n[1] << ", b " << b);
      std::uint64_t total = 1;
      for (const auto e : n) total *= e;
      auto v = random_values(total, b, static_cast<std::uint32_t>(total * 3 + b));
      FenwickIndex cpu = FenwickIndex::build(v, n, b, Backend::Cpu);
      FenwickIndex gpu = FenwickIndex::build(v, n, b, Backend::Cuda);
      ASSERT_EQ(gpu.backend(), Backend::Cuda);
      EXPECT_EQ(gpu.words(), cpu.words());
      std::vector<std::uint32_t> back(total);
      gpu.values(back);
      EXPECT_EQ(back, v);
      std::vector<std::array<std::uint64_t, 6>> boxes(5000);
      for (auto& box : boxes) {
        for (std::size_t a = 0; a < 3; ++a) {
          const std::uint64_t e = a < n.size() ? n[a] : 0;
          const std::uint64_t p = rng() % (e + 1), q = rng() % (e + 1);
          box[a] = std::min(p, q);
          box[3 + a] = std::max(p, q);
        }
      }
      std::vector<std::uint64_t> a(boxes.size()), c(boxes.size());
      gpu.box_sums(boxes, a);
      cpu.box_sums(boxes, c);
      EXPECT_EQ(a, c);
      if (b < 32) {
        const std::array<std::uint64_t, 3> k{n[0] / 2, n[1] / 2, n.size() > 2 ? n[2] / 2 : 0};
        const std::int64_t delta = gpu.value(k) == 0 ? 1 : -1;
        gpu.add(k, delta);
        cpu.add(k, delta);
        EXPECT_EQ(gpu.words(), cpu.words());
      }
    }
  }
}

TEST(GpuRankBitmap, BuildIsBitIdenticalAndRanksAgree) {
  SIMLOD_REQUIRE_GPU();
  for (std::uint64_t n : {1ull, 127ull, 128ull, 1000003ull, (1ull << 22) + 5}) {
    SCOPED_TRACE(n);
    const auto v = random_values(n, 1, static_cast<std::uint32_t>(n + 3));
    const RankBitmap cpu = RankBitmap::build(v, Backend::Cpu);
    const RankBitmap gpu = RankBitmap::build(v, Backend::Cuda);
    ASSERT_EQ(gpu.backend(), Backend::Cuda);
    EXPECT_EQ(gpu.words(), cpu.words());
    EXPECT_EQ(gpu.counts(), cpu.counts());
    std::mt19937_64 rng(n);
    std::vector<std::uint64_t> ks(std::min<std::uint64_t>(n + 1, 100'000));
    for (auto& k : ks) k = rng() % (n + 1);
    ks.back() = n;
    std::vector<std::uint64_t> a(ks.size()), c(ks.size());
    gpu.rank(ks, a);
    cpu.rank(ks, c);
    EXPECT_EQ(a, c);
    std::vector<std::uint32_t> back(n);
    gpu.values(back);
    EXPECT_EQ(back, v);
  }
  auto bad = random_values(70'000, 1, 1);
  bad[66'666] = 3;
  bad[69'999] = 2;
  try {
    (void)RankBitmap::build(bad, Backend::Cuda);
    ADD_FAILURE() << "a value of 3 was accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("element 66666 is 3"), std::string::npos) << e.what();
  }
}

#if SIMLOD_TEST_HAS_CUDA
TEST(GpuFenwick, BuildFromDeviceMemory) {
  SIMLOD_REQUIRE_GPU();
  const auto v = random_values(777'777, 1, 2);
  std::uint32_t* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, v.size() * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, v.data(), v.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  const FenwickIndex gpu = FenwickIndex::build_from_device(d, v.size(), 1);
  // Not 16-byte aligned: the tiles' scalar loads.
  const FenwickIndex shifted = FenwickIndex::build_from_device(d + 1, v.size() - 1, 1);
  cudaFree(d);
  EXPECT_EQ(gpu.words(), FenwickIndex::build(v, 1, Backend::Cpu).words());
  EXPECT_EQ(gpu.rank(v.size()), std::accumulate(v.begin(), v.end(), std::uint64_t{0}));
  const std::vector<std::uint32_t> tail(v.begin() + 1, v.end());
  EXPECT_EQ(shifted.words(), FenwickIndex::build(tail, 1, Backend::Cpu).words());
}
#endif

}  // namespace
}  // namespace simlod::test
