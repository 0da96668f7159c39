// The two halves of kernels/visibility/visibility_entry.hpp's pairs_and_links(), which keep
// the leaf-pair matrix on the device between them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/cpu/visibility/visibility.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "simlod/detail/visibility_walk.hpp"

namespace simlod::detail::cuda {

/// The pairs a pair phase tests: entries 0 .. n (entry x is leaf leaf_of[x], or leaf x when
/// leaf_of is null), every pair x < y (split 0) or the pairs across split (x < split <= y). A
/// visible pair sets bit pair_index(x, y, n).
struct PairSpace {
  std::uint64_t n = 0;
  std::uint64_t split = 0;
  const std::uint32_t* leaf_of = nullptr;
};

/// The octree on the device for the pair phase (pairs.cu), with its counts of facing and
/// visible pairs over every call of pairs().
class DeviceTree {
 public:
  explicit DeviceTree(const cpu::VisTree& tree);
  /// The pairs of `space` into `bits` (zeroed by the caller); `ms` gets the kernels' time added.
  void pairs(const PairSpace& space, std::uint32_t occluders, std::uint32_t* bits, double& ms);
  void counted(std::uint64_t& facing, std::uint64_t& visible) const;

 private:
  DeviceMemory walk, spheres, geometry;
  WalkTree view;
  DeviceMemory counts, listed;        ///< listed: a tile's facing pairs, then its next run of walks
  unsigned walk_blocks_[2] = {1, 1};  ///< walk blocks the device holds (tiles, whole matrix)
  DeviceMemory list;                  ///< a tile's facing pairs, list_room entries
  std::uint64_t list_room = 0;
};

/// Zeroed room for the pair bits of n entries (whole 32-bit words, one to spare; links.cu).
[[nodiscard]] DeviceMemory pair_bits(std::uint64_t n, const char* what);

/// The leaf-pair matrix on the device (pairs.cu); `out` gets its host copy and counts, `ms` the
/// kernel's time.
[[nodiscard]] DeviceMemory leaf_pairs(const cpu::VisTree& tree, std::uint32_t occluders,
                                      cpu::LeafPairs& out, double& ms);
/// One level's links (node pairs) on the device.
struct LevelLinks {
  DeviceMemory links;  ///< `count` uint2 (a, b)
  std::uint64_t count = 0;
};
/// The lists per node of the links of every level (csr.cu): the CSR of cpu::links_csr, its
/// kernels' time added to `ms`.
[[nodiscard]] cpu::VisLinks links_csr(std::uint64_t nodes, const std::vector<LevelLinks>& levels,
                                      std::vector<std::uint64_t> per_level, double& ms);
/// cpu::climb on the device (links.cu): from the last of `levels` (its pair bits `below`) up to
/// the first, the links of every level but the first appended to `found` and counted into
/// per_level; returns the first level's bits. `ms` gets the kernels' time added.
[[nodiscard]] DeviceMemory climb(std::span<const cpu::VisLevel> levels, DeviceMemory below,
                                 std::vector<LevelLinks>& found, std::span<std::uint64_t> per_level,
                                 double& ms);
/// The links from the device matrix `d_matrix` (links.cu); `ms` gets its kernels' time.
[[nodiscard]] cpu::VisLinks build_links(const cpu::VisTree& tree, const std::uint32_t* d_matrix,
                                        double& ms);

}  // namespace simlod::detail::cuda
