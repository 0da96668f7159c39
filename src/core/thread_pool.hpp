// A persistent fork-join pool for the CPU executors (octree update, renderer, framebuffer). The
// caller takes part as worker 0, so a pool of one thread runs everything inline, and small loops
// never wake the workers (thousands of tiny batches stay cheap).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace simlod::detail {

class ThreadPool {
 public:
  /// `threads` workers including the caller; 0 = the hardware threads (at least 1).
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// The library's pool (hardware threads), started on first use, stopped at exit.
  static ThreadPool& shared();

  /// Workers including the caller: worker ids passed to loop bodies are < size().
  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }
  /// Workers of a loop limited to `limit` (0 = all): min(limit, size()).
  [[nodiscard]] unsigned workers(unsigned limit) const {
    return limit == 0 || limit > size() ? size() : limit;
  }

  /// Calls fn(worker, begin, end) on blocks of [0, n) of at least `grain` items, on
  /// workers(limit) workers (ids < workers(limit)); blocks until done and rethrows the first
  /// exception a block threw. Never allocates, so a loop body that cannot throw makes the
  /// whole call non-throwing.
  template <class Fn>
  void parallel_for(std::size_t n, std::size_t grain, Fn&& fn, unsigned limit = 0) {
    using F = std::remove_reference_t<Fn>;
    run(
        n, grain, &fn,
        [](void* f, unsigned w, std::size_t b, std::size_t e) { (*static_cast<F*>(f))(w, b, e); },
        workers(limit));
  }

 private:
  using Body = void (*)(void*, unsigned, std::size_t, std::size_t);
  void run(std::size_t n, std::size_t grain, void* fn, Body body, unsigned workers);
  void work(unsigned worker);
  void worker_loop(unsigned worker);

  std::vector<std::thread> threads_;
  std::mutex turn_;  ///< held by the caller of the current loop: callers take turns
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::uint64_t generation_ = 0;  ///< bumped per loop; workers wait for a change
  unsigned busy_ = 0;             ///< workers still inside the current loop
  bool stop_ = false;
  // The current loop (written under mutex_ before generation_ changes).
  void* fn_ = nullptr;
  Body body_ = nullptr;
  std::size_t n_ = 0, block_ = 1;
  unsigned workers_ = 1;        ///< workers with an id below this take blocks
  std::size_t next_block_ = 0;  ///< accessed through std::atomic_ref
  std::exception_ptr error_;
};

/// A user's share of a pool: its loops run on at most `limit` workers (0 = all). What the
/// executors hold, so that their thread settings stay theirs while the threads are shared.
class PoolView {
 public:
  explicit PoolView(ThreadPool& pool, unsigned limit = 0) : pool_(&pool), limit_(limit) {}
  /// Worker ids of this view's loops are < size().
  [[nodiscard]] unsigned size() const { return pool_->workers(limit_); }
  template <class Fn>
  void parallel_for(std::size_t n, std::size_t grain, Fn&& fn) {
    pool_->parallel_for(n, grain, std::forward<Fn>(fn), limit_);
  }

 private:
  ThreadPool* pool_;
  unsigned limit_;
};

}  // namespace simlod::detail
