// estimate_normals: PCA of each point's k nearest neighbours (core/cpu/visibility/knn.hpp),
// then the orientation (simlod/normals.hpp; propagated: core/cpu/visibility/orient.hpp, or its
// CUDA twin).
#include "simlod/normals.hpp"

#include <fmt/format.h>

#include <cmath>

#include "core/cpu/visibility/knn.hpp"
#include "core/cpu/visibility/orient.hpp"
#include "core/thread_pool.hpp"
#include "kernels/visibility/visibility_entry.hpp"
#include "simlod/detail/pca_normal.hpp"
#include "simlod/error.hpp"

namespace simlod {

std::vector<Normal> estimate_normals(std::span<const Point> points, const NormalParams& params) {
  const std::uint32_t k = params.neighbours;
  if (k < 3 || k > 128) {
    throw InvalidInput(fmt::format("estimate_normals: {} neighbours; it takes 3 to 128", k));
  }
  if (points.size() < k) {
    throw InvalidInput(
        fmt::format("estimate_normals: {} points for {} neighbours each", points.size(), k));
  }
  if (points.size() >= 0xFFFFFFFFu) {
    throw InvalidInput(fmt::format("estimate_normals: {} points; at most 2^32 - 2", points.size()));
  }
  if (params.orientation == NormalOrientation::Viewpoint && !params.viewpoint) {
    throw InvalidInput("estimate_normals: Viewpoint orientation needs a viewpoint");
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      throw InvalidInput(fmt::format(
          "estimate_normals: point {} has a non-finite coordinate ({}, {}, {})", i, p.x, p.y, p.z));
    }
  }
  const bool propagate = params.orientation == NormalOrientation::Propagate;
  detail::SeedRule rule;
  if (params.viewpoint) {
    rule.has_viewpoint = true;
    for (int a = 0; a < 3; ++a) rule.viewpoint[a] = (*params.viewpoint)[a];
  }
  std::vector<Normal> normals;
  const bool on_device = resolve_backend(params.backend) == Backend::Cuda;
#if SIMLOD_HAS_CUDA
  if (on_device) normals = detail::cuda::pca_normals(points, k, propagate ? &rule : nullptr);
#endif
  if (!on_device) {
    const std::vector<std::uint32_t> knn = detail::cpu::nearest_neighbours(points, k);
    normals.resize(points.size());
    detail::ThreadPool::shared().parallel_for(
        points.size(), 256, [&](unsigned, std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) {
            const detail::Dir3 n = detail::pca_normal(points.data(), knn.data() + i * k, k);
            normals[i] = {static_cast<float>(n.x), static_cast<float>(n.y),
                          static_cast<float>(n.z)};
          }
        });
    if (propagate) detail::cpu::orient_normals(points, knn, k, rule, normals);
  }
  if (!propagate) {
    const auto& v = *params.viewpoint;
    for (std::size_t i = 0; i < points.size(); ++i) {
      Normal& n = normals[i];
      if (n.x * (v[0] - points[i].x) + n.y * (v[1] - points[i].y) + n.z * (v[2] - points[i].z) <
          0) {
        n = detail::flipped(n);
      }
    }
  }
  return normals;
}

}  // namespace simlod
