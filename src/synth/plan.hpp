// The tile plan: how many points each tile of the scene gets, decided before any point is made.
//
// The scene is cut into 2^k x 2^k square tiles. Every surface is cut into pieces ("elements")
// no longer than a tile; a piece belongs to the tile that holds its centre, so points may stick
// out of their tile by half a piece at most. The terrain is cut into a grid of density cells
// aligned with the tiles. A tile's weight is the density-weighted area of its cells and pieces;
// the exact point total is split over the tiles by largest remainder. Each tile can then be
// generated on its own, which is what keeps memory bounded and work parallel.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "synth/scene.hpp"

namespace simlod::synth::detail {

/// A piece (iu, iv) of a primitive cut into subdivision() pieces.
struct Element {
  std::uint32_t primitive = 0;
  std::uint16_t iu = 0;
  std::uint16_t iv = 0;
  double weight = 0.0;  ///< relative expected points
};

class TilePlan {
 public:
  /// `max_unit_points`: the most points a tile may hold (memory bound); k grows until no
  /// tile holds more (or k reaches kMaxTileLevel).
  TilePlan(const Scene& scene, std::uint64_t points, std::uint64_t max_unit_points);

  [[nodiscard]] int level() const { return level_; }
  [[nodiscard]] std::uint32_t tiles_per_side() const { return 1u << level_; }
  [[nodiscard]] std::uint32_t tile_count() const { return 1u << (2 * level_); }
  [[nodiscard]] double tile_size() const;
  /// Tile (tx, ty) has index ty * tiles_per_side() + tx.
  [[nodiscard]] std::uint64_t budget(std::uint32_t tile) const { return budgets_[tile]; }
  [[nodiscard]] std::span<const Element> elements(std::uint32_t tile) const;
  [[nodiscard]] std::array<int, 2> subdivision(std::uint32_t primitive) const {
    return subdivision_[primitive];
  }

  /// Terrain density cells: 2^terrain_level() per side, cells_per_tile() per tile side.
  [[nodiscard]] int terrain_level() const { return terrain_level_; }
  [[nodiscard]] std::uint32_t cells_per_tile() const { return 1u << (terrain_level_ - level_); }
  [[nodiscard]] double cell_weight(std::uint32_t cx, std::uint32_t cy) const;
  /// True when a footprint covers part of the cell (ground samples there must be checked).
  [[nodiscard]] bool cell_covered(std::uint32_t cx, std::uint32_t cy) const;

  [[nodiscard]] std::uint64_t points() const { return points_; }
  /// The most points a tile may hold (the memory bound the level was chosen for).
  [[nodiscard]] std::uint64_t max_unit_points() const { return max_unit_points_; }

 private:
  void compute_terrain(const Scene& scene, int terrain_level);
  void compute_elements(const Scene& scene, int level);
  [[nodiscard]] std::vector<double> tile_weights() const;
  void allocate(const std::vector<double>& weights, std::uint64_t points);

  std::uint64_t points_;
  std::uint64_t max_unit_points_;
  int level_ = 0;
  int terrain_level_ = -1;
  std::vector<double> cell_weights_;  // row-major over the terrain grid
  std::vector<std::uint8_t> cell_covered_;
  std::vector<std::array<int, 2>> subdivision_;
  std::vector<std::uint32_t> element_offsets_;  // per tile, into elements_
  std::vector<Element> elements_;
  std::vector<std::uint64_t> budgets_;
};

}  // namespace simlod::synth::detail
