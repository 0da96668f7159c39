// The octree builders simlod-compare measures (--builder): the bulk builder (Octree::build)
// and the incremental one (Octree::create, then insert and update per batch, then finalize),
// which make the same tree, voxel colours included, for the same points.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/octree.hpp"
#include "simlod/point.hpp"

namespace simlod::examples {

enum class Builder { Bulk, Incremental };

/// "bulk", "incremental" or "both" (bulk, then incremental); throws InvalidInput for others.
std::vector<Builder> builders_of(std::string_view name);

/// "bulk" or "incremental".
std::string_view builder_name(Builder builder);

/// The name of a filter's column in the report: the sampling name for the bulk builder,
/// "<sampling>-incremental" for the incremental one.
std::string column_name(std::string_view sampling, Builder builder);

/// The octree of `points` (relative to Octree::root_cube(bounds).min) made by `builder` with
/// `config`. The incremental builder inserts `batch` points at a time, update()s after each
/// insert and finalize()s at the end.
Octree build_octree(std::span<const Point> points, const Bounds& bounds, const OctreeConfig& config,
                    Builder builder, std::uint32_t batch);

}  // namespace simlod::examples
