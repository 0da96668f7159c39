// FenwickIndex on the CPU: the packed layout's size against the formula, prefix sums against
// std::exclusive_scan, point queries that rebuild the input, updates, and the bad requests.
#include "simlod/fenwick.hpp"

#include <gtest/gtest.h>

#include <array>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/expect_refused.hpp"
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
  expect_refused([&] { (void)FenwickIndex::build(v, 0, Backend::Cpu); }, "0 bits");
  expect_refused([&] { (void)FenwickIndex::build(v, 33, Backend::Cpu); }, "33 bits");
  expect_refused([&] { (void)FenwickIndex::build({}, 4, Backend::Cpu); }, "no elements");
  expect_refused([&] { (void)FenwickIndex::bytes_for((1ull << 32) + 1, 1); }, "more than 2^32");
  expect_refused(
      [&] {
        (void)FenwickIndex::bytes_for(std::vector<std::uint64_t>{1u << 17, 1u << 16}, 1);
      },
      "more than 2^32");
  expect_refused([&] { (void)FenwickIndex::build(v, 2, Backend::Cpu); },
                 "element 3 is 4, wider than 2");
  FenwickIndex f = FenwickIndex::build(v, 3, Backend::Cpu);
  expect_refused([&] { (void)f.prefix(5); }, "coordinate 5 on axis 0 is out of range");
  expect_refused([&] { (void)f.value(4); }, "coordinate 4 on axis 0");
  expect_refused([&] { f.add(4, 1); }, "add: coordinate 4 on axis 0");
  expect_refused([&] { f.add(0, 7); }, "would become 8, outside 0 .. 7");
  expect_refused([&] { f.add(1, -3); }, "would become -1");
  std::vector<std::uint64_t> ks{0, 1}, out(1);
  expect_refused([&] { f.prefix(ks, out); }, "2 keys but room for 1");
  EXPECT_EQ(f.prefix(4), 10u);  // unchanged by the refused calls
}

/// Independent size formula in d dimensions: over every level combination,
/// ceil(product of entries x (b + t0 + t1 + t2) / 32) words.
std::uint64_t formula_bytes_nd(const std::vector<std::uint64_t>& n, std::uint32_t b) {
  auto entries = [](std::uint64_t extent, std::uint32_t t) {
    return (extent + (std::uint64_t{1} << t)) / (std::uint64_t{1} << (t + 1));
  };
  std::uint64_t words = 0;
  const std::uint64_t n1 = n.size() > 1 ? n[1] : 1, n2 = n.size() > 2 ? n[2] : 1;
  for (std::uint32_t t0 = 0; t0 < 34; ++t0) {
    for (std::uint32_t t1 = 0; t1 < 34; ++t1) {
      for (std::uint32_t t2 = 0; t2 < 34; ++t2) {
        const std::uint64_t e = entries(n[0], t0) * entries(n1, t1) * entries(n2, t2);
        words += (e * (b + t0 + t1 + t2) + 31) / 32;
      }
    }
  }
  return words * 4;
}

TEST(Fenwick, MultiDimensionalSizesAndRates) {
  for (const std::vector<std::uint64_t>& n : {std::vector<std::uint64_t>{37, 19},
                                              {64, 64},
                                              {1, 100},
                                              {100, 1},
                                              {5, 7, 9},
                                              {16, 16, 16},
                                              {3, 1, 50}}) {
    for (std::uint32_t b : {1u, 8u}) {
      EXPECT_EQ(FenwickIndex::bytes_for(n, b), formula_bytes_nd(n, b)) << n.size() << " " << b;
    }
  }
  // The paper's Table 1: about b + d bits per element.
  const std::vector<std::uint64_t> square{2048, 2048}, cube{256, 256, 256};
  for (std::uint32_t b : {1u, 8u}) {
    EXPECT_NEAR(8.0 * double(FenwickIndex::bytes_for(square, b)) / (2048.0 * 2048.0), b + 2.0,
                0.02);
    EXPECT_NEAR(8.0 * double(FenwickIndex::bytes_for(cube, b)) / (256.0 * 256.0 * 256.0), b + 3.0,
                0.05);
  }
}

TEST(Fenwick, MultiDimensionalQueriesMatchBruteForce) {
  std::mt19937_64 rng(5);
  for (const std::vector<std::uint64_t>& n : {std::vector<std::uint64_t>{37, 19},
                                              {64, 64},
                                              {1, 33},
                                              {33, 1},
                                              {5, 7, 9},
                                              {16, 16, 16},
                                              {3, 1, 50}}) {
    for (std::uint32_t b : {1u, 5u, 32u}) {
      SCOPED_TRACE(testing::Message()
                   << n.size() << " axes, " << n[0] << " x " << n[1] << ", b " << b);
      const std::uint64_t n2 = n.size() > 2 ? n[2] : 1;
      const std::uint64_t total = n[0] * n[1] * n2;
      const auto v = random_values(total, b, static_cast<std::uint32_t>(total + b));
      const FenwickIndex f = FenwickIndex::build(v, n, b, Backend::Cpu);
      EXPECT_EQ(f.dims(), n.size());
      auto at = [&](std::uint64_t x, std::uint64_t y, std::uint64_t z) {
        return std::uint64_t{v[x + n[0] * (y + n[1] * z)]};
      };
      auto brute = [&](const std::array<std::uint64_t, 3>& lo,
                       const std::array<std::uint64_t, 3>& hi) {
        std::uint64_t sum = 0;
        for (std::uint64_t z = lo[2]; z < hi[2]; ++z) {
          for (std::uint64_t y = lo[1]; y < hi[1]; ++y) {
            for (std::uint64_t x = lo[0]; x < hi[0]; ++x) sum += at(x, y, z);
          }
        }
        return sum;
      };
      const std::array<std::uint64_t, 3> ext{n[0], n[1], n2};
      // Every prefix of a few planes, random boxes, every element.
      for (int q = 0; q < 200; ++q) {
        std::array<std::uint64_t, 3> k{}, lo{}, hi{};
        for (std::size_t a = 0; a < 3; ++a) {
          const std::uint64_t e = a < n.size() ? ext[a] : 0;
          k[a] = a < n.size() ? rng() % (e + 1) : 0;
          const std::uint64_t p = a < n.size() ? rng() % (e + 1) : 0;
          const std::uint64_t r = a < n.size() ? rng() % (e + 1) : 0;
          lo[a] = std::min(p, r);
          hi[a] = std::max(p, r);
        }
        std::array<std::uint64_t, 3> brute_hi = k, brute_lo{0, 0, 0};
        for (std::size_t a = n.size(); a < 3; ++a) brute_hi[a] = 1;
        ASSERT_EQ(f.prefix(k), brute(brute_lo, brute_hi)) << q;
        std::array<std::uint64_t, 3> box_hi = hi;
        for (std::size_t a = n.size(); a < 3; ++a) box_hi[a] = 1;
        ASSERT_EQ(f.box_sum(lo, hi), brute(lo, box_hi)) << q;
      }
      std::vector<std::uint32_t> back(total);
      f.values(back);
      EXPECT_EQ(back, v);
      const std::array<std::uint64_t, 3> last{n[0] - 1, n[1] - 1, n.size() > 2 ? n2 - 1 : 0};
      EXPECT_EQ(f.value(last), v.back());
    }
  }
}

TEST(Fenwick, MultiDimensionalUpdatesAndBadInput) {
  const std::vector<std::uint64_t> n{13, 11, 7};
  auto v = random_values(13 * 11 * 7, 4, 8);
  FenwickIndex f = FenwickIndex::build(v, n, 4, Backend::Cpu);
  std::mt19937 rng(4);
  for (int step = 0; step < 500; ++step) {
    const std::array<std::uint64_t, 3> k{rng() % 13, rng() % 11, rng() % 7};
    const std::uint32_t target = rng() % 16;
    std::uint32_t& slot = v[k[0] + 13 * (k[1] + 11 * k[2])];
    f.add(k, std::int64_t{target} - std::int64_t{slot});
    slot = target;
  }
  EXPECT_EQ(f.words(), FenwickIndex::build(v, n, 4, Backend::Cpu).words());
  expect_refused([&] { (void)f.prefix({14, 0, 0}); }, "coordinate 14 on axis 0");
  expect_refused([&] { (void)f.rank(3); }, "keys address a one-dimensional index; this one has 3");
  expect_refused([&] { (void)f.value({0, 11, 0}); }, "coordinate 11 on axis 1");
  expect_refused(
      [&] {
        (void)f.box_sum({5, 0, 0}, {4, 1, 1});
      },
      "on axis 0 the box runs from 5 to 4");
  expect_refused(
      [&] {
        (void)FenwickIndex::build(v, std::vector<std::uint64_t>{13, 11}, 4, Backend::Cpu);
      },
      "1001 values for 143 elements");
  expect_refused(
      [&] {
        (void)FenwickIndex::build(v, std::vector<std::uint64_t>{13, 0, 7}, 4, Backend::Cpu);
      },
      "axis 1 has extent 0");
  expect_refused(
      [&] {
        (void)FenwickIndex::build(v, std::vector<std::uint64_t>{1, 13, 11, 7}, 4, Backend::Cpu);
      },
      "4 dimensions");
  const FenwickIndex flat =
      FenwickIndex::build(v, std::vector<std::uint64_t>{1001}, 4, Backend::Cpu);
  expect_refused([&] { (void)flat.prefix({3, 1, 0}); }, "coordinate 1 on axis 1");
}

}  // namespace
}  // namespace simlod::test
