// What the CUDA octree backend exposes beyond core/octree_backend.hpp, for benchmarks and
// diagnostics. Plain C++ (no CUDA headers).
#pragma once

#include <optional>

#include "core/octree_backend.hpp"

namespace simlod::detail {

/// Device-side duration of the last batch a CUDA backend inserted, from CUDA events.
struct CudaBatchTiming {
  double upload_ms = 0.0;  ///< copy into pinned staging memory plus host-to-device transfer
  double update_ms = 0.0;  ///< everything after the upload: expand, sample, allocate, insert
  /// Since the backend was created: times the arena backed more memory, and the host time
  /// those steps took (a batch that needs a step waits for it).
  std::uint64_t grow_steps = 0;
  double grow_ms = 0.0;
};

/// The timing of `backend`'s last batch, or nullopt when it is not a CUDA backend or has
/// inserted nothing yet.
[[nodiscard]] std::optional<CudaBatchTiming> cuda_batch_timing(const OctreeBackend& backend);

}  // namespace simlod::detail
