// Voxel colour filters (simlod::Sampling) shared by the CPU backend and the CUDA kernels.
//
// A voxel's colour is a function of the original points below its cell, never of the order in
// which they arrive or of the samples that carried them up the tree:
//   Random:  every point has the 64-bit key hash(q, seed) << 32 | rgba, and the cell keeps the
//            largest key of its points (a max over children's maxima is the max over all
//            points, so one atomicMax per sample suffices). The hash of the quantised position
//            is uniform, so every point of the cell wins about equally often over seeds; equal
//            positions share a hash and the larger colour breaks the tie. With attribute
//            channels the voxel takes the record of that point; points of equal keys break
//            the tie by record_digest() of their records.
//   Average: the exact integer sums of each channel and the point count of the cell; the
//            colour is each sum divided by the count, rounded half up.
//   Weighted: every sample (a child's point, or a child voxel at its cell centre) adds its
//            colour to each of the up to 2x2x2 occupied cells nearest to it, weighted by
//            clamp(1 - d, 0, 1), d = its Euclidean distance to the cell's centre in cells; the
//            colour is sum(w c) / sum(w). Positions are fixed point (1/1024 cell) and d is an
//            integer square root, so every backend computes the same weights bit for bit.
#pragma once

#include <cmath>
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

/// Sampling::Random with attribute channels: the tie-break between points of equal keys (equal
/// positions and colours) whose channel records differ. The voxel takes the record of the
/// point with the largest (key, digest); the digest hashes the record's 32-bit words (records
/// are a multiple of 4 bytes) into 32 bits, so that key and digest fit one 16-byte atomic with
/// the winner's number, and is odd, so that no record's digest is 0, the digest of an empty
/// accumulator. (Two different records of one key with one digest, odds of 2^-31, keep either.)
SIMLOD_HD std::uint32_t record_digest(const std::uint8_t* record, std::uint32_t bytes) {
  std::uint32_t h = 0x85ebca6bu;
  for (std::uint32_t at = 0; at < bytes; at += 4) {
    const std::uint32_t word = std::uint32_t{record[at]} | std::uint32_t{record[at + 1]} << 8 |
                               std::uint32_t{record[at + 2]} << 16 |
                               std::uint32_t{record[at + 3]} << 24;
    h = mix32(h ^ word) + 0x9e3779b9u;
  }
  return mix32(h) | 1u;
}

/// Sampling::Average's accumulator: 40 bytes, alignment 8 (sums of red, green, blue, alpha and
/// the number of points).
struct ColourSum {
  std::uint64_t r = 0, g = 0, b = 0, a = 0;
  std::uint64_t count = 0;

  /// Adds `rgba` with weight w: a point (w = 1), or a Sampling::Weighted sample (count then
  /// sums the weights).
  SIMLOD_HD void add(std::uint32_t rgba, std::uint32_t w = 1) {
    r += std::uint64_t{w} * red_of(rgba);
    g += std::uint64_t{w} * green_of(rgba);
    b += std::uint64_t{w} * blue_of(rgba);
    a += std::uint64_t{w} * alpha_of(rgba);
    count += w;
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

/// Sampling::Weighted's fixed point: positions in a node's grid in 1/kWeightOne cells.
inline constexpr std::uint32_t kWeightBits = 10, kWeightOne = 1u << kWeightBits;

/// floor(sqrt(v)) for v below 2^24 (exact as a float), exact: the correctly rounded square
/// root, corrected by one where rounding crossed an integer.
SIMLOD_HD std::uint32_t isqrt(std::uint32_t v) {
#ifdef __CUDA_ARCH__
  auto root = static_cast<std::uint32_t>(__fsqrt_rn(static_cast<float>(v)));
#else
  auto root = static_cast<std::uint32_t>(std::sqrt(static_cast<float>(v)));
#endif
  if (root * root > v) --root;
  if ((root + 1) * (root + 1) <= v) ++root;
  return root;
}

/// A point's position on one axis of a level-`level` node's 2^g grid (the cell coordinate
/// times kWeightOne plus the point's fraction of the cell), from its quantised coordinate.
SIMLOD_HD std::uint32_t grid_position(std::uint32_t q, std::uint32_t level, std::uint32_t g) {
  const std::uint32_t below = kQuantBits - level - g;  // bits of q inside one cell
  const std::uint32_t p =
      below >= kWeightBits ? q >> (below - kWeightBits) : q << (kWeightBits - below);
  return p & ((1u << (g + kWeightBits)) - 1u);
}

/// The centre of a child's cell (coordinate `coord`, octant bit `bit` on this axis) on one axis
/// of its parent's grid: half of (bit * 2^g + coord + 1/2) cells.
SIMLOD_HD std::uint32_t child_cell_position(std::uint32_t coord, std::uint32_t bit,
                                            std::uint32_t g) {
  return (((bit << g) | coord) << (kWeightBits - 1)) + (kWeightOne >> 2);
}

/// Calls fn(cell, weight) for each of the up to 2x2x2 cells of a 2^g grid nearest to the
/// sample at position p (grid_position per axis) that gets a weight above 0:
/// kWeightOne - floor(|d|), d = the offset from the cell's centre in 1/kWeightOne cells. The
/// caller skips cells that hold no sample. The sample's own cell always gets a weight (its
/// centre is at most sqrt(3)/2 cells away).
template <class Fn>
SIMLOD_HD void for_each_spread_cell(const std::uint32_t (&p)[3], std::uint32_t g, Fn&& fn) {
  const std::int32_t cells = 1 << g, half = kWeightOne / 2;
  std::int32_t lo[3], d[3][2];
  for (int a = 0; a < 3; ++a) {
    const auto pa = static_cast<std::int32_t>(p[a]);
    // The two cells whose centres bracket the sample.
    lo[a] = (pa - half) >> kWeightBits;  // -1 below the first centre
    d[a][0] = pa - (lo[a] * static_cast<std::int32_t>(kWeightOne) + half);
    d[a][1] = d[a][0] - static_cast<std::int32_t>(kWeightOne);
  }
  for (std::uint32_t k = 0; k < 8; ++k) {
    const std::int32_t x = lo[0] + static_cast<std::int32_t>(k & 1u),
                       y = lo[1] + static_cast<std::int32_t>((k >> 1) & 1u),
                       z = lo[2] + static_cast<std::int32_t>(k >> 2);
    if (x < 0 || y < 0 || z < 0 || x >= cells || y >= cells || z >= cells) continue;
    const std::int32_t dx = d[0][k & 1u], dy = d[1][(k >> 1) & 1u], dz = d[2][k >> 2];
    const std::uint32_t dist = isqrt(static_cast<std::uint32_t>(dx * dx + dy * dy + dz * dz));
    if (dist >= kWeightOne) continue;
    fn(static_cast<std::uint32_t>(x) | (static_cast<std::uint32_t>(y) << g) |
           (static_cast<std::uint32_t>(z) << (2 * g)),
       kWeightOne - dist);
  }
}

}  // namespace simlod::detail
