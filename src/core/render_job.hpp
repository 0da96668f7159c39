// One rasterize() call as the backends receive it: the view turned into RenderParams, the
// budget, the quality and the resolve settings. Plain C++ (the CUDA renderer includes it).
#pragma once

#include <cstdint>

#include "core/framebuffer_store.hpp"
#include "core/render_math.hpp"
#include "simlod/render.hpp"

namespace simlod::detail {

struct RenderJob {
  RenderParams params{};
  std::uint64_t budget = 0;  ///< samples per frame, 0 = no limit
  bool blend = false;        ///< RenderQuality::High
  ResolveSettings resolve;
};

/// Validates `view` (InvalidInput naming the field) and prepares the job for an octree whose
/// cube edge is `edge` (octree coordinates) and whose attribute channels are `channels`
/// (InvalidInput when the colour mode needs a channel the octree does not keep).
[[nodiscard]] RenderJob make_render_job(const View& view, float edge, AttributeMask channels = 0);

}  // namespace simlod::detail
