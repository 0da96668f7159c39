// The leaf-pair matrix on the CPU: every unordered pair of distinct leaves, the facing test
// first, then the occluder walk. Rows i and n - 1 - i go to one task, so that the static
// blocks of the thread pool get equal work.
#include <atomic>

#include "core/cpu/visibility/visibility.hpp"
#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {

LeafPairs leaf_pairs(const VisTree& tree, std::uint32_t occluders) {
  const std::uint64_t n = tree.leaves.size();
  LeafPairs out;
  out.bits = make_bits(n);
  ThreadPool& pool = ThreadPool::shared();
  std::vector<std::uint64_t> facing(pool.size(), 0), visible(pool.size(), 0);
  auto row = [&](unsigned worker, std::uint64_t i) {
    std::uint32_t hint = kNoHint;  // the row's last occluder
    for (std::uint64_t j = i + 1; j < n; ++j) {
      const int result = test_pair(tree, i, j, occluders, hint);
      facing[worker] += result > 0 ? 1 : 0;
      if (result < 2) continue;
      ++visible[worker];
      const std::uint64_t bit = pair_index(i, j, n);
      std::atomic_ref<std::uint64_t>(out.bits[bit >> 6])
          .fetch_or(std::uint64_t{1} << (bit & 63u), std::memory_order_relaxed);
    }
  };
  pool.parallel_for((n + 1) / 2, 1, [&](unsigned worker, std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      row(worker, r);
      if (n - 1 - r != r) row(worker, n - 1 - r);
    }
  });
  for (unsigned w = 0; w < pool.size(); ++w) {
    out.facing += facing[w];
    out.visible += visible[w];
  }
  return out;
}

}  // namespace simlod::detail::cpu
