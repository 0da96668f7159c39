// A minimal fork-join loop for the generator. Work is split into independent items whose
// results never depend on which thread ran them, so the output is the same on any machine.
#pragma once

#include <cstddef>
#include <functional>

namespace simlod::synth::detail {

/// Threads the generator uses: the calling thread's WorkerScope limit, else the limit set
/// below, else the hardware threads (at least 1).
unsigned worker_count();

/// Sets worker_count() (0: back to the hardware threads). The output never depends on it; tests use
/// it to show exactly that, benchmarks to measure scaling.
void set_worker_limit(unsigned limit);

/// Limits worker_count() on the calling thread for its lifetime (0: no limit of its own), so
/// that a Generator's thread setting reaches the loops it runs.
class WorkerScope {
 public:
  explicit WorkerScope(unsigned limit);
  ~WorkerScope();
  WorkerScope(const WorkerScope&) = delete;
  WorkerScope& operator=(const WorkerScope&) = delete;

 private:
  unsigned previous_;
};

/// Calls fn(i) once for every i in [0, count), on up to worker_count() threads that take items
/// in turn. Blocks until all are done; rethrows the first exception an item threw.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn);

}  // namespace simlod::synth::detail
