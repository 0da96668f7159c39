// estimate_normals on CUDA (core/normals.cpp calls it): the k nearest neighbours of every point
// on the CPU's grid (core/cpu/visibility/knn_grid.hpp: a CUB radix sort of (cell key, index),
// then a thread per point searching ring by ring), a thread per point for its PCA normal
// (simlod/detail/pca_normal.hpp), then the propagated orientation (orient.cu). All give the
// CPU's results bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <vector>

#include "core/cpu/visibility/knn.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/upload.cuh"
#include "kernels/visibility/orient.cuh"
#include "kernels/visibility/visibility_entry.hpp"
#include "simlod/detail/pca_normal.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 128;
constexpr std::uint64_t kMaxBlocks = 4096;
/// The largest k estimate_normals takes.
constexpr std::uint32_t kMaxNeighbours = 128;

__global__ void keys_kernel(const Point* __restrict__ points, std::uint64_t n, KnnGrid grid,
                            std::uint64_t* __restrict__ keys, std::uint32_t* __restrict__ ids) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    keys[i] = grid.key_of(points[i]);
    ids[i] = static_cast<std::uint32_t>(i);
  }
}

__global__ void __launch_bounds__(kBlock)
    knn_kernel(const Point* __restrict__ points, std::uint64_t n, KnnGrid grid,
               const std::uint64_t* __restrict__ keys, const std::uint32_t* __restrict__ ids,
               std::uint32_t k, std::uint32_t* __restrict__ out, Normal* __restrict__ normals) {
  KnnCandidate heap[kMaxNeighbours];
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    std::uint32_t* mine = out + i * k;
    knn_search(grid, points, keys, ids, n, static_cast<std::uint32_t>(i), k, heap, mine);
    const Dir3 d = pca_normal(points, mine, k);
    normals[i] = {static_cast<float>(d.x), static_cast<float>(d.y), static_cast<float>(d.z)};
  }
}

}  // namespace

std::vector<Normal> pca_normals(std::span<const Point> points, std::uint32_t k,
                                const SeedRule* propagate) {
  const std::uint64_t n = points.size();
  const KnnGrid grid = cpu::knn_grid_of(points, k);
  const DeviceMemory d_points = upload(points, "the normals' points");
  const auto* pts = static_cast<const Point*>(d_points.get());
  DeviceMemory keys = make_device(2 * n * 8, "the points' cell keys");
  DeviceMemory ids = make_device(2 * n * 4, "the points' cell order");
  auto* key_a = static_cast<std::uint64_t*>(keys.get());
  auto* id_a = static_cast<std::uint32_t*>(ids.get());
  keys_kernel<<<blocks_for(n, kBlock, kMaxBlocks), kBlock>>>(pts, n, grid, key_a, id_a);
  SIMLOD_CUDA_CHECK_LAUNCH("normals keys_kernel");
  cub::DoubleBuffer<std::uint64_t> sorted_keys(key_a, key_a + n);
  cub::DoubleBuffer<std::uint32_t> sorted_ids(id_a, id_a + n);
  std::size_t bytes = 0;
  SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, sorted_keys, sorted_ids, n));
  DeviceMemory temp = make_device(std::max<std::size_t>(bytes, 1), "the normals' sort");
  SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, sorted_keys, sorted_ids, n));
  DeviceMemory d_knn = make_device(n * k * 4, "the points' neighbours");
  DeviceMemory d_normals = make_device(n * sizeof(Normal), "the normals");
  knn_kernel<<<blocks_for(n, kBlock, kMaxBlocks), kBlock>>>(
      pts, n, grid, sorted_keys.Current(), sorted_ids.Current(), k,
      static_cast<std::uint32_t*>(d_knn.get()), static_cast<Normal*>(d_normals.get()));
  SIMLOD_CUDA_CHECK_LAUNCH("normals knn_kernel");
  if (propagate != nullptr) {
    orient_normals(pts, static_cast<const std::uint32_t*>(d_knn.get()), n, k, *propagate,
                   static_cast<Normal*>(d_normals.get()));
  }
  std::vector<Normal> normals(n);
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(normals.data(), d_normals.get(), n * sizeof(Normal), cudaMemcpyDeviceToHost));
  return normals;
}

}  // namespace simlod::detail::cuda
