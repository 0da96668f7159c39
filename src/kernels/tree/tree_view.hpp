// TreeView: the CUDA tree store as its kernels receive it, by value (the store owns the memory;
// the view is a bundle of device pointers and parameters, trivially copyable), with the
// per-node and per-chunk address arithmetic. Consumers (the renderer) read through it; a
// builder's passes get it with their scratch beside it (kernels/update/batch_view.hpp).
// SIMLOD_HD, so that the sequential host model of the tests runs the same arithmetic on a host
// arena.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/octree_store.hpp"
#include "kernels/common/device_ops.hpp"
#include "kernels/common/launch.hpp"
#include "kernels/tree/arena_layout.hpp"
#include "kernels/tree/device_layout.hpp"
#include "kernels/update/capacity.hpp"
#include "simlod/detail/occupancy_codec.hpp"
#include "simlod/detail/octree_math.hpp"
#include "simlod/detail/point_codec.hpp"
#include "simlod/detail/voxel_codec.hpp"
#include "simlod/point.hpp"

namespace simlod::detail::cuda {

/// Copies a channel record in the widest words its size allows (records are a multiple of 4
/// bytes, 8 with GPS time, and lie at multiples of their size from 16-byte aligned bases).
template <class Word>
SIMLOD_HD void copy_words(std::byte* to, const std::byte* from, std::uint32_t bytes) {
  auto* t = reinterpret_cast<Word*>(to);
  const auto* f = reinterpret_cast<const Word*>(from);
  for (std::uint32_t k = 0; k < bytes / sizeof(Word); ++k) t[k] = f[k];
}
SIMLOD_HD void copy_record(std::byte* to, const std::byte* from, std::uint32_t bytes) {
  if (bytes % 16 == 0) return copy_words<uint4>(to, from, bytes);
  if (bytes % 8 == 0) return copy_words<uint2>(to, from, bytes);
  copy_words<std::uint32_t>(to, from, bytes);
}

struct TreeView {
  Control* d_control;
  DeviceNode* d_nodes;
  NodeLink* d_links;
  std::uint32_t* d_pool;  ///< chunk pool, Control::pool_size entries
  std::byte* d_chunks;    ///< chunk 0
  std::byte* d_grid_end;  ///< end of grid 0

  PlanParams params;  ///< chunk_capacity: points per leaf chunk (leaf_layout.capacity)
  float quant_scale;
  float edge;
  std::uint64_t chunk_bytes;
  std::uint64_t dense_grid_bytes;  ///< of a dense grid (the bulk builder's, dense_words())
  OccupancyLayout occupancy;
  std::uint32_t record_bytes;  ///< channel record per sample; 0 = no channels
  VoxelLayout voxels;          ///< an inner node's chunk (detail/voxel_codec.hpp)
  PointLayout leaf_layout;     ///< a leaf's chunk (detail/point_codec.hpp)
  /// Every node's list is consecutive chunk ids, head .. tail (a compacted store,
  /// ArenaLayout::compacted), so readers may step through it without reading the links.
  bool consecutive_chunks;

  /// The link of a node, for walks (links change only in the split decision pass).
  SIMLOD_HD NodeLink link(std::uint32_t node) const {
    const uint2 v = load_readonly(reinterpret_cast<const uint2*>(d_links + node));
    return NodeLink{v.x, v.y};
  }

  /// The chunk's first byte.
  SIMLOD_HD std::byte* chunk_bytes_of(std::uint32_t chunk) const {
    return d_chunks + chunk * chunk_bytes;
  }

  /// The points of a leaf's chunk (PointEncoding::Float32; leaf_point() reads either).
  SIMLOD_HD Point* chunk_data(std::uint32_t chunk) const {
    return reinterpret_cast<Point*>(chunk_bytes_of(chunk));
  }

  /// Point `slot` of chunk `chunk` of leaf n, with its quantised position (Float32: a 16-byte
  /// read-only load and quantize(); Quantized16: decoded, detail/point_codec.hpp).
  SIMLOD_HD LeafSample leaf_point(std::uint32_t chunk, std::uint32_t slot,
                                  const DeviceNode& n) const {
    if (!leaf_layout.quantized) {
      const uint4 v = load_readonly(reinterpret_cast<const uint4*>(chunk_data(chunk) + slot));
      const Point p{float_from_bits(v.x), float_from_bits(v.y), float_from_bits(v.z), v.w};
      return {p, quantize(p, quant_scale)};
    }
    return load_point(chunk_bytes_of(chunk), leaf_layout, slot, LeafPlace{n.level, n.x, n.y, n.z},
                      quant_scale, edge);
  }

  /// Writes point `slot` of chunk `chunk` of a leaf at `level`: p (Float32, one 16-byte store)
  /// or the codes of q, rounded to the leaf, and p's colour (Quantized16).
  SIMLOD_HD void put_point(std::uint32_t chunk, std::uint32_t slot, const Point& p,
                           const QuantPoint& q, std::uint32_t level) const {
    if (!leaf_layout.quantized) {
      *reinterpret_cast<uint4*>(chunk_data(chunk) + slot) =
          make_uint4(bits_from_float(p.x), bits_from_float(p.y), bits_from_float(p.z), p.rgba);
      return;
    }
    store_point(chunk_bytes_of(chunk), leaf_layout, slot, p, q, level);
  }

  SIMLOD_HD std::uint32_t* chunk_next(std::uint32_t chunk) const {
    return reinterpret_cast<std::uint32_t*>(d_chunks + (chunk + std::uint64_t{1}) * chunk_bytes -
                                            16);
  }

  /// The channel records of a leaf's chunk (record k beside point k; record_bytes > 0).
  SIMLOD_HD std::byte* chunk_records(std::uint32_t chunk) const {
    return chunk_bytes_of(chunk) + leaf_layout.records_offset;
  }

  /// The channel records of an inner node's chunk (record k beside voxel k).
  SIMLOD_HD std::byte* voxel_records(std::uint32_t chunk) const {
    return chunk_bytes_of(chunk) + voxels.records_offset;
  }

  /// Samples per chunk of a leaf (points) or an inner node (voxels).
  SIMLOD_HD std::uint32_t capacity_of(bool leaf) const {
    return leaf ? params.chunk_capacity : voxels.capacity;
  }

  /// The channel record of the voxel whose colour word is `word` (record_bytes > 0).
  SIMLOD_HD std::byte* voxel_record(const std::uint32_t* word) const {
    const auto at = static_cast<std::uint64_t>(reinterpret_cast<const std::byte*>(word) - d_chunks);
    return voxel_records(static_cast<std::uint32_t>(at / chunk_bytes)) +
           (at % chunk_bytes) / 4 * record_bytes;
  }

  /// The slot table of grid `grid` (detail/occupancy_codec.hpp).
  SIMLOD_HD std::uint32_t* grid_table(std::uint32_t grid) const {
    return reinterpret_cast<std::uint32_t*>(d_grid_end -
                                            (grid + std::uint64_t{1}) * occupancy.table_bytes);
  }

  /// The words of the brick at 64-byte unit `unit` (a slot's value).
  SIMLOD_HD std::uint32_t* brick_words(std::uint32_t unit) const {
    return reinterpret_cast<std::uint32_t*>(d_chunks + std::uint64_t{unit} * kBrickBytes);
  }

  /// The unit of brick k of the page in chunk `chunk`.
  SIMLOD_HD std::uint32_t brick_unit(std::uint32_t chunk, std::uint32_t k) const {
    const std::uint64_t at = chunk * chunk_bytes;
    return static_cast<std::uint32_t>((at + page_brick_offset(at)) / kBrickBytes + k);
  }

  /// The chunk of page `page` of bricks while a batch claims bricks (the tree held `bricks`
  /// before it, and chunk_top chunks).
  SIMLOD_HD std::uint32_t page_chunk(std::uint32_t page, std::uint32_t bricks,
                                     std::uint32_t brick_page, std::uint32_t chunk_top) const {
    const auto before = static_cast<std::uint32_t>(brick_pages(bricks, occupancy));
    return page < before ? brick_page : chunk_top + (page - before);
  }

  /// Dense grid `rank` of the bulk builder (2^(3 * grid_bits) bits in uint32 words, bit
  /// cell % 32 of word cell / 32), below the arena's end while it voxelizes.
  SIMLOD_HD std::uint32_t* dense_words(std::uint32_t rank) const {
    return reinterpret_cast<std::uint32_t*>(d_grid_end -
                                            (rank + std::uint64_t{1}) * dense_grid_bytes);
  }

  /// The chunk handed out as ordinal `o` of this batch: the pool's top first (LIFO, so the
  /// most recently freed chunks, likely still in L2, are reused first), then fresh chunks.
  SIMLOD_HD std::uint32_t chunk_of_ordinal(std::uint32_t o, std::uint32_t pool_size,
                                           std::uint32_t chunk_top) const {
    return o < pool_size ? d_pool[pool_size - 1 - o] : chunk_top + (o - pool_size);
  }

  /// Walks from the root to the leaf containing q.
  SIMLOD_HD std::uint32_t find_leaf(const QuantPoint& q) const {
    std::uint32_t node = 0;
    for (std::uint32_t level = 0;; ++level) {
      const std::uint32_t child = link(node).first_child;
      if (child == kNil) return node;
      node = child + child_octant(q, level);
    }
  }

  /// Calls fn(node, level, link) for every inner node on q's path from the root, root first.
  template <class Fn>
  SIMLOD_HD void for_each_inner(const QuantPoint& q, Fn&& fn) const {
    std::uint32_t node = 0;
    for (std::uint32_t level = 0;; ++level) {
      const NodeLink l = link(node);
      if (l.first_child == kNil) return;
      fn(node, level, l);
      node = l.first_child + child_octant(q, level);
    }
  }

  SIMLOD_HD void flag(std::uint32_t bit) const { (void)atomic_or(&d_control->overflow, bit); }
};

static_assert(std::is_trivially_copyable_v<TreeView>);

/// The view of an arena laid out by `layout` at `arena`.
inline TreeView make_tree_view(std::byte* arena, const ArenaLayout& layout,
                               const OctreeConfig& config, const OctreeGeometry& geometry) {
  TreeView v{};
  v.d_control = reinterpret_cast<Control*>(arena);
  v.d_nodes = reinterpret_cast<DeviceNode*>(arena + layout.nodes);
  v.d_links = reinterpret_cast<NodeLink*>(arena + layout.links);
  v.d_pool = reinterpret_cast<std::uint32_t*>(arena + layout.pool);
  v.d_chunks = arena + layout.dynamic_begin;
  v.d_grid_end = arena + layout.dynamic_end;
  v.params = PlanParams{config.max_points_per_leaf, layout.points.capacity, geometry.max_depth,
                        geometry.grid_bits};
  v.quant_scale = geometry.quant_scale;
  v.edge = geometry.edge;
  v.chunk_bytes = layout.chunk_bytes;
  v.dense_grid_bytes = layout.dense_grid_bytes;
  v.occupancy = layout.occupancy;
  v.record_bytes = layout.record_bytes;
  v.voxels = layout.voxels;
  v.leaf_layout = layout.points;
  v.consecutive_chunks = layout.compacted;
  return v;
}

/// Record and link of the root of an empty tree (a leaf at level 0 without samples).
inline constexpr DeviceNode kRootNode{0, 0, 0, 0, 0, 0, kNil, kNil};
inline constexpr NodeLink kRootLink{kNil, kNil};

}  // namespace simlod::detail::cuda
