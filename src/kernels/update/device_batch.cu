// simlod::DeviceBatch on the device: its memory, the stream its piece copies run on, and the
// events that order them against the staging pieces (host side) and the inserts that read the
// batch (device side). The insert of such a batch is insert_batch() in kernels/update/insert.cu.
#include <string>

#include "kernels/common/cuda_check.hpp"
#include "kernels/update/device_batch.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {

DeviceBatchStore::DeviceBatchStore(std::size_t capacity, int device_) : device(device_) {
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, capacity * sizeof(Point));
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw CapacityError("cannot get " + std::to_string(capacity * sizeof(Point)) +
                        " bytes of device memory for a DeviceBatch of " + std::to_string(capacity) +
                        " points on device " + std::to_string(device));
  }
  check_cuda(err, "cudaMalloc(DeviceBatch)", __FILE__, __LINE__);
  memory = DeviceMemory(p);
  points = static_cast<Point*>(p);
  stream = make_stream();
  for (EventHandle& e : staged) e = make_event(cudaEventDisableTiming);
  copied = make_event(cudaEventDisableTiming);
  consumed = make_event(cudaEventDisableTiming);
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
  SIMLOD_CUDA_CHECK(cudaEventRecord(batch.copied.get(), s));
  batch.staged_pending[k] = true;
}

void reuse_device_batch(DeviceBatchStore& batch) {
  if (!batch.consumed_recorded) return;
  DeviceScope scope(batch.device);
  // Copies of the next points wait on the device for the insert that read the old ones.
  SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(batch.stream.get(), batch.consumed.get(), 0));
}

int device_of(const DeviceBatchStore& batch) { return batch.device; }

}  // namespace simlod::detail::cuda
