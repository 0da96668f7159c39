// The CUDA classifier: one thread per point against the DTM raster (ground_math.hpp's rule,
// compiled without fused multiply-adds so that it decides as the CPU does).
#include <cuda_runtime.h>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/kernel_timer.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/terrain/device_points.cuh"
#include "kernels/terrain/terrain_entry.hpp"
#include "simlod/detail/ground_math.hpp"

namespace simlod::detail::cuda {
namespace {

__global__ void classify_kernel(const Point* points, const std::uint8_t* skip, std::uint64_t n,
                                RasterView dtm, double tolerance, std::uint8_t* out) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const Point p = points[i];
  out[i] = (skip == nullptr || skip[i] == 0) && is_ground(dtm, p.x, p.y, p.z, tolerance) ? 1 : 0;
}

__global__ void sums_kernel(const Point* points, const std::uint8_t* ground, std::uint64_t n,
                            RasterView dtm, unsigned long long* sums, unsigned* counts) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n || ground[i] == 0) return;
  const Point p = points[i];
  const std::uint64_t c = raster_cell(dtm, p.x, p.y);
  if (c == std::uint64_t{dtm.width} * dtm.height) return;
  // Two's complement: an unsigned add of the signed value sums signed values.
  atomicAdd(&sums[c], static_cast<unsigned long long>(height_milli(p.z)));
  atomicAdd(&counts[c], 1u);
}

}  // namespace

void ground_sums(const DeviceCloud& cloud, std::span<const std::uint8_t> ground,
                 const RasterView& dtm, std::span<std::int64_t> sums,
                 std::span<std::uint32_t> counts, double& ms) {
  StreamHandle stream = make_stream();
  cudaStream_t s = stream.get();
  const std::size_t cells = sums.size();
  DeviceMemory d_sums = make_device(cells * sizeof(std::int64_t), "the DTM's ground sums");
  DeviceMemory d_counts = make_device(cells * sizeof(std::uint32_t), "the DTM's ground counts");
  if (!ground.empty()) {  // else the last classification's flags, already there
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(cloud.flags.get(), ground.data(), cloud.n, cudaMemcpyHostToDevice, s));
  }
  KernelTimer t(s);
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(d_sums.get(), 0, cells * sizeof(std::int64_t), s));
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(d_counts.get(), 0, cells * sizeof(std::uint32_t), s));
  constexpr int kBlock = 256;
  sums_kernel<<<blocks_for(cloud.n, kBlock), kBlock, 0, s>>>(
      cloud.d.points(), static_cast<const std::uint8_t*>(cloud.flags.get()), cloud.n, dtm,
      static_cast<unsigned long long*>(d_sums.get()), static_cast<unsigned*>(d_counts.get()));
  SIMLOD_CUDA_CHECK_LAUNCH("sums_kernel");
  ms = t.ms();
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(sums.data(), d_sums.get(), cells * sizeof(std::int64_t),
                                    cudaMemcpyDeviceToHost, s));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(counts.data(), d_counts.get(), cells * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, s));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
}

void classify(const DeviceCloud& cloud, const RasterView& dtm, double tolerance,
              std::span<std::uint8_t> out, double& ms) {
  StreamHandle stream = make_stream();
  cudaStream_t s = stream.get();
  const std::size_t cells = static_cast<std::size_t>(dtm.width) * dtm.height;
  DeviceMemory values = make_device(cells * sizeof(float), "the DTM raster");
  SIMLOD_CUDA_CHECK(
      cudaMemcpyAsync(values.get(), dtm.values, cells * sizeof(float), cudaMemcpyHostToDevice, s));
  RasterView view = dtm;
  view.values = static_cast<const float*>(values.get());
  KernelTimer t(s);
  constexpr int kBlock = 256;
  classify_kernel<<<blocks_for(cloud.n, kBlock), kBlock, 0, s>>>(
      cloud.d.points(), cloud.d.skip(), cloud.n, view, tolerance,
      static_cast<std::uint8_t*>(cloud.flags.get()));
  SIMLOD_CUDA_CHECK_LAUNCH("classify_kernel");
  ms = t.ms();
  if (!out.empty()) {
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(out.data(), cloud.flags.get(), cloud.n, cudaMemcpyDeviceToHost, s));
  }
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace simlod::detail::cuda
