#include "common/compare_builders.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "simlod/error.hpp"

namespace simlod::examples {

std::vector<Builder> builders_of(std::string_view name) {
  if (name == "bulk") return {Builder::Bulk};
  if (name == "incremental") return {Builder::Incremental};
  if (name == "both") return {Builder::Bulk, Builder::Incremental};
  throw InvalidInput(
      fmt::format("unknown builder '{}' in --builder (use bulk, incremental or both)", name));
}

std::string_view builder_name(Builder builder) {
  return builder == Builder::Bulk ? "bulk" : "incremental";
}

std::string column_name(std::string_view sampling, Builder builder) {
  return builder == Builder::Bulk ? std::string(sampling)
                                  : fmt::format("{}-{}", sampling, builder_name(builder));
}

Octree build_octree(std::span<const Point> points, const Bounds& bounds, const OctreeConfig& config,
                    Builder builder, std::uint32_t batch) {
  if (builder == Builder::Bulk) return Octree::build(points, bounds, config);
  if (batch == 0) throw InvalidInput("the batch of the incremental builder must hold a point");
  OctreeConfig incremental = config;  // insert() would split larger batches
  incremental.max_batch_points = std::max(incremental.max_batch_points, batch);
  Octree tree = Octree::create(bounds, incremental);
  for (std::size_t first = 0; first < points.size(); first += batch) {
    tree.insert(points.subspan(first, std::min<std::size_t>(batch, points.size() - first)));
    tree.update();
  }
  tree.finalize();  // Weighted: the colours the batches left first-come
  return tree;
}

}  // namespace simlod::examples
