// Helpers for the renderer tests: small hand-made trees, orthographic views with easy pixel
// arithmetic, and image access.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "simlod/image.hpp"
#include "simlod/render.hpp"

namespace simlod::test {

/// Orthographic OpenGL projection of the box [l, r] x [b, t] x [-far, -near] (eye space).
inline std::array<float, 16> ortho(float l, float r, float b, float t, float near_plane,
                                   float far_plane) {
  std::array<float, 16> m{};
  m[0] = 2.0f / (r - l);
  m[5] = 2.0f / (t - b);
  m[10] = -2.0f / (far_plane - near_plane);
  m[12] = -(r + l) / (r - l);
  m[13] = -(t + b) / (t - b);
  m[14] = -(far_plane + near_plane) / (far_plane - near_plane);
  m[15] = 1.0f;
  return m;
}

/// Eye space = world space shifted down by `height` along z: a camera at z = height looking
/// straight down (-z), x right and y up on screen.
inline std::array<float, 16> top_down(float height) {
  return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -height, 1};
}

/// A top-down orthographic view of [x0, x1] x [y0, y1] from z = 100 (depth range 0.5 .. 200).
inline View top_view(float x0, float x1, float y0, float y1, std::uint32_t width,
                     std::uint32_t height) {
  return View::from_matrices(top_down(100.0f), ortho(x0, x1, y0, y1, 0.5f, 200.0f), width, height);
}

/// A tree of one leaf holding `points` (CPU backend) over the cube [0, edge]^3.
inline Octree leaf_tree(std::span<const Point> points, double edge = 8.0) {
  OctreeConfig config;
  config.backend = Backend::Cpu;
  config.cpu_threads = 1;
  Bounds cube;
  cube.expand(0.0, 0.0, 0.0);
  cube.expand(edge, edge, edge);
  Octree tree = Octree::create(cube, config);
  tree.insert(points);
  tree.update();
  return tree;
}

/// RGBA of pixel (col, row) in a downloaded image.
inline std::uint32_t pixel_at(const std::vector<std::uint8_t>& image, std::uint32_t width,
                              std::uint32_t col, std::uint32_t row) {
  const std::size_t i = (std::size_t{row} * width + col) * 4;
  return pack_rgba(image[i], image[i + 1], image[i + 2], image[i + 3]);
}

/// Pixels whose colour differs from `background`.
inline std::size_t covered(const std::vector<std::uint8_t>& image, std::uint32_t background) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < image.size(); i += 4) {
    if (pack_rgba(image[i], image[i + 1], image[i + 2], image[i + 3]) != background) ++n;
  }
  return n;
}

/// Pixels that differ between two images of the same size.
inline std::size_t differing(const std::vector<std::uint8_t>& a,
                             const std::vector<std::uint8_t>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); i += 4) {
    if (a[i] != b[i] || a[i + 1] != b[i + 1] || a[i + 2] != b[i + 2] || a[i + 3] != b[i + 3]) ++n;
  }
  return n;
}

}  // namespace simlod::test
