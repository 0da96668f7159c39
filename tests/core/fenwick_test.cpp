// FenwickIndex on the CPU: the packed layout's size against the formula, prefix sums against
// std::exclusive_scan, point queries that rebuild the input, updates, and the bad requests.
#include "simlod/fenwick.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/random_values.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

/// The formula of the layout, computed independently: sum over t of
/// ceil(floor((N + 2^t) / 2^(t + 1)) x (b + t) / 32) words.
std::uint64_t formula_bytes(std::uint64_t n, std::uint32_t b) {
  std::uint64_t words = 0;
  for (std::uint32_t t = 0; t < 40; ++t) {
    const std::uint64_t entries = (n + (std::uint64_t{1} << t)) / (std::uint64_t{1} << (t + 1));
    words += (entries * (b + t) + 31) / 32;
  }
  return words * 4;
}

TEST(Fenwick, SizeIsTheFormula) {
  EXPECT_EQ(FenwickIndex::bytes_for(4096, 1), 1036u);  // 2.02 bits per element
  for (std::uint64_t n : {1ull, 2ull, 3ull, 7ull, 1000ull, 4095ull, 4096ull, 4097ull, 100003ull,
                          1ull << 22, (1ull << 28) + 12345}) {
    for (std::uint32_t b : {1u, 2u, 5u, 8u, 13u, 32u}) {
      EXPECT_EQ(FenwickIndex::bytes_for(n, b), formula_bytes(n, b)) << n << " " << b;
    }
  }
  // The practical rate b + 1 bits per element of one dimension (the paper's Table 1, d = 1).
  for (std::uint32_t b : {1u, 8u}) {
    const double rate = 8.0 * double(FenwickIndex::bytes_for(1ull << 22, b)) / double(1ull << 22);
    EXPECT_NEAR(rate, b + 1.0, 0.01) << b;
  }
  const FenwickIndex built = FenwickIndex::build(random_values(100003, 5, 1), 5, Backend::Cpu);
  EXPECT_EQ(built.bytes(), formula_bytes(100003, 5));
  EXPECT_EQ(built.words().size() * 4, formula_bytes(100003, 5) + 8);  // two padding words
}

TEST(Fenwick, QueriesMatchBruteForce) {
  for (std::uint64_t n : {1ull, 2ull, 3ull, 5ull, 64ull, 1000ull, 4096ull, 4097ull, 65537ull}) {
    for (std::uint32_t b : {1u, 3u, 8u, 17u, 32u}) {
      SCOPED_TRACE(testing::Message() << "n " << n << ", b " << b);
      const auto v = random_values(n, b, static_cast<std::uint32_t>(n * 31 + b));
      const FenwickIndex f = FenwickIndex::build(v, b, Backend::Cpu);
      std::vector<std::uint64_t> prefix(n + 1, 0);
      std::inclusive_scan(v.begin(), v.end(), prefix.begin() + 1, std::plus<std::uint64_t>(),
                          std::uint64_t{0});
      std::vector<std::uint64_t> ks(n + 1), out(n + 1);
      std::iota(ks.begin(), ks.end(), 0);
      f.prefix(ks, out);
      EXPECT_EQ(out, prefix);
      std::vector<std::uint32_t> back(n);
      f.values(back);
      EXPECT_EQ(back, v);  // point queries rebuild the input
      for (std::uint64_t k = 0; k < n; k += 1 + n / 50) EXPECT_EQ(f.value(k), v[k]) << k;
      if (b == 1) {
        EXPECT_EQ(f.rank(n), prefix[n]);
      }
    }
  }
}

TEST(Fenwick, UpdatesRoundTrip) {
  auto v = random_values(10007, 6, 9);
  FenwickIndex f = FenwickIndex::build(v, 6, Backend::Cpu);
  std::mt19937 rng(3);
  for (int step = 0; step < 2000; ++step) {
    const std::uint64_t k = rng() % v.size();
    const std::int64_t target = rng() % 64;
    f.add(k, target - std::int64_t{v[k]});
    v[k] = static_cast<std::uint32_t>(target);
  }
  const FenwickIndex rebuilt = FenwickIndex::build(v, 6, Backend::Cpu);
  EXPECT_EQ(f.words(), rebuilt.words());  // the same bits as a fresh build
  std::uint64_t sum = 0;
  for (std::uint64_t k = 0; k < v.size(); ++k) {
    ASSERT_EQ(f.prefix(k), sum) << k;
    sum += v[k];
  }
}

TEST(Fenwick, BadRequestsAreClearErrors) {
  const std::vector<std::uint32_t> v{1, 2, 3, 4};
  auto refused = [](auto&& call, const char* says) {
    try {
      call();
      ADD_FAILURE() << "accepted: " << says;
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused([&] { (void)FenwickIndex::build(v, 0, Backend::Cpu); }, "0 bits");
  refused([&] { (void)FenwickIndex::build(v, 33, Backend::Cpu); }, "33 bits");
  refused([&] { (void)FenwickIndex::build({}, 4, Backend::Cpu); }, "no elements");
  refused([&] { (void)FenwickIndex::build(v, 2, Backend::Cpu); }, "element 3 is 4, wider than 2");
  FenwickIndex f = FenwickIndex::build(v, 3, Backend::Cpu);
  refused([&] { (void)f.prefix(5); }, "key 5");
  refused([&] { (void)f.value(4); }, "key 4");
  refused([&] { f.add(4, 1); }, "element 4 is out of range");
  refused([&] { f.add(0, 7); }, "would become 8, outside 0 .. 7");
  refused([&] { f.add(1, -3); }, "would become -1");
  std::vector<std::uint64_t> ks{0, 1}, out(1);
  refused([&] { f.prefix(ks, out); }, "2 keys but room for 1");
  EXPECT_EQ(f.prefix(4), 10u);  // unchanged by the refused calls
}

}  // namespace
}  // namespace simlod::test
