// Loader threads of a Streamer: each takes the next unit of the plan, reads its batches into
// the ring (batch_ring.hpp), checks every point against the octree's cube and publishes the
// batch, or the error of its file (batches of a failed file after the failed one are
// published empty).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/coloring.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "simlod/synth.hpp"
#include "stream/batch_ring.hpp"
#include "stream/stream_plan.hpp"

namespace simlod::detail {

struct LoaderContext {
  LoaderContext(const StreamPlan& plan_, BatchRing& ring_, const std::vector<FileInfo>& files_,
                const std::vector<std::exception_ptr>& open_errors_, synth::Generator* generator_,
                const Bounds& cube_)
      : plan(plan_),
        ring(ring_),
        files(files_),
        open_errors(open_errors_),
        generator(generator_),
        cube(cube_),
        failed_at(std::make_unique<std::atomic<std::uint64_t>[]>(sources())) {
    for (std::size_t i = 0; i < sources(); ++i) failed_at[i] = kNotFailed;
  }

  /// Files, or the one synthetic source.
  [[nodiscard]] std::size_t sources() const { return std::max<std::size_t>(1, files.size()); }

  static constexpr std::uint64_t kNotFailed = ~std::uint64_t{0};

  const StreamPlan& plan;
  BatchRing& ring;
  const std::vector<FileInfo>& files;                  ///< file sources (empty: synthetic)
  const std::vector<std::exception_ptr>& open_errors;  ///< per file: why its header failed
  synth::Generator* generator;                         ///< the synthetic source, or nullptr
  Bounds cube;  ///< the octree's cube (Octree::root_cube): points are checked against it and
                ///< stored relative to its min corner
  std::vector<double> bytes_per_point;  ///< per file: file size / points
  ColorByOptions coloring;              ///< resolved (an intensity range is set)
  AttributeMask channels = 0;           ///< the octree's attribute channels: read with the points

  std::atomic<std::size_t> next_unit{0};
  /// Per source: the first batch (stream sequence) known to have failed; batches after it are
  /// skipped, batches before it still load (another loader may fail a later batch first).
  std::unique_ptr<std::atomic<std::uint64_t>[]> failed_at;
  std::atomic<std::uint64_t> points_read{0};
  std::atomic<std::uint64_t> bytes_read{0};
};

/// The error of a bad point: `bad` (its index in the batch) of the batch that starts at point
/// `first` of source `source`, named as "'file': point N reason".
[[nodiscard]] InvalidInput bad_point_error(const LoaderContext& ctx, std::size_t source,
                                           std::uint64_t first, const BadPoint& bad);

/// The body of a loader thread; returns when the plan is exhausted or the ring cancelled.
void run_loader(LoaderContext& ctx) noexcept;

}  // namespace simlod::detail
