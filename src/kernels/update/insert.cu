// The CUDA incremental builder: one batch, from the upload to the counters read back (order in
// kernels/update/update_state.cuh; the passes run through kernels/update/batch_driver.hpp).
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/batch_driver.hpp"
#include "kernels/update/device_batch.cuh"
#include "kernels/update/passes.hpp"
#include "kernels/update/update_state.cuh"
#include "kernels/update/voxel_index.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

/// The executor of batch_driver.hpp on the backend's stream.
class CudaExec {
 public:
  CudaExec(DeviceArena& arena, VoxelIndexStore& index, const BatchView& base, cudaStream_t stream,
           Control* host_control)
      : arena_(arena), index_(index), base_(base), stream_(stream), host_control_(host_control) {}

  std::byte* arena() const { return arena_.data(); }
  void reset_batch(std::uint32_t node_count) {
    zero_control(kControlBatchBegin);
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(base_.d_new, 0, std::size_t{node_count} * 4, stream_));
  }
  void count(const BatchView& v) { launch_count(v, stream_); }
  void plan(const BatchView& v, std::uint32_t bound, bool last) {
    launch_plan(v, bound, last, stream_);
  }
  void zero_last() {
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(&base_.d_control->last, 0, sizeof(PlanSums), stream_));
  }
  void rollback(const BatchView& v, std::uint32_t old_nodes, std::uint32_t split_bound,
                const Control& old) {
    launch_rollback(v, old_nodes, split_bound, stream_);
    *host_control_ = old;
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(base_.d_control, host_control_, sizeof(Control),
                                      cudaMemcpyHostToDevice, stream_));
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream_));  // host_control_ is reused
  }
  void map(std::uint64_t low_end, std::uint64_t high_begin) { arena_.ensure(low_end, high_begin); }
  void split(const BatchView& v, std::uint32_t list_bound, std::uint32_t split_bound) {
    launch_split(v, list_bound, split_bound, stream_);
  }
  void next_round(const BatchView& v) { launch_next_round(v, stream_); }
  void sample(const BatchView& v) { launch_sample(v, stream_); }
  void allocate(const BatchView& v, std::uint32_t bound) { launch_allocate(v, bound, stream_); }
  void insert(const BatchView& v) { launch_insert(v, stream_); }
  IndexView reserve_index(std::uint64_t entries, std::uint64_t size) {
    if (!index_.enabled()) return IndexView{};
    index_.reserve(entries, size, stream_);
    return index_.view();
  }
  /// Average with a classification channel: grows the class counts until they have room for
  /// every (cell, class) pair the pass may add, one per point and inner level (`depth`), so
  /// that the fold pass never finds them full (CapacityError when the device has no memory).
  IndexView reserve_classes(const BatchView& v, std::uint32_t depth) {
    if (!index_.counts_classes()) return v.index;
    index_.reserve_tally(std::uint64_t{v.points()} * depth, stream_);
    return index_.view();
  }
  void fold(const BatchView& v, std::uint32_t old_grids) { launch_fold(v, old_grids, stream_); }
  Control read_control() {
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(host_control_, base_.d_control, sizeof(Control),
                                      cudaMemcpyDeviceToHost, stream_));
    SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return *host_control_;
  }

 private:
  void zero_control(std::size_t from) {
    SIMLOD_CUDA_CHECK(cudaMemsetAsync(reinterpret_cast<std::byte*>(base_.d_control) + from, 0,
                                      sizeof(Control) - from, stream_));
  }

  DeviceArena& arena_;
  VoxelIndexStore& index_;
  const BatchView& base_;
  cudaStream_t stream_;
  Control* host_control_;
};

bool is_pinned(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    (void)cudaGetLastError();  // older drivers report plain host memory as an error
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

}  // namespace

void upload(TreeStore& t, UpdateState& state, std::span<const Point> batch) {
  if (is_pinned(batch.data())) {  // no staging copy needed: the DMA engine reads it directly
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(state.view.d_batch, batch.data(), batch.size_bytes(),
                                      cudaMemcpyHostToDevice, t.stream_handle()));
    return;
  }
  // Page-locked at the first upload of pageable memory, not with the store: pinning 16 MB takes
  // about 10 ms, which a stream of device batches (the Streamer's) never needs to pay.
  if (state.staging.get() == nullptr) {
    state.staging = make_pinned(std::size_t{t.layout.max_batch} * sizeof(Point));
  }
  // The previous batch ended with a synchronisation, so the staging buffer is free.
  auto* staging = static_cast<Point*>(state.staging.get());
  for (std::size_t at = 0; at < batch.size(); at += kUploadPiecePoints) {
    const std::size_t n = std::min(kUploadPiecePoints, batch.size() - at);
    std::memcpy(staging + at, batch.data() + at, n * sizeof(Point));
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(state.view.d_batch + at, staging + at, n * sizeof(Point),
                                      cudaMemcpyHostToDevice, t.stream_handle()));
  }
}

namespace {

void check_size(const TreeStore& t, std::size_t points) {
  if (points > t.layout.max_batch) {
    throw InvalidInput("a batch of " + std::to_string(points) +
                       " points exceeds max_batch_points = " + std::to_string(t.layout.max_batch));
  }
}

/// The batch after its points are at state.view.d_batch (`started` recorded before they were
/// staged, `uploaded` after): the passes, the counters read back, the ready event.
void run_staged(TreeStore& t, UpdateState& state, std::uint32_t n, UpdateStats& stats) {
  cudaStream_t s = t.stream_handle();
  SIMLOD_CUDA_CHECK(cudaEventRecord(state.uploaded.get(), s));
  CudaExec exec(t.arena, t.index, state.view, s, static_cast<Control*>(t.control_host.get()));
  try {
    BatchExtent extent;
    stats.split_rounds =
        run_batch(exec, state.view, t.layout, t.control, n, state.headroom, &extent);
    // While the last passes run, back the memory the next batches will likely need, so that
    // they do not wait for it (kernels/common/device_arena.cuh).
    t.arena.back_ahead(extent.low_end, extent.high_begin);
  } catch (...) {
    (void)cudaStreamSynchronize(s);  // nothing queued may outlive the error (or this backend)
    throw;
  }
  SIMLOD_CUDA_CHECK(cudaEventRecord(state.done.get(), s));
  const Control after = exec.read_control();
  if (after.overflow != 0) {
    throw Error("internal error: a batch of " + std::to_string(n) +
                " points exceeded the memory bound computed for it (overflow bits " +
                std::to_string(after.overflow) + "); the octree is no longer consistent");
  }
  t.control = after;
  t.points += n;
  if (t.config.sampling == Sampling::Weighted) t.stale_colours = true;
  SIMLOD_CUDA_CHECK(cudaEventRecord(t.ready.get(), s));
  state.inserted_any = true;
  state.timing.upload_ms = elapsed_ms(state.started.get(), state.uploaded.get());
  state.timing.update_ms = elapsed_ms(state.uploaded.get(), state.done.get());
  state.timing.grow_steps = t.arena.steps();
  state.timing.grow_ms = t.arena.step_ms();
}

}  // namespace

void insert_batch(TreeStore& t, UpdateState& state, std::span<const Point> batch,
                  std::span<const std::byte> records, UpdateStats& stats) {
  if (batch.empty()) return;
  check_size(t, batch.size());
  DeviceScope scope(t.config.device);
  index_tree(t);  // a tree the bulk builder wrote gets its voxel index first
  SIMLOD_CUDA_CHECK(cudaEventRecord(state.started.get(), t.stream_handle()));
  stage(t, state, batch);
  if (!records.empty()) {
    // Pageable memory: the driver stages the copy before it returns, so `records` may go.
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(state.view.d_batch_records, records.data(), records.size(),
                                      cudaMemcpyHostToDevice, t.stream_handle()));
  }
  run_staged(t, state, static_cast<std::uint32_t>(batch.size()), stats);
}

void insert_batch(TreeStore& t, UpdateState& state, DeviceBatchStore& batch, std::size_t first,
                  std::size_t count, UpdateStats& stats) {
  if (count == 0) return;
  check_size(t, count);
  DeviceScope scope(t.config.device);
  index_tree(t);
  cudaStream_t s = t.stream_handle();
  SIMLOD_CUDA_CHECK(cudaEventRecord(state.started.get(), s));
  // The points are on the device already, checked after their copies landed (finish_check).
  state.view.d_batch = batch.points + first;
  try {
    run_staged(t, state, static_cast<std::uint32_t>(count), stats);
  } catch (...) {
    (void)cudaEventRecord(batch.consumed.get(), s);
    batch.consumed_recorded = true;
    throw;
  }
  SIMLOD_CUDA_CHECK(cudaEventRecord(batch.consumed.get(), s));
  batch.consumed_recorded = true;
}

}  // namespace simlod::detail::cuda
