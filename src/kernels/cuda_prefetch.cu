// CUDA backend: the asynchronous upload of coming batches (OctreeBackend::prefetch).
// kBatchBuffers batch buffers: while the kernels of batch k read one, batches k+1 and k+2 are
// copied into the others on a second stream, back to back; insert_batch() of batch k+1 makes
// the main stream wait for its copy only.
// A buffer holds its prefetched span until a batch consumes it, so the usual order of a
// streaming loop (prefetch k+1, then insert k, which was prefetched the frame before) finds
// both batches in flight instead of uploading k again in line.
#include "kernels/cuda_backend.cuh"
#include "kernels/cuda_check.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

bool same(std::span<const Point> a, std::span<const Point> b) {
  return a.data() == b.data() && a.size() == b.size();
}

}  // namespace

void CudaBackend::reserve_second_batch_buffer() {
  // Allocated with the arena rather than at the first prefetch: a cudaMalloc during streaming
  // waits behind the loaders' page-locking of ring buffers (hundreds of milliseconds).
  void* p = nullptr;
  const std::size_t points = std::size_t{layout_.max_batch};
  const cudaError_t err = cudaMalloc(&p, (kBatchBuffers - 1) * points * sizeof(Point));
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    return;
  }
  check_cuda(err, "cudaMalloc(batch buffers)", __FILE__, __LINE__);
  second_batch_ = DeviceMemory(p);
  for (int i = 1; i < kBatchBuffers; ++i) {
    buffers_[i].d = static_cast<Point*>(p) + (i - 1) * points;
  }
  cudaStream_t stream = nullptr;
  SIMLOD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  copy_stream_ = StreamHandle(stream);
  for (BatchBuffer& b : buffers_) {
    cudaEvent_t event = nullptr;
    SIMLOD_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    b.copied = EventHandle(event);
  }
}

int CudaBackend::buffer_to_fill() const {
  int best = -1;
  for (int i = 0; i < kBatchBuffers; ++i) {
    if (buffers_[i].d == nullptr) continue;
    if (buffers_[i].pending.empty()) return i;
    if (best < 0 || buffers_[i].order < buffers_[best].order) best = i;
  }
  return best;
}

void CudaBackend::prefetch(std::span<const Point> batch) {
  if (batch.empty() || batch.size() > layout_.max_batch) return;  // insert_batch() reports it
  if (buffers_[1].d == nullptr) return;  // no room for more buffers: upload in line
  for (const BatchBuffer& b : buffers_) {
    if (same(b.pending, batch)) return;  // already on its way
  }
  // No batch runs between insert_batch() calls (each ends with a synchronisation), so every
  // buffer is free of kernels; one still being copied into keeps its order on copy_stream_.
  BatchBuffer& b = buffers_[buffer_to_fill()];
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(b.d, batch.data(), batch.size_bytes(), cudaMemcpyHostToDevice,
                                    copy_stream_.get()));
  SIMLOD_CUDA_CHECK(cudaEventRecord(b.copied.get(), copy_stream_.get()));
  b.pending = batch;
  b.order = ++prefetches_;
}

void CudaBackend::stage(std::span<const Point> batch) {
  if (buffers_[1].d == nullptr) {  // one buffer, no prefetching
    base_.d_batch = buffers_[0].d;
    upload(batch);
    return;
  }
  for (BatchBuffer& b : buffers_) {
    if (same(b.pending, batch)) {
      base_.d_batch = b.d;
      SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), b.copied.get(), 0));
      b.pending = {};
      return;
    }
  }
  // Not prefetched: upload in line into a free buffer (or the oldest prefetch's, after its
  // copy has landed, so that nothing writes into it later).
  BatchBuffer& b = buffers_[buffer_to_fill()];
  if (!b.pending.empty()) {
    SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), b.copied.get(), 0));
    b.pending = {};
  }
  base_.d_batch = b.d;
  upload(batch);
}

}  // namespace simlod::detail::cuda
