// The CPU tree store: the octree as data (node records, chunk memory and its pool, occupancy
// grids, running totals) with nothing of how it is built or drawn. Builders write it
// (core/cpu/update/), consumers read it through a ReadView (core/cpu/render/, snapshot(),
// stats(), the node reader). Layouts: core/cpu/tree/node.hpp, chunk_store.hpp, grid_store.hpp.
//
// Attribute channels (OctreeConfig::channels) live in the chunks: record (chunk, slot) beside
// sample (chunk, slot) (chunk_store.hpp), taken, pooled and moved with it, so that a tree
// without channels pays nothing and the builders only copy one more record per sample.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/cpu/tree/chunk_store.hpp"
#include "core/cpu/tree/grid_store.hpp"
#include "core/cpu/tree/node.hpp"
#include "core/cpu/tree/voxel_index.hpp"
#include "core/octree_store.hpp"
#include "core/thread_pool.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/detail/point_codec.hpp"
#include "simlod/detail/voxel_codec.hpp"

namespace simlod::detail::cpu {

/// What consumers see of a store: trivially copyable, valid until the store is next written.
struct ReadView {
  static constexpr std::uint32_t kVoxelRun = 256;  ///< decoded voxels per call of for_each_run

  const CpuNode* nodes = nullptr;
  std::size_t node_count = 0;
  const ChunkStore* chunks = nullptr;
  const OctreeGeometry* geometry = nullptr;

  /// Calls fn(const Point*, const std::byte* records, std::size_t) for each run of node i's
  /// samples, in list order; records: their channel records (nullptr without channels). An
  /// inner node's voxels and quantised points arrive decoded (runs of at most kVoxelRun, in a
  /// buffer of the call).
  template <class Fn>
  void for_each_run(std::size_t i, Fn fn) const {
    const CpuNode& n = nodes[i];
    std::uint64_t left = n.count;
    const std::uint32_t bytes = chunks->record_bytes();
    const bool leaf = n.leaf();
    if (leaf && !chunks->point_layout().quantized) {
      for (std::uint32_t c = n.head; left > 0; c = chunks->next(c)) {
        const std::uint64_t k = left < chunks->capacity() ? left : chunks->capacity();
        fn(reinterpret_cast<const Point*>(chunks->bytes(c)),
           bytes != 0 ? chunks->records(c) : nullptr, static_cast<std::size_t>(k));
        left -= k;
      }
      return;
    }
    const std::uint32_t cap = chunks->capacity_of(leaf);
    Point run[kVoxelRun];
    for (std::uint32_t c = n.head; left > 0; c = chunks->next(c)) {
      const std::uint32_t k = static_cast<std::uint32_t>(left < cap ? left : cap);
      const std::byte* base = chunks->bytes(c);
      const std::byte* records = leaf ? chunks->records(c) : chunks->voxel_records(c);
      for (std::uint32_t at = 0; at < k; at += kVoxelRun) {
        const std::uint32_t m = k - at < kVoxelRun ? k - at : kVoxelRun;
        for (std::uint32_t j = 0; j < m; ++j) {
          run[j] = leaf ? point_at(n, base, at + j).point : voxel_at(n, base, at + j);
        }
        fn(static_cast<const Point*>(run), bytes != 0 ? records + std::size_t{at} * bytes : nullptr,
           static_cast<std::size_t>(m));
      }
      left -= k;
    }
  }
  /// Calls fn(const Point&, const QuantPoint&, const std::byte* record) for every point of leaf
  /// i, in list order: the point as it reads back and its quantised position (as stored with
  /// Quantized16, quantize() of it with Float32); record: nullptr without channels.
  template <class Fn>
  void for_each_point(std::size_t i, Fn fn) const {
    const CpuNode& n = nodes[i];
    std::uint64_t left = n.count;
    const std::uint32_t bytes = chunks->record_bytes();
    const std::uint32_t cap = chunks->capacity();
    for (std::uint32_t c = n.head; left > 0; c = chunks->next(c)) {
      const std::uint32_t k = static_cast<std::uint32_t>(left < cap ? left : cap);
      const std::byte* base = chunks->bytes(c);
      const std::byte* records = chunks->records(c);
      for (std::uint32_t j = 0; j < k; ++j) {
        const LeafSample s = point_at(n, base, j);
        fn(s.point, s.q, bytes != 0 ? records + std::size_t{j} * bytes : nullptr);
      }
      left -= k;
    }
  }
  /// Point `slot` of chunk memory `base` of leaf n, with its quantised position.
  [[nodiscard]] LeafSample point_at(const CpuNode& n, const std::byte* base,
                                    std::uint32_t slot) const {
    return load_point(base, chunks->point_layout(), slot, n.place(), geometry->quant_scale,
                      geometry->edge);
  }
  /// The sample of voxel `slot` of chunk memory `base` of inner node n.
  [[nodiscard]] Point voxel_at(const CpuNode& n, const std::byte* base, std::uint32_t slot) const {
    return decode_voxel(base, chunks->voxel_layout(), slot, n.level, n.x, n.y, n.z,
                        geometry->grid_bits, geometry->edge);
  }
  /// Calls fn(const Point*, std::size_t) for each run of node i's samples, in list order.
  template <class Fn>
  void for_each_span(std::size_t i, Fn fn) const {
    for_each_run(i, [&](const Point* p, const std::byte*, std::size_t k) { fn(p, k); });
  }
};

struct TreeStore {
  /// An empty tree (the root, a leaf without samples). Throws CapacityError when
  /// config.memory_bytes cannot even hold the root.
  TreeStore(const OctreeConfig& config, const OctreeGeometry& geometry);

  /// Bytes charged to the reserve: allocated chunks (pooled and brick pages included), slot
  /// tables, nodes and the voxel index.
  [[nodiscard]] std::uint64_t charged() const;
  /// Chunks that `samples` points (leaf) or voxels (inner node) take.
  [[nodiscard]] std::uint64_t chunks_for(std::uint64_t samples, bool leaf) const;
  [[nodiscard]] ReadView read() const { return {nodes.data(), nodes.size(), &chunks, &geometry}; }

  OctreeConfig config;
  OctreeGeometry geometry;
  std::uint64_t limit;  ///< memory_bytes; 0 = no limit
  std::vector<CpuNode> nodes;
  ChunkStore chunks;
  GridStore grids;
  /// Filter accumulators of the voxels (Sampling::Random, Average); empty otherwise.
  VoxelIndex index;
  /// Sampling::Weighted: batches went in since the voxel colours were last computed, so they
  /// are first-come colours until finalize_colours() (core/cpu/update/update.hpp).
  bool stale_colours = false;
  // Running totals, kept by the builders.
  std::uint64_t points = 0, voxels = 0;
  std::uint64_t point_chunks = 0, voxel_chunks = 0;
  std::uint32_t depth = 0;
};

/// Octree::compact(): moves every node's samples, in order, into a new chunk store of
/// `chunk_capacity` (chunks handed out node by node in id order, each node's list consecutive
/// and full but for its last chunk) and drops what only further batches need: the occupancy
/// grids, the voxel index and the chunk pool. config.chunk_capacity becomes `chunk_capacity`.
/// The samples are copied on `pool`, a node per task. Throws CapacityError (memory_bytes or
/// host memory) with the store unchanged (core/cpu/tree/compact.cpp).
void compact(TreeStore& store, PoolView& pool, std::uint32_t chunk_capacity);

/// From the running totals; does not walk the tree.
[[nodiscard]] OctreeStats stats(const TreeStore& store);
/// Copies the whole tree (node ids are snapshot indices; root = 0).
[[nodiscard]] NodeSnapshot snapshot(const TreeStore& store);
/// The node reader (core/octree_store.hpp): node records without samples, and one node's
/// samples.
void for_each_node(const TreeStore& store, const NodeVisitor& visit);
/// `attributes` (optional): set to the channels of the samples copied.
std::uint64_t read_node(const TreeStore& store, std::uint32_t id, std::uint64_t first,
                        std::span<Point> out, PointAttributes* attributes = nullptr);

}  // namespace simlod::detail::cpu
