// The phases of the CPU builder (core/cpu/update/update.hpp) over one store and its scratch:
// expand.cpp, sample.cpp, commit.cpp, and the transaction in update.cpp. Internal to
// core/cpu/update/.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "core/cpu/update/batch.hpp"
#include "core/cpu/update/update.hpp"

namespace simlod::detail::cpu {

class Updater {
 public:
  Updater(TreeStore& store, UpdateScratch& scratch);
  void run(std::span<const Point> batch, std::span<const std::byte> records, UpdateStats& stats);

 private:
  std::uint32_t expand(Batch& b);
  void count_round(Batch& b, bool first, std::vector<std::uint32_t>& touched);
  /// Adds n to a node's pending count for this batch; the first adder lists the node in `list`.
  void add_pending(std::uint32_t node, std::uint32_t n, std::vector<std::uint32_t>& list);
  void split(Batch& b, std::uint32_t leaf);
  void sample(Batch& b);
  void plan_chunks(Batch& b);
  void commit(Batch& b) noexcept;
  void insert_samples(Batch& b) noexcept;
  /// Filtered colours: the batch's points fold into the voxel index, then the voxels they
  /// changed get their colours (filter.cpp).
  void fold_batch(Batch& b) noexcept;
  /// Average with a classification channel: claims the class counts fold_batch() adds to, so
  /// that it cannot fail (grows them; CapacityError past the memory reserve).
  void claim_batch_classes(Batch& b);
  void rollback(Batch& b) noexcept;

  /// Throws CapacityError when `extra` more bytes would exceed the reserve.
  void require(const Batch& b, std::uint64_t extra, std::string_view what) const;
  [[nodiscard]] std::uint64_t charged() const { return store_.charged(); }
  [[nodiscard]] std::uint64_t chunks_for(std::uint64_t samples, bool leaf) const {
    return store_.chunks_for(samples, leaf);
  }

  TreeStore& store_;
  // The store's parts and the scratch under short names for the phases.
  const OctreeConfig& config_;
  const OctreeGeometry& geometry_;
  const std::uint64_t limit_;
  std::vector<CpuNode>& nodes_;
  ChunkStore& chunks_;
  GridStore& grids_;
  std::uint64_t &points_, &voxels_, &point_chunks_, &voxel_chunks_;
  std::uint32_t& depth_;
  PoolView& pool_;
  std::vector<NodeScratch>& scratch_;
  Batch& batch_;
};

}  // namespace simlod::detail::cpu
