// CUDA backend: the asynchronous upload of the next batch (OctreeBackend::prefetch). Two batch
// buffers alternate: while the kernels of batch k read one, batch k+1 is copied into the other
// on a second stream; insert_batch() of batch k+1 makes the main stream wait for that copy.
#include "kernels/cuda_backend.cuh"
#include "kernels/cuda_check.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {

void CudaBackend::reserve_second_batch_buffer() {
  // Allocated with the arena rather than at the first prefetch: a cudaMalloc during streaming
  // waits behind the loaders' page-locking of ring buffers (hundreds of milliseconds).
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, std::size_t{layout_.max_batch} * sizeof(Point));
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return;
  }
  check_cuda(err, "cudaMalloc(second batch buffer)", __FILE__, __LINE__);
  second_batch_ = DeviceMemory(p);
  d_batches_[1] = static_cast<Point*>(p);
  cudaStream_t stream = nullptr;
  SIMLOD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  copy_stream_ = StreamHandle(stream);
  cudaEvent_t event = nullptr;
  SIMLOD_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  copied_ = EventHandle(event);
}

void CudaBackend::prefetch(std::span<const Point> batch) {
  if (batch.empty() || batch.size() > layout_.max_batch) return;  // insert_batch() reports it
  if (d_batches_[1] == nullptr) return;  // no room for a second buffer: upload in line
  // No batch runs between insert_batch() calls (each ends with a synchronisation), so the
  // buffer the last batch did not use is free; a pending prefetch is simply overwritten (the
  // copy stream keeps the copies in order).
  if (prefetch_buffer_ < 0) prefetch_buffer_ = base_.d_batch == d_batches_[0] ? 1 : 0;
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(d_batches_[prefetch_buffer_], batch.data(), batch.size_bytes(),
                                    cudaMemcpyHostToDevice, copy_stream_.get()));
  SIMLOD_CUDA_CHECK(cudaEventRecord(copied_.get(), copy_stream_.get()));
  prefetched_ = batch;
}

void CudaBackend::stage(std::span<const Point> batch) {
  const bool hit = prefetch_buffer_ >= 0 && prefetched_.data() == batch.data() &&
                   prefetched_.size() == batch.size();
  if (hit) {
    base_.d_batch = d_batches_[prefetch_buffer_];
    SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), copied_.get(), 0));
  } else {
    if (prefetch_buffer_ >= 0) {
      // A different batch is pending in the other buffer: upload into ours, and keep the
      // pending one ordered before anything that later reuses its buffer.
      base_.d_batch = d_batches_[prefetch_buffer_ == 0 ? 1 : 0];
      SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), copied_.get(), 0));
    }
    upload(batch);
  }
  prefetch_buffer_ = -1;
  prefetched_ = {};
}

}  // namespace simlod::detail
