// The CUDA executor of the seed search (core/terrain_plan.hpp): one thread per point for the
// bounds, index and gap passes, one thread per window, one per cell. In the index and gap
// passes the lanes of a warp that share a cell fold their points first (one atomic add of their
// count, one atomic min of their lowest key, and that only when it is below the cell's current
// minimum): neighbouring points of a scan share cells.
// The per-point and per-window decisions are ground_math.hpp's, as on the CPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cuda/functional>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/common/upload.cuh"
#include "kernels/terrain/device_points.cuh"
#include "kernels/terrain/terrain_entry.hpp"
#include "simlod/detail/ground_math.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr int kBlock = 256;

struct DeviceBox {
  unsigned min_x, min_y, max_x, max_y;  // orderable floats
  unsigned long long kept;
  unsigned long long first_bad;
};

__global__ void bounds_kernel(const Point* points, const std::uint8_t* skip, std::uint64_t n,
                              DeviceBox* box) {
  unsigned lo_x = ~0u, lo_y = ~0u, hi_x = 0, hi_y = 0;
  unsigned long long kept = 0, bad = ~0ull;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    if (skip != nullptr && skip[i] != 0) continue;
    const Point p = points[i];
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z)) {
      bad = min(bad, static_cast<unsigned long long>(i));
      continue;
    }
    lo_x = min(lo_x, orderable_float(p.x));
    hi_x = max(hi_x, orderable_float(p.x));
    lo_y = min(lo_y, orderable_float(p.y));
    hi_y = max(hi_y, orderable_float(p.y));
    ++kept;
  }
  using Reduce = cub::BlockReduce<unsigned long long, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  // Six reductions in a row: each needs the shared storage to itself.
  const auto reduce_min = [&](unsigned long long v) {
    const unsigned long long r = Reduce(temp).Reduce(v, ::cuda::minimum<>{});
    __syncthreads();
    return r;
  };
  const auto reduce_max = [&](unsigned long long v) {
    const unsigned long long r = Reduce(temp).Reduce(v, ::cuda::maximum<>{});
    __syncthreads();
    return r;
  };
  const unsigned long long b_lo_x = reduce_min(lo_x), b_lo_y = reduce_min(lo_y);
  const unsigned long long b_hi_x = reduce_max(hi_x), b_hi_y = reduce_max(hi_y);
  const unsigned long long b_bad = reduce_min(bad);
  const unsigned long long b_kept = Reduce(temp).Sum(kept);
  if (threadIdx.x == 0) {
    atomicMin(&box->min_x, static_cast<unsigned>(b_lo_x));
    atomicMin(&box->min_y, static_cast<unsigned>(b_lo_y));
    atomicMax(&box->max_x, static_cast<unsigned>(b_hi_x));
    atomicMax(&box->max_y, static_cast<unsigned>(b_hi_y));
    atomicMin(&box->first_bad, b_bad);
    atomicAdd(&box->kept, b_kept);
  }
}

__device__ void atomic_min_key(std::uint64_t* slot, std::uint64_t key) {
  // Most points are not their cell's lowest: a plain read (possibly stale, which only costs an
  // atomic) spares the atomic.
  if (key < *slot) {
    atomicMin(reinterpret_cast<unsigned long long*>(slot), static_cast<unsigned long long>(key));
  }
}

/// Threads of a warp with the same `cell` (all lanes call this; `cell == none` for lanes
/// without a point) fold their points into one add of their count and one min of their lowest
/// key, made by the group's first lane: neighbouring points of a scan share cells.
__device__ void fold_warp(std::uint64_t cell, std::uint64_t none, std::uint64_t key,
                          std::uint32_t* count, std::uint64_t* lowest) {
#if __CUDA_ARCH__ >= 800
  const unsigned group = __match_any_sync(0xFFFFFFFFu, static_cast<unsigned long long>(cell));
  const auto hi = static_cast<unsigned>(key >> 32);
  const unsigned min_hi = __reduce_min_sync(group, hi);
  const unsigned min_lo =
      __reduce_min_sync(group, hi == min_hi ? static_cast<unsigned>(key) : 0xFFFFFFFFu);
  if (cell == none || (threadIdx.x & 31) != static_cast<unsigned>(__ffs(group) - 1)) return;
  if (count != nullptr) atomicAdd(&count[cell], static_cast<unsigned>(__popc(group)));
  atomic_min_key(&lowest[cell], static_cast<std::uint64_t>(min_hi) << 32 | min_lo);
#else
  if (cell == none) return;
  if (count != nullptr) atomicAdd(&count[cell], 1u);
  atomic_min_key(&lowest[cell], key);
#endif
}

__global__ void index_kernel(const Point* points, const std::uint8_t* skip, std::uint64_t n,
                             GroundAxis ax, GroundAxis ay, std::uint32_t* count,
                             std::uint64_t* lowest) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const std::uint64_t none = std::uint64_t{ax.strips} * ay.strips;
  std::uint64_t c = none;
  std::uint64_t key = kNoKey;
  if (i < n && (skip == nullptr || skip[i] == 0)) {
    const Point p = points[i];
    c = index_cell(ax, ay, p.x, p.y);
    key = ground_key(p.z, static_cast<std::uint32_t>(i));
  }
  fold_warp(c, none, key, count, lowest);  // every lane: no early return before it
}

__global__ void outlier_kernel(const std::uint64_t* lowest, std::uint32_t sx, std::uint32_t sy,
                               double depth, std::uint8_t* outlier, unsigned long long* found) {
  const std::uint64_t c = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (c >= std::uint64_t{sx} * sy) return;
  const bool out = low_outlier_cell(lowest, static_cast<std::uint32_t>(c % sx),
                                    static_cast<std::uint32_t>(c / sx), sx, sy, depth);
  outlier[c] = out ? 1 : 0;
  if (out) atomicAdd(found, 1ull);
}

struct WindowRanges {
  const std::uint32_t* x_lo;
  const std::uint32_t* x_hi;
  const std::uint32_t* y_lo;
  const std::uint32_t* y_hi;
  std::uint32_t wx, wy;
};

__global__ void window_kernel(WindowRanges w, const std::uint32_t* count,
                              const std::uint64_t* lowest, const std::uint8_t* outlier,
                              std::uint32_t sx, std::uint64_t min_points, std::uint32_t* votes,
                              unsigned long long* used) {
  const std::uint64_t t = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (t >= std::uint64_t{w.wx} * w.wy) return;
  const auto i = static_cast<std::uint32_t>(t % w.wx);
  const auto j = static_cast<std::uint32_t>(t / w.wx);
  const WindowPick pick =
      pick_window(count, lowest, outlier, sx, w.x_lo[i], w.x_hi[i], w.y_lo[j], w.y_hi[j]);
  if (pick.total < min_points) return;
  atomicAdd(used, 1ull);
  if (pick.best != kNoKey) atomicAdd(&votes[pick.cell], 1u);
}

__global__ void collect_kernel(const std::uint32_t* votes, const std::uint64_t* lowest,
                               std::uint64_t cells, std::uint32_t* seeds, unsigned* seed_count,
                               unsigned long long* minima) {
  const std::uint64_t c = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (c >= cells || votes[c] == 0) return;
  atomicAdd(minima, 1ull);
  if (votes[c] >= 2) seeds[atomicAdd(seed_count, 1u)] = key_index(lowest[c]);
}

__device__ std::uint64_t gap_index(const GapPlan& g, const Point& p) {
  return static_cast<std::uint64_t>(gap_cell_of(p.y, g.min_y, g.cell, g.ny)) * g.nx +
         gap_cell_of(p.x, g.min_x, g.cell, g.nx);
}

__global__ void gap_min_kernel(const Point* points, const std::uint8_t* skip, std::uint64_t n,
                               GapPlan g, GroundAxis ax, GroundAxis ay, const std::uint64_t* lowest,
                               const std::uint8_t* outlier, std::uint64_t* gap_lowest) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const std::uint64_t none = std::uint64_t{g.nx} * g.ny;
  std::uint64_t c = none;
  std::uint64_t key = kNoKey;
  if (i < n && (skip == nullptr || skip[i] == 0)) {
    const Point p = points[i];
    key = ground_key(p.z, static_cast<std::uint32_t>(i));
    c = gap_index(g, p);
    if (outlier != nullptr) {
      const std::uint64_t cell = index_cell(ax, ay, p.x, p.y);
      if (cell != std::uint64_t{ax.strips} * ay.strips && outlier[cell] != 0 &&
          lowest[cell] == key) {
        c = none;
      }
    }
  }
  fold_warp(c, none, key, nullptr, gap_lowest);
}

__global__ void gap_mark_kernel(const Point* points, const std::uint32_t* seeds, std::uint64_t n,
                                GapPlan g, std::uint8_t* has_seed) {
  const std::uint64_t s = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (s < n) has_seed[gap_index(g, points[seeds[s]])] = 1;
}

__global__ void gap_collect_kernel(const std::uint64_t* gap_lowest, const std::uint8_t* has_seed,
                                   std::uint64_t cells, std::uint32_t* out, unsigned* out_count) {
  const std::uint64_t c = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (c >= cells || gap_lowest[c] == kNoKey || has_seed[c] != 0) return;
  out[atomicAdd(out_count, 1u)] = key_index(gap_lowest[c]);
}

template <class T>
T* as(const DeviceMemory& m) {
  return static_cast<T*>(m.get());
}

/// An axis of the plan on the device.
struct DeviceAxis {
  DeviceMemory edges, bucket, lo, hi;
  GroundAxis view;
  DeviceAxis(const AxisPlan& a, cudaStream_t s)
      : edges(upload(a.edges, "the ground index's window edges", s)),
        bucket(upload(a.bucket, "the ground index's edge buckets", s)),
        lo(upload(a.window_lo, "the ground windows", s)),
        hi(upload(a.window_hi, "the ground windows", s)),
        view(a.view()) {
    view.edges = as<double>(edges);
    view.bucket = as<std::uint32_t>(bucket);
  }
};

class CudaSeeds final : public SeedExecutor {
 public:
  explicit CudaSeeds(DeviceCloudPtr cloud)
      : cloud_(std::move(cloud)), points_(cloud_->d), n_(cloud_->n), stream_(make_stream()) {}

  GroundBox bounds(double& ms) override {
    KernelTimer t(stream_.get());
    DeviceMemory box = make_device(sizeof(DeviceBox), "the ground bounds");
    const DeviceBox init{~0u, ~0u, 0u, 0u, 0ull, ~0ull};
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(box.get(), &init, sizeof(init), cudaMemcpyHostToDevice, s()));
    bounds_kernel<<<blocks_for(n_, kBlock, 132 * 16), kBlock, 0, s()>>>(
        points_.points(), points_.skip(), n_, as<DeviceBox>(box));
    SIMLOD_CUDA_CHECK_LAUNCH("bounds_kernel");
    DeviceBox h{};
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(&h, box.get(), sizeof(h), cudaMemcpyDeviceToHost, s()));
    ms = t.ms();
    GroundBox out;
    out.kept = h.kept;
    out.first_bad = h.first_bad;
    if (h.kept > 0) {
      out.min_x = float_from_orderable(h.min_x);
      out.min_y = float_from_orderable(h.min_y);
      out.max_x = float_from_orderable(h.max_x);
      out.max_y = float_from_orderable(h.max_y);
    }
    return out;
  }

  void index(const SeedPlan& plan, double& ms) override {
    ax_ = std::make_unique<DeviceAxis>(plan.x, s());
    ay_ = std::make_unique<DeviceAxis>(plan.y, s());
    cells_ = plan.cells();
    count_ = make_device(cells_ * sizeof(std::uint32_t), "the ground index's cell counts");
    lowest_ = make_device(cells_ * sizeof(std::uint64_t), "the ground index's lowest points");
    KernelTimer t(s());
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(count_.get(), 0, cells_ * sizeof(std::uint32_t), s()));
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(lowest_.get(), 0xFF, cells_ * sizeof(std::uint64_t), s()));
    index_kernel<<<blocks_for(n_, kBlock), kBlock, 0, s()>>>(
        points_.points(), points_.skip(), n_, ax_->view, ay_->view, as<std::uint32_t>(count_),
        as<std::uint64_t>(lowest_));
    SIMLOD_CUDA_CHECK_LAUNCH("index_kernel");
    ms = t.ms();
  }

  std::uint64_t outliers(const SeedPlan& plan, double& ms) override {
    outlier_ = make_device(cells_, "the ground index's outlier flags");
    DeviceMemory found = make_device(sizeof(unsigned long long), "a counter");
    KernelTimer t(s());
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(found.get(), 0, sizeof(unsigned long long), s()));
    outlier_kernel<<<blocks_for(cells_, kBlock), kBlock, 0, s()>>>(
        as<std::uint64_t>(lowest_), plan.x.strips(), plan.y.strips(), plan.low_outlier,
        as<std::uint8_t>(outlier_), as<unsigned long long>(found));
    SIMLOD_CUDA_CHECK_LAUNCH("outlier_kernel");
    unsigned long long h = 0;
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(&h, found.get(), sizeof(h), cudaMemcpyDeviceToHost, s()));
    ms = t.ms();
    return h;
  }

  WindowResult windows(const SeedPlan& plan, double& ms) override {
    DeviceMemory votes = make_device(cells_ * sizeof(std::uint32_t), "the ground votes");
    DeviceMemory seeds = make_device(cells_ * sizeof(std::uint32_t), "the ground seeds");
    DeviceMemory counters = make_device(3 * sizeof(unsigned long long), "counters");
    auto* used = as<unsigned long long>(counters);
    KernelTimer t(s());
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(votes.get(), 0, cells_ * sizeof(std::uint32_t), s()));
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(counters.get(), 0, 3 * sizeof(unsigned long long), s()));
    const WindowRanges w{as<std::uint32_t>(ax_->lo), as<std::uint32_t>(ax_->hi),
                         as<std::uint32_t>(ay_->lo), as<std::uint32_t>(ay_->hi),
                         plan.x.windows(),           plan.y.windows()};
    const std::uint64_t windows = std::uint64_t{w.wx} * w.wy;
    window_kernel<<<blocks_for(windows, kBlock), kBlock, 0, s()>>>(
        w, as<std::uint32_t>(count_), as<std::uint64_t>(lowest_), outlier_ptr(), plan.x.strips(),
        plan.min_points, as<std::uint32_t>(votes), used);
    SIMLOD_CUDA_CHECK_LAUNCH("window_kernel");
    collect_kernel<<<blocks_for(cells_, kBlock), kBlock, 0, s()>>>(
        as<std::uint32_t>(votes), as<std::uint64_t>(lowest_), cells_, as<std::uint32_t>(seeds),
        reinterpret_cast<unsigned*>(used + 2), used + 1);
    SIMLOD_CUDA_CHECK_LAUNCH("collect_kernel");
    unsigned long long h[3] = {};
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(h, counters.get(), sizeof(h), cudaMemcpyDeviceToHost, s()));
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s()));
    WindowResult r;
    r.windows_used = h[0];
    r.local_minima = h[1];
    r.seeds.resize(static_cast<unsigned>(h[2]));
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(r.seeds.data(), seeds.get(),
                                      r.seeds.size() * sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToHost, s()));
    ms = t.ms();
    return r;
  }

  std::vector<std::uint32_t> gap(const SeedPlan& plan, const std::vector<std::uint32_t>& seeds,
                                 double& ms) override {
    const GapPlan& g = plan.gap;
    const std::uint64_t cells = std::uint64_t{g.nx} * g.ny;
    DeviceMemory lowest =
        make_device(cells * sizeof(std::uint64_t), "the gap cells' lowest points");
    DeviceMemory has_seed = make_device(cells, "the gap cells' seed flags");
    DeviceMemory out = make_device(cells * sizeof(std::uint32_t), "the gap seeds");
    DeviceMemory count = make_device(sizeof(unsigned), "a counter");
    DeviceMemory d_seeds = upload(seeds, "the seeds", s());
    KernelTimer t(s());
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(lowest.get(), 0xFF, cells * sizeof(std::uint64_t), s()));
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(has_seed.get(), 0, cells, s()));
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, sizeof(unsigned), s()));
    gap_min_kernel<<<blocks_for(n_, kBlock), kBlock, 0, s()>>>(
        points_.points(), points_.skip(), n_, g, ax_->view, ay_->view, as<std::uint64_t>(lowest_),
        outlier_ptr(), as<std::uint64_t>(lowest));
    SIMLOD_CUDA_CHECK_LAUNCH("gap_min_kernel");
    gap_mark_kernel<<<blocks_for(seeds.size(), kBlock), kBlock, 0, s()>>>(
        points_.points(), as<std::uint32_t>(d_seeds), seeds.size(), g, as<std::uint8_t>(has_seed));
    SIMLOD_CUDA_CHECK_LAUNCH("gap_mark_kernel");
    gap_collect_kernel<<<blocks_for(cells, kBlock), kBlock, 0, s()>>>(
        as<std::uint64_t>(lowest), as<std::uint8_t>(has_seed), cells, as<std::uint32_t>(out),
        as<unsigned>(count));
    SIMLOD_CUDA_CHECK_LAUNCH("gap_collect_kernel");
    unsigned h = 0;
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(&h, count.get(), sizeof(h), cudaMemcpyDeviceToHost, s()));
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s()));
    std::vector<std::uint32_t> r(h);
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(r.data(), out.get(), h * sizeof(std::uint32_t),
                                      cudaMemcpyDeviceToHost, s()));
    ms = t.ms();
    std::sort(r.begin(), r.end());
    return r;
  }

 private:
  [[nodiscard]] cudaStream_t s() const { return stream_.get(); }
  [[nodiscard]] const std::uint8_t* outlier_ptr() const { return as<std::uint8_t>(outlier_); }

  DeviceCloudPtr cloud_;
  const DevicePoints& points_;
  std::uint64_t n_;
  StreamHandle stream_;
  std::unique_ptr<DeviceAxis> ax_, ay_;
  std::uint64_t cells_ = 0;
  DeviceMemory count_, lowest_, outlier_;
};

}  // namespace

DeviceCloudPtr upload_cloud(std::span<const Point> points, std::span<const std::uint8_t> skip,
                            double& upload_ms) {
  StreamHandle stream = make_stream();
  auto cloud = std::make_shared<DeviceCloud>();
  cloud->d = upload_points(points, skip, stream.get(), upload_ms);
  cloud->n = points.size();
  cloud->flags = make_device(points.size() + 1, "the ground flags");
  return cloud;
}

std::unique_ptr<SeedExecutor> make_seed_executor(DeviceCloudPtr cloud) {
  return std::make_unique<CudaSeeds>(std::move(cloud));
}

}  // namespace simlod::detail::cuda
