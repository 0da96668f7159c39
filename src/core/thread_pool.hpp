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

  /// Workers including the caller: worker ids passed to loop bodies are < size().
  [[nodiscard]] unsigned size() const { return static_cast<unsigned>(threads_.size()) + 1; }

  /// Calls fn(worker, begin, end) on blocks of [0, n) of at least `grain` items, on all
  /// workers; blocks until done and rethrows the first exception a block threw. Never
  /// allocates, so a loop body that cannot throw makes the whole call non-throwing.
  template <class Fn>
  void parallel_for(std::size_t n, std::size_t grain, Fn&& fn) {
    using F = std::remove_reference_t<Fn>;
    run(n, grain, &fn,
        [](void* f, unsigned w, std::size_t b, std::size_t e) { (*static_cast<F*>(f))(w, b, e); });
  }

 private:
  using Body = void (*)(void*, unsigned, std::size_t, std::size_t);
  void run(std::size_t n, std::size_t grain, void* fn, Body body);
  void work(unsigned worker);
  void worker_loop(unsigned worker);

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::uint64_t generation_ = 0;  ///< bumped per loop; workers wait for a change
  unsigned busy_ = 0;             ///< workers still inside the current loop
  bool stop_ = false;
  // The current loop (written under mutex_ before generation_ changes).
  void* fn_ = nullptr;
  Body body_ = nullptr;
  std::size_t n_ = 0, block_ = 1;
  std::size_t next_block_ = 0;  ///< accessed through std::atomic_ref
  std::exception_ptr error_;
};

}  // namespace simlod::detail
