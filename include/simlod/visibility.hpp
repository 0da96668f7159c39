// simlod::VisibilityMap: view-independent visibility of a point model, after P. Goradia,
// S. Kashyap, P. Chaudhuri, S. Chandran, "GPU-based Hierarchical Computations for View
// Independent Visibility". Which parts of a scanned scene see which others, computed once for
// all viewpoints: the input of point-based global illumination, or a viewshed question.
//
// The exact rules (docs/visibility.md):
// - An adaptive octree over the points' bounding cube, height at most `height` (root at depth
//   0): a node splits while it holds more than `leaf_points` points and its depth is below the
//   height; only octants holding points become children.
// - Each node has a sphere centred on its cube: a leaf's reaches its farthest point, an inner
//   node's encloses its children's (r = max |c - c_child| + r_child).
// - A leaf has a centroid, a normal (the mean of its points' normals, made unit; 0 when that
//   mean is shorter than 0.05: such a leaf faces nothing and occludes nothing) and Delta, the
//   distance from its centroid to its farthest point.
// - Leaves p and q see each other when they face each other (n_p . (q - p) > 0 and
//   n_q . (p - q) > 0) and fewer than `occluders` (K) other leaves occlude the segment pq. A
//   leaf occludes when the segment meets its sphere, n . (q - p) is not ~0, and the segment
//   crosses its plane at t in (0, 1) within Delta of its centroid.
// - The V-map links node pairs: (A, B) is a link when every leaf below A sees every leaf below
//   B and the same does not hold one level up. Levels are depths, and a leaf stands for itself
//   on every level below its own, so that leaves at different depths pair up. Every mutually
//   visible leaf pair is covered by exactly one link, and a link replaces all the pairs below.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <vector>

#include "simlod/backend.hpp"
#include "simlod/point.hpp"

namespace simlod {

/// A surface normal (need not be unit; VisibilityMap uses its direction).
struct Normal {
  float x = 0.0f;
  float y = 0.0f;
  float z = 0.0f;
  friend constexpr bool operator==(const Normal&, const Normal&) = default;
};

struct VisibilityConfig {
  std::uint32_t height = 8;       ///< h, the octree's height limit: 1 .. 16
  std::uint32_t leaf_points = 8;  ///< a node splits while it holds more points (>= 1)
  std::uint32_t occluders = 1;    ///< K: a pair is invisible from K counting occluders on (>= 1)
  /// Where the octree, the leaf pairs and the links are built (Auto: CUDA when a device is
  /// present). Both give the same map.
  Backend backend = Backend::Auto;
  /// The largest leaf matrix (one bit per leaf pair) the map keeps. A larger one is never
  /// held: the map is built in blocks of whole subtrees whose pair matrices stay within this
  /// budget, and visible() answers from the links. The same leaf pairs, counts and links
  /// either way.
  std::uint64_t matrix_bytes = std::uint64_t{2} << 30;
};

/// A node of the map's octree. Children of a node are consecutive ids.
struct VisibilityNode {
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  std::uint32_t depth = 0;
  std::array<std::uint32_t, 3> cell{};  ///< integer position among the 2^depth cubes per axis
  std::uint32_t parent = kNone;
  std::uint32_t first_child = kNone;
  std::uint32_t children = 0;
  std::uint32_t leaf = kNone;     ///< leaf number, kNone for an inner node
  std::uint32_t first_point = 0;  ///< into point_order()
  std::uint32_t points = 0;
  std::array<double, 3> centre{};  ///< of the node's cube and sphere
  double radius = 0.0;
};
static_assert(sizeof(VisibilityNode) == 72, "the map file stores nodes as they lie in memory");

/// A leaf's part in the rules.
struct VisibilityLeaf {
  std::uint32_t node = 0;
  std::array<double, 3> centroid{};
  std::array<double, 3> normal{};  ///< unit, or 0 (the leaf's normals cancel)
  double delta = 0.0;
};

struct VisibilityStats {
  std::uint64_t points = 0;
  std::uint64_t nodes = 0;
  std::uint64_t leaves = 0;
  std::uint32_t depth = 0;         ///< of the deepest leaf
  std::uint64_t leaf_pairs = 0;    ///< unordered pairs of distinct leaves
  std::uint64_t facing_pairs = 0;  ///< pairs that passed the facing test
  std::uint64_t visible_pairs = 0;
  std::vector<std::uint64_t> links_per_level;  ///< links between nodes of level (depth) l
  std::uint64_t links = 0;
  Backend backend = Backend::Cpu;  ///< where the pairs and links ran
  double octree_ms = 0.0;
  double pairs_ms = 0.0;  ///< device time on CUDA (a blocked CPU build: pairs and links)
  double links_ms = 0.0;  ///< device time on CUDA (a blocked CPU build: 0)
  double total_ms = 0.0;
  std::uint64_t bytes = 0;  ///< held by the map (tree, leaf matrix, links)
};

class VisibilityMap {
 public:
  /// Builds the map of `points` with their `normals` (one each) on config.backend (the CPU:
  /// every core).
  /// InvalidInput for no points, a count mismatch, a non-finite coordinate or normal (naming
  /// its index), or a configuration out of range; CapacityError when the blocks' own matrix
  /// (pairs of the level where a blocked build splits the subtrees) would pass 2 GiB.
  static VisibilityMap build(std::span<const Point> points, std::span<const Normal> normals,
                             const VisibilityConfig& config = {});

  VisibilityMap(VisibilityMap&&) noexcept;
  VisibilityMap& operator=(VisibilityMap&&) noexcept;
  ~VisibilityMap();

  [[nodiscard]] const VisibilityStats& stats() const;
  [[nodiscard]] const VisibilityConfig& config() const;
  [[nodiscard]] std::span<const VisibilityNode> nodes() const;
  [[nodiscard]] std::span<const VisibilityLeaf> leaves() const;
  /// The input's point indices in octree order: node n holds
  /// point_order()[first_point .. first_point + points).
  [[nodiscard]] std::span<const std::uint32_t> point_order() const;
  /// The leaf holding input point i.
  [[nodiscard]] std::uint32_t leaf_of_point(std::uint32_t i) const;

  /// Leaves a and b see each other (symmetric; false for a == b). InvalidInput out of range.
  [[nodiscard]] bool visible(std::uint32_t a, std::uint32_t b) const;
  /// The nodes linked to `node` (ascending ids): every leaf below `node` sees every leaf below
  /// each of them.
  [[nodiscard]] std::span<const std::uint32_t> links(std::uint32_t node) const;
  /// Leaves that see the point `eye`. An eye inside a leaf's cube stands for that leaf's
  /// surface: its visible leaves. An eye anywhere else is in free space: each leaf q that faces
  /// it (n_q . (eye - q) > 0) and whose segment to it fewer than K other leaves occlude.
  [[nodiscard]] std::vector<std::uint32_t> visible_from(const std::array<double, 3>& eye) const;
  /// The same as a mask over the input points (1: the point's leaf sees `eye`).
  [[nodiscard]] std::vector<std::uint8_t> visible_points(const std::array<double, 3>& eye) const;

  /// Writes the map to `path` (the format in docs/file-formats.md): whole or not at all (a
  /// partial file renamed at the end). Throws IoError naming the file.
  void save(const std::filesystem::path& path) const;
  /// Reads a map save() wrote; the statistics' times are 0. Throws IoError, or InvalidInput
  /// naming the file and what is wrong (magic, version, size, an index out of range).
  static VisibilityMap load(const std::filesystem::path& path);

  struct Impl;

 private:
  explicit VisibilityMap(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace simlod
