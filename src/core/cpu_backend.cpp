// CPU backend: construction, the per-batch transaction and its undo.
#include "core/cpu_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <new>

#include "core/cpu_batch.hpp"
#include "core/cpu_tuning.hpp"
#include "core/fault_injection.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {

CpuBackend::CpuBackend(const OctreeConfig& config, const OctreeGeometry& geometry)
    : config_(config),
      geometry_(geometry),
      limit_(config.memory_bytes),
      pool_(config.cpu_threads),
      chunks_(config.chunk_capacity),
      grids_(geometry.grid_bits),
      batch_(std::make_unique<Batch>()) {
  nodes_.emplace_back();  // the root: an empty leaf
  scratch_.emplace_back();
  if (limit_ != 0 && charged() > limit_) {
    throw CapacityError(fmt::format("memory_bytes = {} cannot even hold the root node ({} bytes)",
                                    limit_, charged()));
  }
}

CpuBackend::~CpuBackend() = default;

std::uint64_t CpuBackend::charged() const {
  return chunks_.allocated() * chunks_.chunk_bytes() + grids_.count() * grids_.grid_bytes() +
         nodes_.size() * kNodeBytes;
}

std::uint64_t CpuBackend::chunks_for(std::uint64_t samples) const {
  return (samples + config_.chunk_capacity - 1) / config_.chunk_capacity;
}

void CpuBackend::require(const Batch& b, std::uint64_t extra, std::string_view what) const {
  if (limit_ == 0) return;
  const std::uint64_t now = charged();
  if (now + extra <= limit_) return;
  const std::uint64_t free_before = limit_ - std::min(limit_, b.charged_before);
  throw CapacityError(fmt::format(
      "a batch of {} points does not fit into the octree's memory reserve: it needs at least {} "
      "bytes ({}), but only {} of the {} reserved bytes are free; the batch was not inserted",
      b.input.size(), now + extra - b.charged_before, what, free_before, limit_));
}

void CpuBackend::insert_batch(std::span<const Point> batch, UpdateStats& stats) {
  Batch& b = *batch_;
  b.reset(batch, pool_.size());
  b.old_nodes = nodes_.size();
  b.old_grids = grids_.count();
  b.charged_before = charged();
  try {
    b.q.resize(batch.size());
    b.node_of.assign(batch.size(), 0);  // every walk starts at the root
    const float scale = geometry_.quant_scale;
    pool_.parallel_for(batch.size(), kCpuPointGrain, [&](unsigned, std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) b.q[i] = quantize(batch[i], scale);
    });
    fault_point("quantize");
    stats.split_rounds = expand(b);
    fault_point("expand");
    sample(b);
    fault_point("sample");
    plan_chunks(b);
    fault_point("plan");
  } catch (const std::bad_alloc&) {
    rollback(b);
    b.release();
    throw CapacityError(
        fmt::format("host memory ran out while inserting a batch of {} points; "
                    "the batch was not inserted",
                    batch.size()));
  } catch (...) {
    rollback(b);
    throw;
  }
  commit(b);
  fault_point("commit");
}

void CpuBackend::rollback(Batch& b) noexcept {
  // Clear the bits this batch set in grids that existed before it (newer grids go away).
  for (const auto& list : b.voxels) {
    for (const VoxelRecord& v : list) {
      const std::uint32_t grid = nodes_[v.node].grid;
      if (grid < b.old_grids) {
        grids_.words(grid)[v.cell >> 6] &= ~(std::uint64_t{1} << (v.cell & 63));
      }
    }
  }
  for (auto it = b.splits.rbegin(); it != b.splits.rend(); ++it) nodes_[it->node] = it->before;
  nodes_.resize(b.old_nodes);
  scratch_.resize(b.old_nodes);
  std::fill(scratch_.begin(), scratch_.end(), NodeScratch{});
  grids_.truncate(b.old_grids);
}

}  // namespace simlod::detail::cpu

// Declared in core/octree_backend.hpp.
namespace simlod::detail {

std::unique_ptr<OctreeBackend> make_cpu_backend(const OctreeConfig& config,
                                                const OctreeGeometry& geometry) {
  return std::make_unique<cpu::CpuBackend>(config, geometry);
}

}  // namespace simlod::detail
