#include "synth/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace simlod::synth::detail {

namespace {
std::atomic<unsigned> g_worker_limit{0};
}  // namespace

unsigned worker_count() {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const unsigned limit = g_worker_limit.load(std::memory_order_relaxed);
  return limit == 0 ? hardware : limit;
}

void set_worker_limit(unsigned limit) { g_worker_limit.store(limit, std::memory_order_relaxed); }

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn) {
  const std::size_t threads = std::min<std::size_t>(worker_count(), count);
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    try {
      for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) fn(i);
    } catch (...) {
      const std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(count);  // stop handing out items
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace simlod::synth::detail
