// The CPU octree backend: the SimLOD update (core/octree_backend.hpp) on host threads. It is a
// product backend for machines without a GPU and the reference the CUDA backend is tested
// against. Layouts: core/cpu_node.hpp, core/cpu_chunk_store.hpp, core/cpu_grid_store.hpp.
//
// A batch is applied as a transaction: expand and sample change the tree only in ways that
// rollback() can undo exactly (new nodes and grids are appended, split leaves keep their chunk
// lists until commit, every grid bit set has a voxel record). The exact memory need is known
// after sampling; only then does commit() take chunks and write samples, and it cannot fail.
// So a batch that does not fit (or runs out of host memory) leaves the octree as it was.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/cpu_chunk_store.hpp"
#include "core/cpu_grid_store.hpp"
#include "core/cpu_node.hpp"
#include "core/cpu_thread_pool.hpp"
#include "core/octree_backend.hpp"

namespace simlod::detail::cpu {

class CpuBackend final : public OctreeBackend {
 public:
  CpuBackend(const OctreeConfig& config, const OctreeGeometry& geometry);
  ~CpuBackend() override;

  [[nodiscard]] Backend kind() const override { return Backend::Cpu; }
  void insert_batch(std::span<const Point> batch, UpdateStats& stats) override;
  [[nodiscard]] OctreeStats stats() const override;
  [[nodiscard]] NodeSnapshot snapshot() const override;
  RenderStats render(const RenderJob& job, FramebufferStore& fb) const override;

 private:
  struct Batch;  // core/cpu_batch.hpp

  // Phases (core/cpu_expand.cpp, core/cpu_sample.cpp, core/cpu_commit.cpp).
  std::uint32_t expand(Batch& b);
  void count_round(Batch& b, bool first, std::vector<std::uint32_t>& touched);
  /// Adds n to a node's pending count for this batch; the first adder lists the node in `list`.
  void add_pending(std::uint32_t node, std::uint32_t n, std::vector<std::uint32_t>& list);
  void split(Batch& b, std::uint32_t leaf);
  void sample(Batch& b);
  void plan_chunks(Batch& b);
  void commit(Batch& b) noexcept;
  void insert_samples(Batch& b) noexcept;
  void rollback(Batch& b) noexcept;

  /// Bytes charged to the reserve: allocated chunks (pooled included), grids and nodes.
  [[nodiscard]] std::uint64_t charged() const;
  /// Throws CapacityError when `extra` more bytes would exceed the reserve.
  void require(const Batch& b, std::uint64_t extra, std::string_view what) const;
  [[nodiscard]] std::uint64_t chunks_for(std::uint64_t samples) const;

  OctreeConfig config_;
  OctreeGeometry geometry_;
  std::uint64_t limit_;  ///< memory_bytes; 0 = no limit
  ThreadPool pool_;
  std::vector<CpuNode> nodes_;
  std::vector<NodeScratch> scratch_;
  ChunkStore chunks_;
  GridStore grids_;
  std::unique_ptr<Batch> batch_;  ///< scratch reused by every batch
  // Running totals, updated by commit().
  std::uint64_t points_ = 0, voxels_ = 0;
  std::uint64_t point_chunks_ = 0, voxel_chunks_ = 0;
  std::uint32_t depth_ = 0;
};

}  // namespace simlod::detail::cpu
