// Colouring points by an attribute: what scans without RGB (most airborne LiDAR) are read by,
// besides the renderer's elevation ramp (View::color). The colour is computed as the points are
// read (the Streamer's StreamConfig::color_by, or color_points() on a batch), so it goes
// through every builder and voxel filter like a file's own RGB.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "simlod/attributes.hpp"
#include "simlod/point.hpp"

namespace simlod {

enum class ColorBy : std::uint8_t {
  File,            ///< the colour the reader gives (the file's RGB, else derived)
  Intensity,       ///< a grey ramp over ColorByOptions::intensity_range
  Classification,  ///< Potree's classification colours (ASPRS classes)
  Returns,         ///< single, first, intermediate and last returns in four colours
  PointSourceId,   ///< flight lines or scan positions in 12 colours in turn
};

/// "file", "intensity", "classification", "returns", "source".
[[nodiscard]] const char* to_string(ColorBy by);
/// From to_string's names (any case; "return" and "point_source_id" too); throws InvalidInput
/// listing them.
[[nodiscard]] ColorBy color_by_from_string(std::string_view name);
/// The attributes colouring by `by` reads (none for File).
[[nodiscard]] AttributeMask attributes_for(ColorBy by);

struct ColorByOptions {
  ColorBy by = ColorBy::File;
  /// ColorBy::Intensity: intensities at or below the first value are black, at or above the
  /// second white. None: from the data; color_points() takes intensity_range() of the points
  /// it colours, a Streamer sample_intensity_range() of its files once, so that every batch
  /// shares one range.
  std::optional<std::array<float, 2>> intensity_range{};
  /// ColorBy::Intensity: grey = t^gamma for t in [0, 1] along the range; below 1 brightens.
  float intensity_gamma = 1.0f;

  /// Throws InvalidInput for a range that is not finite and increasing or a gamma that is not
  /// finite and positive.
  void validate() const;
};

/// Sets the colour of every point from its attributes (`attributes` as a reader returned them
/// beside `points`). Nothing for ColorBy::File. Throws InvalidInput when an attribute the
/// colouring needs is missing or shorter than `points`, or the options are invalid.
void color_points(std::span<Point> points, const PointAttributes& attributes,
                  const ColorByOptions& options);

/// The 1st and 99th percentile of `values` (so that a few extreme values do not darken the
/// rest), widened to at least 1 apart. Throws InvalidInput for no values.
[[nodiscard]] std::array<float, 2> intensity_range(std::span<const std::uint16_t> values);

/// intensity_range() of about `samples` intensities read from the files (files without
/// intensity are passed over): runs spread over each file where it can seek, its first points
/// otherwise. Throws InvalidInput when no file has intensity, and the readers' errors.
[[nodiscard]] std::array<float, 2> sample_intensity_range(
    const std::vector<std::filesystem::path>& files, std::size_t samples = 65'536);

}  // namespace simlod
