// The fixed order of a stream: which points of which source form each batch, and which
// batches one loader reads in a row (a unit). Loaders take units in order; a unit's batches
// are consecutive, so the ring (batch_ring.hpp) receives them in an order it can bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simlod/stream.hpp"

namespace simlod::detail {

/// What the planner needs of a source.
struct PlanSource {
  std::uint64_t points = 0;
  /// FileInfo::seek_step: 1 = any point, c = chunk starts, 0 = in order only.
  std::uint64_t seek_step = 0;
  bool failed = false;  ///< header unreadable: one empty batch carries the error
};

/// Batches [first_batch, first_batch + batch_count) of the plan, read in a row by one loader
/// from one reader (seeking to the first batch's point once).
struct PlanUnit {
  std::size_t source = 0;
  std::size_t first_batch = 0;
  std::size_t batch_count = 0;
};

struct StreamPlan {
  std::vector<StreamBatch> batches;
  std::vector<PlanUnit> units;
  std::vector<bool> last_of_source;  ///< per batch: the source's last batch
};

/// Cuts the sources into batches: the stream's first batch has `first_batch` points, the
/// others `batch` (both >= 1, first_batch <= batch). Sources with seek_step 1 get one unit per
/// batch; chunked sources one unit per max(1, batch / step) whole chunks (a chunk larger than
/// a batch is cut into batches read in order); sources with seek_step 0 one unit.
[[nodiscard]] StreamPlan make_stream_plan(const std::vector<PlanSource>& sources,
                                          std::uint32_t first_batch, std::uint32_t batch);

}  // namespace simlod::detail
