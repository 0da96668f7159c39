// Occupancy grids of the CPU octree backend: one bit per voxel cell of an inner node,
// 2^(3 * grid_bits) bits in 64-bit words (bit cell % 64 of word cell / 64), 8-byte aligned,
// so 256 KiB per grid at 128^3. Each grid is its own allocation, so adding grids never moves
// the ones that threads are setting bits in. Inner nodes never turn back into leaves, so grids
// are only given back when a refused batch is undone (truncate).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace simlod::detail::cpu {

class GridStore {
 public:
  explicit GridStore(std::uint32_t grid_bits)
      : words_((std::uint64_t{1} << (3 * grid_bits)) / 64 + ((3 * grid_bits) < 6 ? 1 : 0)) {}

  [[nodiscard]] std::uint64_t grid_bytes() const { return words_ * 8; }
  [[nodiscard]] std::uint64_t count() const { return grids_.size(); }

  /// Room for `count` grids in all, so that acquiring them does not reallocate the table.
  void reserve(std::uint64_t count) { grids_.reserve(count); }
  /// A new zeroed grid. Throws std::bad_alloc.
  std::uint32_t acquire() {
    grids_.reserve(grids_.size() + 1);
    grids_.emplace_back(std::make_unique<std::uint64_t[]>(words_));  // zeroed
    return static_cast<std::uint32_t>(grids_.size() - 1);
  }
  /// Frees the grids from `count` on.
  void truncate(std::uint64_t count) { grids_.resize(count); }

  [[nodiscard]] std::uint64_t* words(std::uint32_t grid) const { return grids_[grid].get(); }

 private:
  std::uint64_t words_;
  std::vector<std::unique_ptr<std::uint64_t[]>> grids_;
};

}  // namespace simlod::detail::cpu
