// RankBitmap on the CPU: ranks against a running count, the layout's size, the bits back, and
// the bad requests.
#include "simlod/rank_bitmap.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/random_values.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

TEST(RankBitmap, RanksMatchARunningCount) {
  for (std::uint64_t n : {1ull, 31ull, 32ull, 127ull, 128ull, 129ull, 4099ull, 1000003ull}) {
    SCOPED_TRACE(n);
    const auto v = random_values(n, 1, static_cast<std::uint32_t>(n));
    const RankBitmap b = RankBitmap::build(v, Backend::Cpu);
    EXPECT_EQ(b.size(), n);
    std::vector<std::uint64_t> ks(n + 1), out(n + 1);
    for (std::uint64_t k = 0; k <= n; ++k) ks[k] = k;
    b.rank(ks, out);
    std::uint64_t count = 0;
    for (std::uint64_t k = 0; k <= n; ++k) {
      ASSERT_EQ(out[k], count) << "k " << k;
      if (k < n) count += v[k];
    }
    EXPECT_EQ(b.rank(n), count);
    std::vector<std::uint32_t> back(n);
    b.values(back);
    EXPECT_EQ(back, v);
  }
}

TEST(RankBitmap, SizeIsAboutOneAndAQuarterBits) {
  EXPECT_EQ(RankBitmap::bytes_for(1), 20u);  // one block of words, one count
  EXPECT_EQ(RankBitmap::bytes_for(128), 40u);
  const std::uint64_t n = std::uint64_t{1} << 22;
  EXPECT_NEAR(8.0 * double(RankBitmap::bytes_for(n)) / double(n), 1.25, 0.001);
  const RankBitmap b = RankBitmap::build(random_values(1000, 1, 3), Backend::Cpu);
  EXPECT_EQ(b.bytes(), 4 * (b.words().size() + b.counts().size()));
  EXPECT_EQ(b.counts().size(), 1000u / 128 + 1);
}

TEST(RankBitmap, BadRequestsAreClearErrors) {
  auto v = random_values(5000, 1, 9);
  v[4321] = 2;
  try {
    (void)RankBitmap::build(v, Backend::Cpu);
    ADD_FAILURE() << "a value of 2 was accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("element 4321 is 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)RankBitmap::build(std::vector<std::uint32_t>{}, Backend::Cpu), InvalidInput);
  v[4321] = 1;
  const RankBitmap b = RankBitmap::build(v, Backend::Cpu);
  EXPECT_THROW((void)b.rank(5001), InvalidInput);
  std::vector<std::uint64_t> ks{1, 2}, out(1);
  EXPECT_THROW(b.rank(ks, out), InvalidInput);
  std::vector<std::uint32_t> back(10);
  EXPECT_THROW(b.values(back), InvalidInput);
}

}  // namespace
}  // namespace simlod::test
