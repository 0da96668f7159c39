// simlod::DeviceBatch on the device: its memory, the stream its piece copies run on, and the
// events that order them against the staging pieces (host side) and the inserts that read the
// batch (device side). The insert of such a batch is insert_batch() in kernels/update/insert.cu.
#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/update/device_batch.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {

DeviceBatchStore::DeviceBatchStore(std::size_t capacity, int device_) : device(device_) {
  memory = make_device(capacity * sizeof(Point) + sizeof(unsigned long long),
                       "a DeviceBatch of " + std::to_string(capacity) + " points");
  points = static_cast<Point*>(memory.get());
  d_first_bad = reinterpret_cast<unsigned long long*>(points + capacity);
  stream = make_stream();
  for (EventHandle& e : staged) e = make_event(cudaEventDisableTiming);
  consumed = make_event(cudaEventDisableTiming);
  checked = make_event(cudaEventDisableTiming);
}

DeviceBatchStore::~DeviceBatchStore() {
  // Copies may still read the staging pieces, which the caller frees after this store.
  (void)cudaStreamSynchronize(stream.get());
}

Owned<DeviceBatchStore> create_device_batch(std::size_t capacity, int device) {
  DeviceScope scope(device);
  auto* store = new DeviceBatchStore(capacity, device);
  return Owned<DeviceBatchStore>(store, [](DeviceBatchStore* p) { destroy(p); });
}

void destroy(DeviceBatchStore* p) {
  if (p != nullptr) delete_on(p->device, p);
}

void wait_staging(DeviceBatchStore& batch, int k) {
  if (!batch.staged_pending[k]) return;
  DeviceScope scope(batch.device);
  SIMLOD_CUDA_CHECK(cudaEventSynchronize(batch.staged[k].get()));
  batch.staged_pending[k] = false;
}

void upload_piece(DeviceBatchStore& batch, int k, std::size_t at, const Point* staging,
                  std::size_t n) {
  DeviceScope scope(batch.device);
  cudaStream_t s = batch.stream.get();
  SIMLOD_CUDA_CHECK(
      cudaMemcpyAsync(batch.points + at, staging, n * sizeof(Point), cudaMemcpyHostToDevice, s));
  SIMLOD_CUDA_CHECK(cudaEventRecord(batch.staged[k].get(), s));
  batch.staged_pending[k] = true;
}

namespace {

/// The first point (by index) not in [0, edge] per axis, or not finite: each thread stops at
/// its first bad point, which is the smallest of its own; the minimum over threads is the
/// first of all.
__global__ void find_bad_kernel(const Point* points, std::uint64_t count, float edge,
                                unsigned long long* first_bad) {
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const Point p = points[i];
    if (!(p.x >= 0.0f && p.x <= edge && p.y >= 0.0f && p.y <= edge && p.z >= 0.0f && p.z <= edge)) {
      atomicMin(first_bad, static_cast<unsigned long long>(i));
      return;
    }
  }
}

}  // namespace

void queue_check(DeviceBatchStore& batch, std::uint64_t count, float edge,
                 unsigned long long* host_result) {
  DeviceScope scope(batch.device);
  cudaStream_t s = batch.stream.get();
  SIMLOD_CUDA_CHECK(cudaMemsetAsync(batch.d_first_bad, 0xff, sizeof(unsigned long long), s));
  if (count > 0) {
    constexpr unsigned kThreads = 256;
    const auto blocks =
        static_cast<unsigned>(std::min<std::uint64_t>((count + kThreads - 1) / kThreads, 4096));
    find_bad_kernel<<<blocks, kThreads, 0, s>>>(batch.points, count, edge, batch.d_first_bad);
    SIMLOD_CUDA_CHECK_LAUNCH("find_bad_kernel");
  }
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(host_result, batch.d_first_bad, sizeof(*host_result),
                                    cudaMemcpyDeviceToHost, s));
  SIMLOD_CUDA_CHECK(cudaEventRecord(batch.checked.get(), s));
}

std::uint64_t finish_check(DeviceBatchStore& batch, std::uint64_t count,
                           const unsigned long long* host_result, Point* bad) {
  DeviceScope scope(batch.device);
  SIMLOD_CUDA_CHECK(cudaEventSynchronize(batch.checked.get()));  // the copies have landed too
  batch.staged_pending[0] = batch.staged_pending[1] = false;
  if (*host_result >= count) return count;
  SIMLOD_CUDA_CHECK(
      cudaMemcpy(bad, batch.points + *host_result, sizeof(Point), cudaMemcpyDeviceToHost));
  return *host_result;
}

void reuse_device_batch(DeviceBatchStore& batch) {
  if (!batch.consumed_recorded) return;
  DeviceScope scope(batch.device);
  // Copies of the next points wait on the device for the insert that read the old ones.
  SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(batch.stream.get(), batch.consumed.get(), 0));
}

}  // namespace simlod::detail::cuda
