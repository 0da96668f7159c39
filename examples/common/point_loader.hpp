// Reads every point of the input into memory, in octree coordinates, for the programs that
// build the octree in one go (Octree::build) instead of streaming batches into it.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "simlod/attributes.hpp"
#include "simlod/bounds.hpp"
#include "simlod/coloring.hpp"
#include "simlod/point.hpp"
#include "simlod/synth.hpp"

namespace simlod::examples {

struct LoadedPoints {
  /// Relative to simlod::Octree::root_cube(bounds).min: what Octree::build takes.
  std::vector<Point> points;
  /// Of the points as read, before that shift: the bounds to create the octree with (several
  /// files: relative to the first file's origin; the synthetic town: its own coordinates).
  Bounds bounds;
  /// Some file stores colour, or the points were coloured by an attribute (the synthetic town
  /// has its own).
  bool has_color = true;
  std::string name;                          ///< what was read, for messages and reports
  std::vector<std::filesystem::path> files;  ///< the files read, in order (none: synthetic)
  /// The attributes asked for as `channels`, element i beside point i (empty arrays when
  /// none were asked): what Octree::build(points, attributes, ...) takes.
  PointAttributes attributes;
};

/// Called now and then while reading: points read so far and of all inputs.
using LoadProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

/// Every point of the files `inputs` stand for (simlod::point_cloud_files). Each reader returns
/// points relative to its file's origin; they are moved to the first file's origin and then into
/// the octree's cube in double, so that tiles of a georeferenced survey keep their precision.
/// Throws the readers' errors (naming the file), IoError for a file that ends before its header's
/// count, InvalidInput when there are no points.
/// `coloring`: colours the points by an attribute as they are read (the files must have it:
/// the reader's InvalidInput otherwise); an intensity range, when none is given, comes from
/// sample_intensity_range() of all the files, so that they share it.
/// `channels`: attributes kept beside the points (LoadedPoints::attributes); every file must
/// have them (the reader's InvalidInput names the file otherwise).
LoadedPoints load_points(const std::vector<std::filesystem::path>& inputs,
                         const LoadProgress& progress = {}, const ColorByOptions& coloring = {},
                         AttributeMask channels = 0);

/// Every point of the synthetic town. Throws InvalidInput for zero points.
LoadedPoints load_points(const synth::SceneConfig& scene, const LoadProgress& progress = {});

/// Fills all of `out` by calling `next` (a reader's read or a generator's next) until it is
/// full; `next` returning 0 before then means the source ended early: IoError naming `what`.
void read_fully(const std::function<std::size_t(std::span<Point>)>& next, std::span<Point> out,
                const std::string& what);

/// Adds `delta` to every point, in double (octree coordinates: minus the cube's minimum).
void shift_points(std::span<Point> points, const std::array<double, 3>& delta);

}  // namespace simlod::examples
