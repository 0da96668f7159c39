// The visibility map's octree on CUDA (the CPU's is core/cpu/visibility/tree.cpp; the arithmetic
// of both is simlod/detail/visibility_tree.hpp): the points' bounds, their Morton codes at the
// height limit, a CUB radix sort of (code, index) pairs (stable, so ties keep the input order),
// then the nodes level by level: a node of depth d splits when it holds more than leaf_points
// points and d < height, and a point starts a child when its code's prefix at depth d + 1
// differs from the point before it. A scan numbers the children, so each level's nodes follow
// the previous level's in point order, as the CPU's breadth-first build numbers them. Then the
// leaves' geometry (a thread a leaf, its points in order) and the spheres bottom-up.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/upload.cuh"
#include "kernels/visibility/visibility_entry.hpp"
#include "simlod/detail/float_bits.hpp"
#include "simlod/detail/morton.hpp"
#include "simlod/detail/visibility_tree.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;
constexpr std::uint64_t kMaxBlocks = 4096;
constexpr std::uint32_t kNone = VisibilityNode::kNone;

#define SIMLOD_GRID_LOOP(i, n)                                                          \
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < (n); \
       i += std::uint64_t{gridDim.x} * blockDim.x)

/// A float's bits in an order that unsigned comparisons keep, and back.
__device__ std::uint32_t ordered(float v) {
  const std::uint32_t b = bits_from_float(v);
  return (b & 0x80000000u) != 0 ? ~b : b | 0x80000000u;
}
float unordered(std::uint32_t b) {
  return float_from_bits((b & 0x80000000u) != 0 ? b & 0x7FFFFFFFu : ~b);
}

/// bounds[0..2]: the lowest x, y, z (ordered bits); bounds[3..5]: the highest.
__global__ void bounds_kernel(const Point* __restrict__ points, std::uint64_t n,
                              std::uint32_t* bounds) {
  std::uint32_t lo[3] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}, hi[3] = {0, 0, 0};
  SIMLOD_GRID_LOOP(i, n) {
    const std::uint32_t c[3] = {ordered(points[i].x), ordered(points[i].y), ordered(points[i].z)};
    for (int a = 0; a < 3; ++a) {
      lo[a] = min(lo[a], c[a]);
      hi[a] = max(hi[a], c[a]);
    }
  }
  for (int a = 0; a < 3; ++a) {
    for (int o = 16; o > 0; o /= 2) {
      lo[a] = min(lo[a], __shfl_down_sync(0xFFFFFFFFu, lo[a], o));
      hi[a] = max(hi[a], __shfl_down_sync(0xFFFFFFFFu, hi[a], o));
    }
    if ((threadIdx.x & 31u) == 0) {
      atomicMin(&bounds[a], lo[a]);
      atomicMax(&bounds[3 + a], hi[a]);
    }
  }
}

__global__ void codes_kernel(const Point* __restrict__ points, std::uint64_t n, WalkFrame cube,
                             std::uint32_t cells, std::uint64_t* __restrict__ codes,
                             std::uint32_t* __restrict__ ids) {
  SIMLOD_GRID_LOOP(i, n) {
    const double c[3] = {points[i].x, points[i].y, points[i].z};
    std::uint32_t q[3];
    for (int a = 0; a < 3; ++a) q[a] = vis_cell(c[a], cube.origin[a], cube.edge, cells);
    codes[i] = morton_3d(q[0], q[1], q[2]);
    ids[i] = static_cast<std::uint32_t>(i);
  }
}

/// Per point of the sorted order: 1 when it starts a child of a splitting node of this level.
/// `node_of[p]`: the node of this level holding point p, or kNone once its node is a leaf.
__global__ void starts_kernel(const std::uint64_t* __restrict__ codes, std::uint64_t n,
                              const std::uint32_t* __restrict__ node_of,
                              const VisibilityNode* __restrict__ nodes, std::uint32_t leaf_points,
                              std::uint32_t shift, std::uint32_t* __restrict__ starts) {
  SIMLOD_GRID_LOOP(p, n) {
    const std::uint32_t id = node_of[p];
    bool start = false;
    if (id != kNone && nodes[id].points > leaf_points) {
      start = p == nodes[id].first_point || (codes[p] >> shift) != (codes[p - 1] >> shift);
    }
    starts[p] = start ? 1u : 0u;
  }
}

/// The children of this level: point p with starts[p] starts child first_id + rank[p] of the
/// node node_of[p] (which gets its first child and counts it).
__global__ void children_kernel(const std::uint64_t* __restrict__ codes, std::uint64_t n,
                                const std::uint32_t* __restrict__ starts,
                                const std::uint32_t* __restrict__ rank,
                                const std::uint32_t* __restrict__ node_of, VisibilityNode* nodes,
                                std::uint32_t first_id, std::uint32_t depth, std::uint32_t shift,
                                WalkFrame cube) {
  SIMLOD_GRID_LOOP(p, n) {
    if (starts[p] == 0) continue;
    const std::uint32_t parent = node_of[p];
    const std::uint32_t id = first_id + rank[p];
    const std::uint64_t prefix = codes[p] >> shift;
    VisibilityNode child;
    child.depth = depth;
    child.cell = {compact_bits_3d(prefix), compact_bits_3d(prefix >> 1),
                  compact_bits_3d(prefix >> 2)};
    child.parent = parent;
    child.first_point = static_cast<std::uint32_t>(p);
    node_centre(child, cube.origin, cube.edge);
    nodes[id] = child;
    if (p == nodes[parent].first_point) nodes[parent].first_child = id;
    atomicAdd(&nodes[parent].children, 1u);
  }
}

/// The points of this level's children [first_id, end_id): up to the next sibling's first point,
/// or the parent's end.
__global__ void extents_kernel(VisibilityNode* nodes, std::uint32_t first_id,
                               std::uint32_t end_id) {
  SIMLOD_GRID_LOOP(k, end_id - first_id) {
    VisibilityNode& child = nodes[first_id + k];
    const VisibilityNode& parent = nodes[child.parent];
    const bool sibling =
        first_id + k + 1 < end_id && nodes[first_id + k + 1].parent == child.parent;
    const std::uint32_t end =
        sibling ? nodes[first_id + k + 1].first_point : parent.first_point + parent.points;
    child.points = end - child.first_point;
  }
}

/// Each point's node on the next level: its child, or kNone when its node stays a leaf.
__global__ void descend_kernel(std::uint64_t n, const std::uint32_t* __restrict__ starts,
                               const std::uint32_t* __restrict__ rank, std::uint32_t* node_of,
                               const VisibilityNode* __restrict__ nodes, std::uint32_t leaf_points,
                               std::uint32_t first_id) {
  SIMLOD_GRID_LOOP(p, n) {
    const std::uint32_t id = node_of[p];
    if (id == kNone) continue;
    node_of[p] = nodes[id].points > leaf_points ? first_id + rank[p] + starts[p] - 1 : kNone;
  }
}

__global__ void leaf_flags_kernel(const VisibilityNode* __restrict__ nodes, std::uint64_t count,
                                  std::uint32_t* __restrict__ flags) {
  SIMLOD_GRID_LOOP(i, count) { flags[i] = nodes[i].children == 0 ? 1u : 0u; }
}

/// A thread per leaf: its number, geometry, sphere and points.
__global__ void leaves_kernel(VisibilityNode* nodes, std::uint64_t count,
                              const std::uint32_t* __restrict__ flags,
                              const std::uint32_t* __restrict__ leaf_rank,
                              const Point* __restrict__ points, const Normal* __restrict__ normals,
                              const std::uint32_t* __restrict__ order, LeafGeometry* geometry,
                              VisibilityLeaf* leaves, std::uint32_t* point_leaf) {
  SIMLOD_GRID_LOOP(i, count) {
    if (flags[i] == 0) continue;
    VisibilityNode& node = nodes[i];
    const std::uint32_t l = leaf_rank[i];
    node.leaf = l;
    const std::uint32_t* ids = order + node.first_point;
    const LeafGeometry g = leaf_geometry(points, normals, ids, node.points);
    geometry[l] = g;
    VisibilityLeaf leaf;
    leaf.node = static_cast<std::uint32_t>(i);
    leaf.centroid = {g.centroid.x, g.centroid.y, g.centroid.z};
    leaf.normal = {g.normal.x, g.normal.y, g.normal.z};
    leaf.delta = g.delta;
    leaves[l] = leaf;
    node.radius =
        leaf_radius(points, ids, node.points, {node.centre[0], node.centre[1], node.centre[2]});
    for (std::uint32_t k = 0; k < node.points; ++k) point_leaf[ids[k]] = l;
  }
}

/// The inner nodes [first_id, end_id) of one level: their spheres enclose their children's.
__global__ void inner_kernel(VisibilityNode* nodes, std::uint32_t first_id, std::uint32_t end_id) {
  SIMLOD_GRID_LOOP(k, end_id - first_id) {
    VisibilityNode& node = nodes[first_id + k];
    if (node.children > 0) node.radius = inner_radius(nodes, node);
  }
}

unsigned grid(std::uint64_t n) {
  return blocks_for(std::max<std::uint64_t>(n, 1), kBlock, kMaxBlocks);
}

/// Exclusive sum of in[0, n) into out (CUB), its temporary storage in `temp`.
void exclusive_sum(const std::uint32_t* in, std::uint32_t* out, std::uint64_t n, DeviceMemory& temp,
                   std::size_t& temp_bytes) {
  std::size_t bytes = 0;
  SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n));
  if (bytes > temp_bytes) {
    temp = make_device(bytes, "the visibility octree's scan");
    temp_bytes = bytes;
  }
  SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, in, out, n));
}

template <class T>
std::vector<T> download(const void* from, std::uint64_t count) {
  std::vector<T> out(count);
  if (count > 0) {
    SIMLOD_CUDA_CHECK(cudaMemcpy(out.data(), from, count * sizeof(T), cudaMemcpyDeviceToHost));
  }
  return out;
}

/// The last entries of an exclusive scan and its input: the total.
std::uint32_t total_of(const std::uint32_t* scan, const std::uint32_t* in, std::uint64_t n) {
  std::uint32_t last[2] = {0, 0};
  SIMLOD_CUDA_CHECK(cudaMemcpy(&last[0], scan + n - 1, 4, cudaMemcpyDeviceToHost));
  SIMLOD_CUDA_CHECK(cudaMemcpy(&last[1], in + n - 1, 4, cudaMemcpyDeviceToHost));
  return last[0] + last[1];
}

}  // namespace

cpu::VisTree build_vis_tree(std::span<const Point> points, std::span<const Normal> normals,
                            const VisibilityConfig& config) {
  cpu::VisTree t;
  const std::uint64_t n = points.size();
  const std::uint32_t h = config.height;
  const DeviceMemory d_points = upload(points, "the visibility points");
  const DeviceMemory d_normals = upload(normals, "the visibility normals");
  const auto* pts = static_cast<const Point*>(d_points.get());

  // The cube.
  DeviceMemory d_bounds = make_device(6 * 4, "the points' bounds");
  const std::uint32_t init[6] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 0, 0};
  SIMLOD_CUDA_CHECK(cudaMemcpy(d_bounds.get(), init, sizeof(init), cudaMemcpyHostToDevice));
  bounds_kernel<<<grid(n), kBlock>>>(pts, n, static_cast<std::uint32_t*>(d_bounds.get()));
  SIMLOD_CUDA_CHECK_LAUNCH("visibility bounds_kernel");
  std::uint32_t bounds[6];
  SIMLOD_CUDA_CHECK(cudaMemcpy(bounds, d_bounds.get(), sizeof(bounds), cudaMemcpyDeviceToHost));
  double lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = unordered(bounds[a]);
    hi[a] = unordered(bounds[3 + a]);
  }
  cpu::set_cube(t, lo, hi);
  const WalkFrame cube = t.frame();

  // Points in Morton order (ties by index: the radix sort is stable).
  const std::uint32_t cells = 1u << h;
  DeviceMemory codes = make_device(2 * n * 8, "the points' Morton codes");
  DeviceMemory ids = make_device(2 * n * 4, "the points' order");
  auto* code_a = static_cast<std::uint64_t*>(codes.get());
  auto* id_a = static_cast<std::uint32_t*>(ids.get());
  codes_kernel<<<grid(n), kBlock>>>(pts, n, cube, cells, code_a, id_a);
  SIMLOD_CUDA_CHECK_LAUNCH("visibility codes_kernel");
  cub::DoubleBuffer<std::uint64_t> sorted_codes(code_a, code_a + n);
  cub::DoubleBuffer<std::uint32_t> sorted_ids(id_a, id_a + n);
  std::size_t sort_bytes = 0;
  SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, sorted_codes, sorted_ids,
                                                    n, 0, static_cast<int>(3 * h)));
  DeviceMemory temp = make_device(std::max<std::size_t>(sort_bytes, 1), "the points' sort");
  std::size_t temp_bytes = sort_bytes;
  SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), sort_bytes, sorted_codes,
                                                    sorted_ids, n, 0, static_cast<int>(3 * h)));
  const std::uint64_t* d_codes = sorted_codes.Current();
  const std::uint32_t* d_order = sorted_ids.Current();

  // The nodes level by level; room grows by doubling.
  std::uint64_t room = std::max<std::uint64_t>(1024, n / 2);
  DeviceMemory nodes = make_device(room * sizeof(VisibilityNode), "the visibility octree");
  VisibilityNode root;
  root.points = static_cast<std::uint32_t>(n);
  node_centre(root, cube.origin, cube.edge);
  SIMLOD_CUDA_CHECK(cudaMemcpy(nodes.get(), &root, sizeof(root), cudaMemcpyHostToDevice));
  DeviceMemory work = make_device(3 * n * 4, "the octree's per-point state");
  auto* node_of = static_cast<std::uint32_t*>(work.get());
  auto* starts = node_of + n;
  auto* rank = starts + n;
  SIMLOD_CUDA_CHECK(cudaMemset(node_of, 0, n * 4));
  std::vector<std::uint32_t> level_begin{0, 1};  // level d: ids [level_begin[d], [d + 1])
  for (std::uint32_t d = 0; d < h; ++d) {
    auto* d_nodes = static_cast<VisibilityNode*>(nodes.get());
    const std::uint32_t shift = 3 * (h - d - 1);
    starts_kernel<<<grid(n), kBlock>>>(d_codes, n, node_of, d_nodes, config.leaf_points, shift,
                                       starts);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility starts_kernel");
    exclusive_sum(starts, rank, n, temp, temp_bytes);
    const std::uint32_t children = total_of(rank, starts, n);
    if (children == 0) break;
    const std::uint32_t first_id = level_begin.back();
    if (first_id + std::uint64_t{children} > room) {
      const std::uint64_t grown = std::max(room * 2, first_id + std::uint64_t{children});
      DeviceMemory bigger = make_device(grown * sizeof(VisibilityNode), "the visibility octree");
      SIMLOD_CUDA_CHECK(cudaMemcpy(bigger.get(), nodes.get(), first_id * sizeof(VisibilityNode),
                                   cudaMemcpyDeviceToDevice));
      nodes = std::move(bigger);
      room = grown;
      d_nodes = static_cast<VisibilityNode*>(nodes.get());
    }
    children_kernel<<<grid(n), kBlock>>>(d_codes, n, starts, rank, node_of, d_nodes, first_id,
                                         d + 1, shift, cube);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility children_kernel");
    extents_kernel<<<grid(children), kBlock>>>(d_nodes, first_id, first_id + children);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility extents_kernel");
    descend_kernel<<<grid(n), kBlock>>>(n, starts, rank, node_of, d_nodes, config.leaf_points,
                                        first_id);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility descend_kernel");
    level_begin.push_back(first_id + children);
  }
  const std::uint32_t count = level_begin.back();
  auto* d_nodes = static_cast<VisibilityNode*>(nodes.get());

  // Leaves in node order, their geometry; then the inner spheres, deepest level first.
  DeviceMemory flags = make_device(2 * std::uint64_t{count} * 4, "the octree's leaf flags");
  auto* leaf_flag = static_cast<std::uint32_t*>(flags.get());
  auto* leaf_rank = leaf_flag + count;
  leaf_flags_kernel<<<grid(count), kBlock>>>(d_nodes, count, leaf_flag);
  SIMLOD_CUDA_CHECK_LAUNCH("visibility leaf_flags_kernel");
  exclusive_sum(leaf_flag, leaf_rank, count, temp, temp_bytes);
  const std::uint32_t leaf_count = total_of(leaf_rank, leaf_flag, count);
  DeviceMemory geometry = make_device(leaf_count * sizeof(LeafGeometry), "the leaves' geometry");
  DeviceMemory leaves = make_device(leaf_count * sizeof(VisibilityLeaf), "the leaves");
  DeviceMemory point_leaf = make_device(n * 4, "the points' leaves");
  leaves_kernel<<<grid(count), kBlock>>>(
      d_nodes, count, leaf_flag, leaf_rank, pts, static_cast<const Normal*>(d_normals.get()),
      d_order, static_cast<LeafGeometry*>(geometry.get()),
      static_cast<VisibilityLeaf*>(leaves.get()), static_cast<std::uint32_t*>(point_leaf.get()));
  SIMLOD_CUDA_CHECK_LAUNCH("visibility leaves_kernel");
  for (std::size_t l = level_begin.size() - 1; l-- > 0;) {
    inner_kernel<<<grid(level_begin[l + 1] - level_begin[l]), kBlock>>>(d_nodes, level_begin[l],
                                                                        level_begin[l + 1]);
    SIMLOD_CUDA_CHECK_LAUNCH("visibility inner_kernel");
  }
  t.nodes = download<VisibilityNode>(d_nodes, count);
  t.leaves = download<VisibilityLeaf>(leaves.get(), leaf_count);
  t.geometry = download<LeafGeometry>(geometry.get(), leaf_count);
  t.order = download<std::uint32_t>(d_order, n);
  t.point_leaf = download<std::uint32_t>(point_leaf.get(), n);
  t.depth = static_cast<std::uint32_t>(level_begin.size() - 2);
  cpu::make_walk(t);
  return t;
}

}  // namespace simlod::detail::cuda
