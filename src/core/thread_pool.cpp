#include "core/thread_pool.hpp"

#include <algorithm>
#include <atomic>

namespace simlod::detail {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads_.reserve(threads - 1);
  for (unsigned w = 1; w < threads; ++w) threads_.emplace_back([this, w] { worker_loop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

namespace {

/// The loop the current thread is in (as caller or worker), if any: a loop started from a loop
/// body runs inline instead of waiting for its own pool.
thread_local const ThreadPool* t_inside = nullptr;

}  // namespace

ThreadPool& ThreadPool::shared() {
  static ThreadPool pool(0);
  return pool;
}

void ThreadPool::run(std::size_t n, std::size_t grain, void* fn, Body body, unsigned workers) {
  if (n == 0) return;
  grain = std::max<std::size_t>(grain, 1);
  if (threads_.empty() || workers <= 1 || n <= grain || t_inside != nullptr) {
    body(fn, 0, 0, n);
    return;
  }
  std::lock_guard turn(turn_);  // another thread's loop finishes first
  t_inside = this;
  {
    std::lock_guard lock(mutex_);
    fn_ = fn;
    body_ = body;
    n_ = n;
    workers_ = workers;
    // About 8 blocks per worker balance uneven walks; never smaller than the grain.
    block_ = std::max(grain, n / (8 * static_cast<std::size_t>(workers)) + 1);
    next_block_ = 0;
    error_ = nullptr;
    busy_ = static_cast<unsigned>(threads_.size());
    ++generation_;
  }
  wake_.notify_all();
  work(0);
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return busy_ == 0; });
  fn_ = nullptr;
  t_inside = nullptr;
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void ThreadPool::work(unsigned worker) {
  std::atomic_ref<std::size_t> next(next_block_);
  for (;;) {
    const std::size_t begin = next.fetch_add(block_, std::memory_order_relaxed);
    if (begin >= n_) return;
    try {
      body_(fn_, worker, begin, std::min(n_, begin + block_));
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next.store(n_, std::memory_order_relaxed);  // stop handing out blocks
      return;
    }
  }
}

void ThreadPool::worker_loop(unsigned worker) {
  t_inside = this;
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    if (worker < workers_) work(worker);
    bool last = false;
    {
      std::lock_guard lock(mutex_);
      last = --busy_ == 0;
    }
    if (last) done_.notify_one();
  }
}

}  // namespace simlod::detail
