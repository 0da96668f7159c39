// The occluder walk of the visibility map (simlod/visibility.hpp) as one SIMLOD_HD function
// over the node and leaf arrays, so that the CPU executor and the CUDA kernels count alike.
#pragma once

#include <cstdint>

#include "simlod/detail/visibility_math.hpp"
#include "simlod/visibility.hpp"

namespace simlod::detail {

/// Nodes a walk keeps waiting at most: 7 siblings a level of a path of height <= 16, and one.
inline constexpr std::uint32_t kWalkStack = 8 * 17;

/// Leaves (other than `skip_a` and `skip_b`) that occlude the segment from p to p + d, counted
/// up to `limit`: depth first from the root over the nodes whose sphere the segment meets.
SIMLOD_HD std::uint32_t count_occluders(const VisibilityNode* nodes, const LeafGeometry* geometry,
                                        const Vec3d& p, const Vec3d& d, std::uint32_t skip_a,
                                        std::uint32_t skip_b, std::uint32_t limit) {
  std::uint32_t count = 0;
  std::uint32_t stack[kWalkStack];
  std::uint32_t top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const VisibilityNode& node = nodes[stack[--top]];
    if (!segment_meets_sphere(p, d, {node.centre[0], node.centre[1], node.centre[2]},
                              node.radius)) {
      continue;
    }
    if (node.leaf == VisibilityNode::kNone) {
      for (std::uint32_t k = 0; k < node.children; ++k) stack[top++] = node.first_child + k;
      continue;
    }
    if (node.leaf == skip_a || node.leaf == skip_b) continue;
    if (occluder_counts(p, d, geometry[node.leaf]) && ++count >= limit) return count;
  }
  return count;
}

}  // namespace simlod::detail
