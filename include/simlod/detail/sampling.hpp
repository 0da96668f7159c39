// Voxel colour filters (simlod::Sampling) shared by the CPU backend and the CUDA kernels.
//
// A voxel's colour is a function of the original points below its cell, never of the order in
// which they arrive or of the samples that carried them up the tree:
//   Random:  every point has the 64-bit key hash(q, seed) << 32 | rgba, and the cell keeps the
//            largest key of its points (a max over children's maxima is the max over all
//            points, so one atomicMax per sample suffices). The hash of the quantised position
//            is uniform, so every point of the cell wins about equally often over seeds; equal
//            positions share a hash and the larger colour breaks the tie.
//   Average: the exact integer sums of each channel and the point count of the cell; the
//            colour is each sum divided by the count, rounded half up.
#pragma once

#include <cstdint>

#include "simlod/detail/hd.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/point.hpp"

namespace simlod::detail {

/// A 32-bit integer hash (two multiply-xorshift rounds; every input bit reaches every output
/// bit).
SIMLOD_HD std::uint32_t mix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

/// Sampling::Random's key of a point: the hash of its quantised position and the seed above
/// its colour. The colour of the largest key is the voxel's.
SIMLOD_HD std::uint64_t random_key(const QuantPoint& q, std::uint32_t rgba, std::uint32_t seed) {
  std::uint32_t h = mix32(seed ^ 0x9e3779b9u);
  h = mix32(h ^ q.x);
  h = mix32(h ^ q.y);
  h = mix32(h ^ q.z);
  return (static_cast<std::uint64_t>(h) << 32) | rgba;
}

/// Sampling::Average's accumulator: 40 bytes, alignment 8 (sums of red, green, blue, alpha and
/// the number of points).
struct ColourSum {
  std::uint64_t r = 0, g = 0, b = 0, a = 0;
  std::uint64_t count = 0;

  SIMLOD_HD void add(std::uint32_t rgba) {
    r += red_of(rgba);
    g += green_of(rgba);
    b += blue_of(rgba);
    a += alpha_of(rgba);
    count += 1;
  }
  SIMLOD_HD void add(const ColourSum& o) {
    r += o.r;
    g += o.g;
    b += o.b;
    a += o.a;
    count += o.count;
  }
  /// The mean colour, each channel rounded half up; 0 for no points.
  [[nodiscard]] SIMLOD_HD std::uint32_t rgba() const {
    if (count == 0) return 0;
    const std::uint64_t half = count / 2;
    return pack_rgba(static_cast<std::uint32_t>((r + half) / count),
                     static_cast<std::uint32_t>((g + half) / count),
                     static_cast<std::uint32_t>((b + half) / count),
                     static_cast<std::uint32_t>((a + half) / count));
  }
};

}  // namespace simlod::detail
