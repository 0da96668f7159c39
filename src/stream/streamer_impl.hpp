// The state behind simlod::Streamer (stream.hpp): the plan, the octree, the ring, the loader
// threads and the consumer's position. Built by streamer_open.cpp, driven by streamer.cpp.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "simlod/stream.hpp"
#include "stream/batch_ring.hpp"
#include "stream/loader.hpp"
#include "stream/stream_plan.hpp"

namespace simlod {

struct Streamer::Impl {
  using Clock = std::chrono::steady_clock;

  StreamConfig config;
  Clock::time_point start = Clock::now();
  std::unique_ptr<synth::Generator> generator;
  std::vector<FileInfo> files;
  std::vector<std::exception_ptr> open_errors;  ///< per file: why its header failed
  std::uint64_t points_total = 0;
  Bounds bounds;  ///< of the data, file coordinates
  detail::StreamPlan plan;
  std::unique_ptr<detail::BatchRing> ring;
  std::unique_ptr<detail::LoaderContext> loaders_context;
  std::vector<std::jthread> loaders;
  std::mutex join_mutex;  ///< cancel() may come from any thread
  /// Declared after the ring: destroyed first. A ring batch on the device waits for its own
  /// copies when destroyed; the inserts that read it have ended with the octree.
  std::optional<Octree> octree;

  // Consumer (the caller's thread); atomics where progress() reads them.
  std::size_t next_batch = 0;
  double batch_ms_estimate = 0.0;  ///< running average of one insert, for the budget
  std::atomic<std::uint64_t> points_uploaded{0}, points_inserted{0}, points_refused{0};
  std::atomic<std::size_t> files_done{0}, files_failed{0};
  std::atomic<bool> cancelled{false}, finished{false};
  std::vector<StreamFailure> failures;
  std::vector<bool> source_failed;  ///< per source: its error was reported, skip the rest
  std::vector<std::uint64_t> source_inserted;  ///< per source: points in the octree
  mutable std::mutex failures_mutex;

  /// Starts the loaders over `cube`, then creates the octree (after the sources and the plan
  /// are set).
  void start_loading(const Bounds& cube);
  ~Impl() { stop_loaders(); }
  void stop_loaders();
  [[nodiscard]] StreamProgress progress() const;
};

}  // namespace simlod
