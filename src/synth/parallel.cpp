#include "synth/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/thread_pool.hpp"

namespace simlod::synth::detail {

namespace {
std::atomic<unsigned> g_worker_limit{0};
thread_local unsigned t_worker_limit = 0;  ///< WorkerScope's
}  // namespace

WorkerScope::WorkerScope(unsigned limit) : previous_(t_worker_limit) {
  if (limit != 0) t_worker_limit = limit;
}
WorkerScope::~WorkerScope() { t_worker_limit = previous_; }

unsigned worker_count() {
  if (t_worker_limit != 0) return t_worker_limit;
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned limit = g_worker_limit.load(std::memory_order_relaxed);
  return limit == 0 ? hardware : limit;
}

void set_worker_limit(unsigned limit) { g_worker_limit.store(limit, std::memory_order_relaxed); }

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn) {
  // Items are coarse (tiles, objects): one at a time, on the library's thread pool.
  simlod::detail::ThreadPool::shared().parallel_for(
      count, 1,
      [&](unsigned, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) fn(i);
      },
      worker_count());
}

}  // namespace simlod::synth::detail
