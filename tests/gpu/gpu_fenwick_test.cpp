// FenwickIndex on CUDA against the CPU build: the same words bit for bit, the same query
// results, updates, and the device-side input.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "core/random_values.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"
#include "simlod/fenwick.hpp"

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
    }
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
  try {
    (void)FenwickIndex::build(v, 7, Backend::Cuda);
    ADD_FAILURE() << "a value wider than the bits was accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("element 4242 is 200"), std::string::npos) << e.what();
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
  cudaFree(d);
  EXPECT_EQ(gpu.words(), FenwickIndex::build(v, 1, Backend::Cpu).words());
  EXPECT_EQ(gpu.rank(v.size()), std::accumulate(v.begin(), v.end(), std::uint64_t{0}));
}
#endif

}  // namespace
}  // namespace simlod::test
