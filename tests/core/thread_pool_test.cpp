// The library's thread pool: limits per loop, turns between caller threads, loops inside loop
// bodies, errors.
#include "core/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace simlod::test {
namespace {

using detail::PoolView;
using detail::ThreadPool;

TEST(ThreadPool, EveryItemOnceAndWorkerIdsBelowTheLimit) {
  ThreadPool pool(4);
  for (const unsigned limit : {0u, 1u, 2u, 3u, 4u, 9u}) {
    std::vector<std::atomic<int>> hits(100'000);
    std::atomic<unsigned> max_worker{0};
    pool.parallel_for(
        hits.size(), 16,
        [&](unsigned w, std::size_t begin, std::size_t end) {
          unsigned seen = max_worker.load();
          while (w > seen && !max_worker.compare_exchange_weak(seen, w)) {
          }
          for (std::size_t i = begin; i < end; ++i) hits[i] += 1;
        },
        limit);
    for (const auto& h : hits) ASSERT_EQ(h.load(), 1) << "limit " << limit;
    EXPECT_LT(max_worker.load(), pool.workers(limit)) << "limit " << limit;
  }
  EXPECT_EQ(pool.workers(0), 4u);
  EXPECT_EQ(pool.workers(2), 2u);
  EXPECT_EQ(pool.workers(9), 4u);
  EXPECT_EQ(PoolView(pool, 3).size(), 3u);
}

TEST(ThreadPool, CallersFromSeveralThreadsTakeTurns) {
  ThreadPool& pool = ThreadPool::shared();
  constexpr int kCallers = 4;
  std::vector<std::uint64_t> sums(kCallers, 0);
  {
    std::vector<std::jthread> callers;
    for (int c = 0; c < kCallers; ++c) {
      callers.emplace_back([&, c] {
        for (int round = 0; round < 50; ++round) {
          std::atomic<std::uint64_t> sum{0};
          pool.parallel_for(10'000, 64, [&](unsigned, std::size_t begin, std::size_t end) {
            std::uint64_t s = 0;
            for (std::size_t i = begin; i < end; ++i) s += i;
            sum += s;
          });
          sums[c] += sum.load();
        }
      });
    }
  }
  for (const auto s : sums) EXPECT_EQ(s, 50u * (10'000u * 9'999u / 2));
}

TEST(ThreadPool, ALoopInsideALoopBodyRunsInline) {
  ThreadPool pool(3);
  std::atomic<std::uint64_t> total{0};
  pool.parallel_for(64, 1, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      pool.parallel_for(100, 1, [&](unsigned w, std::size_t b, std::size_t e) {
        EXPECT_EQ(w, 0u);  // inline: the calling worker runs it as worker 0
        total += e - b;
      });
    }
  });
  EXPECT_EQ(total.load(), 64u * 100u);
}

TEST(ThreadPool, TheFirstErrorReachesTheCaller) {
  ThreadPool pool(4);
  EXPECT_THROW(pool.parallel_for(1000, 1,
                                 [](unsigned, std::size_t begin, std::size_t) {
                                   if (begin >= 500) throw std::runtime_error("block failed");
                                 }),
               std::runtime_error);
  std::atomic<int> after{0};
  pool.parallel_for(
      1000, 1, [&](unsigned, std::size_t b, std::size_t e) { after += static_cast<int>(e - b); });
  EXPECT_EQ(after.load(), 1000) << "the pool works after an error";
}

}  // namespace
}  // namespace simlod::test
