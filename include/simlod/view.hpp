// simlod::View: the camera and the drawing options of one rasterize() call.
//
// Coordinates: the camera lives in octree coordinates, the coordinates of the points inserted
// into the octree (file coordinates minus Octree::cube().min). Matrices follow OpenGL: column-
// major float[16] (element (row r, column c) at index c * 4 + r), a right-handed eye space
// looking down -z with +y up, clip space with -w <= x, y, z <= w. Pixel (0, 0) is the top-left
// corner of the image: column = floor((x/w + 1) / 2 * width), row = floor((1 - y/w) / 2 * height).
#pragma once

#include <array>
#include <cstdint>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"

namespace simlod {

enum class RenderQuality {
  Fast,  ///< one sample per pixel: the nearest (ties: the smaller rgba value)
  High,  ///< a depth pass, then the average colour of the samples within 1% of the nearest depth
};

/// What colour a sample is drawn with.
enum class ColorMode {
  Rgb,        ///< its own colour (points: from the file; voxels: the sampled colour)
  Elevation,  ///< a colour ramp over its z within View::elevation_range (blue, green, pale
              ///< yellow, orange, red): what scans without colour (most airborne LiDAR) are
              ///< read by
  // The attribute modes read the octree's attribute channels (OctreeConfig::channels); an
  // octree without the channel a mode needs is refused. Colours as color_points() gives them
  // (simlod/coloring.hpp), so that a frame can switch modes without reloading.
  Intensity,       ///< grey over View::intensity_range, View::intensity_gamma applied
  Classification,  ///< Potree's classification colours (ASPRS classes)
  Returns,         ///< single, first, intermediate and last returns (return number and count)
  PointSourceId,   ///< flight lines or scan positions in 12 colours in turn
};

struct View {
  std::array<float, 16> view_matrix{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  std::array<float, 16> projection_matrix{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  std::uint32_t width = 0, height = 0;  ///< must equal the framebuffer's size
  /// A node is refined while its projected size exceeds this many pixels (SimLOD: 128, the
  /// voxel grid). Larger is coarser and faster; 0 draws every original point in the frustum
  /// (leaves only, no LOD).
  float lod_threshold = 128.0f;
  /// At most this many samples (points + voxels) per frame, 0 = no limit: the threshold is
  /// raised in steps of 2^(1/4) (at most 2^16 times) until the selected nodes fit. When even the
  /// coarsest step exceeds the budget, that step is drawn anyway.
  std::uint64_t point_budget = 0;
  RenderQuality quality = RenderQuality::Fast;
  /// Every sample covers a square of this many pixels a side (1 .. kMaxPointSize), centred on
  /// its own pixel (for even sizes one more pixel right and below), at the sample's depth: the
  /// nearest sample still wins each pixel. Larger points close the gaps of sparse regions
  /// (close-ups, thin scans) at point_size^2 times the splatting work. A sample whose own pixel
  /// lies outside the image is not drawn.
  std::uint32_t point_size = 1;
  static constexpr std::uint32_t kMaxPointSize = 16;
  /// Colour of pixels without samples.
  std::uint32_t background = pack_rgba(0, 0, 0, 255);
  /// Eye-dome lighting, as Potree's EDL: darkens pixels that lie behind their neighbours, so
  /// that the shape of colourless scans reads well. The neighbours are the 8 pixels containing
  /// the points `edl_radius` pixels from the pixel's centre in the directions 2 pi i / 8 (the
  /// default 1.4 gives the 8 pixels around it); a pixel's colour is multiplied by
  /// exp(-300 * edl_strength * sum / 8), the sum taken over its neighbours with a sample of
  /// max(0, log2 depth - log2 neighbour depth). `edl_strength` must be finite and >= 0,
  /// `edl_radius` finite, > 0 and <= 64.
  bool eye_dome_lighting = false;
  float edl_strength = 1.0f;
  float edl_radius = 1.4f;
  /// With eye_dome_lighting: empty pixels with a neighbour that holds a sample are drawn opaque
  /// black instead of `background`, an outline around the samples as Potree's EDL draws. Off by
  /// default: Potree draws points several pixels wide, simlod one pixel, so in sparse regions
  /// (close-ups without LOD, thin scans) every gap between points would turn black.
  bool edl_outline = false;
  ColorMode color = ColorMode::Rgb;
  /// ColorMode::Elevation: the z range (octree coordinates) the ramp spans, low to high; z
  /// outside it takes the end colours. Set it to the data's z range (file bounds minus
  /// Octree::cube().min) for the whole ramp.
  std::array<float, 2> elevation_range{0.0f, 1.0f};
  /// ColorMode::Intensity: intensities at or below the first value are black, at or above the
  /// second white (simlod::intensity_range() of a sample of the data is a good choice).
  std::array<float, 2> intensity_range{0.0f, 65535.0f};
  /// ColorMode::Intensity: grey = t^gamma along the range, applied in 256 steps of t (so it
  /// can differ by one grey level from color_points(), which applies it to t exactly; equal
  /// at 1).
  float intensity_gamma = 1.0f;

  /// A perspective camera at `position` looking at `target` (octree coordinates), `up` roughly
  /// upwards, vertical field of view in degrees, near and far plane distances (0 < near < far).
  /// Throws InvalidInput for a degenerate camera (target = position, up parallel to the view
  /// direction, bad angles or planes, zero size).
  static View look_at(const std::array<double, 3>& position, const std::array<double, 3>& target,
                      const std::array<double, 3>& up, double fov_y_degrees, std::uint32_t width,
                      std::uint32_t height, double near_plane, double far_plane);

  /// A camera from OpenGL view and projection matrices (column-major). Throws InvalidInput for
  /// non-finite matrices or a zero size.
  static View from_matrices(const std::array<float, 16>& view,
                            const std::array<float, 16>& projection, std::uint32_t width,
                            std::uint32_t height);

  /// A perspective camera that sees all of `box` (octree coordinates) from the direction given
  /// by `yaw_degrees` (about +z, 0 = looking along +y) and `pitch_degrees` (down from the
  /// horizon, 90 = straight down), with +z up; near/far enclose the box.
  static View overview(const Bounds& box, std::uint32_t width, std::uint32_t height,
                       double yaw_degrees = 30.0, double pitch_degrees = 45.0,
                       double fov_y_degrees = 60.0);

  /// projection_matrix * view_matrix (column-major), computed in double and rounded once.
  [[nodiscard]] std::array<float, 16> view_projection() const;
  /// Throws InvalidInput naming the first bad field (size 0, non-finite matrix, negative or
  /// non-finite threshold, bad EDL settings, an intensity range or gamma as
  /// ColorByOptions::validate() refuses them, an elevation range that is not finite and
  /// increasing).
  void validate() const;
};

}  // namespace simlod
