// Inputs of one stream that lie far apart (tiles of two distant surveys) make one octree cube
// over the gap between them: a deep tree and an overview where the data is a few pixels. The
// demo warns about it before loading.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include "simlod/io.hpp"

namespace simlod::examples {

/// A warning when the files' bounds together span more than `factor` times the sum of the
/// files' own largest extents (adjacent tiles never do: together they span at most that sum);
/// none otherwise.
inline std::optional<std::string> far_apart_warning(std::span<const FileInfo> files,
                                                    double factor = 10.0) {
  if (files.size() < 2) return std::nullopt;
  Bounds all;
  double sum = 0.0;
  for (const FileInfo& f : files) {
    if (f.point_count == 0 || f.bounds.empty()) continue;
    all.expand(f.bounds);
    const auto e = f.bounds.size();
    sum += std::max({e[0], e[1], e[2]});
  }
  if (all.empty()) return std::nullopt;
  const auto e = all.size();
  const double span = std::max({e[0], e[1], e[2]});
  if (span <= factor * std::max(sum, 1e-9)) return std::nullopt;
  return fmt::format(
      "the {} inputs lie far apart: together they span {:.0f} units, while the files themselves "
      "span {:.0f} units in all; one octree cube covers the gap, so the tree gets deep and the "
      "overview shows the data as a few pixels (load distant inputs separately)",
      files.size(), span, sum);
}

}  // namespace simlod::examples
