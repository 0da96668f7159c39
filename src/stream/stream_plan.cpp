#include "stream/stream_plan.hpp"

#include <algorithm>

namespace simlod::detail {

StreamPlan make_stream_plan(const std::vector<PlanSource>& sources, std::uint32_t first_batch,
                            std::uint32_t batch) {
  StreamPlan plan;
  auto next_size = [&] { return plan.batches.empty() ? first_batch : batch; };
  for (std::size_t s = 0; s < sources.size(); ++s) {
    const PlanSource& src = sources[s];
    if (src.failed || src.points == 0) {
      // One empty batch: where update() reports the error (or, for an empty file, nothing).
      plan.units.push_back({s, plan.batches.size(), 1});
      plan.batches.push_back({s, 0, 0});
      plan.last_of_source.push_back(true);
      continue;
    }
    std::uint64_t pos = 0;
    while (pos < src.points) {
      const std::uint64_t rest = src.points - pos;
      std::uint64_t unit_points = 0;
      if (src.seek_step == 0) {
        unit_points = rest;
      } else if (src.seek_step == 1) {
        unit_points = std::min<std::uint64_t>(next_size(), rest);
      } else {
        const std::uint64_t chunks = std::max<std::uint64_t>(1, next_size() / src.seek_step);
        unit_points = std::min(chunks * src.seek_step, rest);
      }
      PlanUnit unit{s, plan.batches.size(), 0};
      for (std::uint64_t at = pos; at < pos + unit_points;) {
        const auto n = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(next_size(), pos + unit_points - at));
        plan.batches.push_back({s, at, n});
        plan.last_of_source.push_back(false);
        at += n;
        unit.batch_count += 1;
      }
      plan.units.push_back(unit);
      pos += unit_points;
    }
    plan.last_of_source.back() = true;
  }
  return plan;
}

}  // namespace simlod::detail
