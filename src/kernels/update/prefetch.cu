// The CUDA builder's asynchronous upload of coming batches (Octree::prefetch).
// kBatchBuffers batch buffers: while the kernels of batch k read one, batches k+1 and k+2 are
// copied into the others on a second stream, back to back; insert_batch() of batch k+1 makes
// the main stream wait for its copy only.
// A buffer holds its prefetched span until a batch consumes it, so the usual order of a
// streaming loop (prefetch k+1, then insert k, which was prefetched the frame before) finds
// both batches in flight instead of uploading k again in line.
#include "kernels/common/cuda_check.hpp"
#include "kernels/update/update_state.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

bool same(std::span<const Point> a, std::span<const Point> b) {
  return a.data() == b.data() && a.size() == b.size();
}

using BatchBuffer = UpdateState::BatchBuffer;

/// The buffer to (re)fill: a free one, else the one prefetched longest ago.
int buffer_to_fill(const UpdateState& state) {
  int best = -1;
  for (int i = 0; i < kBatchBuffers; ++i) {
    if (state.buffers[i].d == nullptr) continue;
    if (state.buffers[i].pending.empty()) return i;
    if (best < 0 || state.buffers[i].order < state.buffers[best].order) best = i;
  }
  return best;
}

}  // namespace

UpdateState::UpdateState(const TreeStore& t)
    : scratch_layout(plan_scratch(t.layout)),
      scratch(make_device(scratch_layout.total_bytes, "the octree builder's scratch")),
      view(make_batch_view(t.writer, static_cast<std::byte*>(scratch.get()), scratch_layout)),
      headroom(kExpandHeadroom) {
  for (EventHandle* e : {&started, &uploaded, &done}) *e = make_event();
  buffers[0].d = view.d_batch;
  // Allocated with the arena rather than at the first prefetch: a cudaMalloc during streaming
  // waits behind the loaders' page-locking of ring buffers (hundreds of milliseconds).
  const std::size_t points = std::size_t{t.layout.max_batch};
  try {
    more_buffers = make_device((kBatchBuffers - 1) * points * sizeof(Point), "batch buffers");
  } catch (const CapacityError&) {
    return;  // no room: one buffer, uploads in line
  }
  for (int i = 1; i < kBatchBuffers; ++i) {
    buffers[i].d = static_cast<Point*>(more_buffers.get()) + (i - 1) * points;
  }
  copy_stream = make_stream();
  for (BatchBuffer& b : buffers) b.copied = make_event(cudaEventDisableTiming);
}

Owned<UpdateState> create_update_state(const TreeStore& store) {
  DeviceScope scope(store.config.device);
  auto* state = new UpdateState(store);
  state->device = store.config.device;
  return Owned<UpdateState>(state, [](UpdateState* p) { destroy(p); });
}

bool rebind_update_state(UpdateState& state, const TreeStore& store) {
  const ScratchLayout layout = plan_scratch(store.layout);
  if (layout.total_bytes != state.scratch_layout.total_bytes ||
      layout.batch != state.scratch_layout.batch || store.config.device != state.device) {
    return false;
  }
  state.scratch_layout = layout;
  state.view = make_batch_view(store.writer, static_cast<std::byte*>(state.scratch.get()), layout);
  state.buffers[0].d = state.view.d_batch;
  state.headroom = kExpandHeadroom;
  return true;
}

void destroy(UpdateState* p) {
  if (p != nullptr) delete_on(p->device, p);
}

const CudaBatchTiming* last_timing(const UpdateState& state) {
  return state.inserted_any ? &state.timing : nullptr;
}

void prefetch(const TreeStore& t, UpdateState& state, std::span<const Point> batch) {
  if (batch.empty() || batch.size() > t.layout.max_batch) return;  // insert_batch() reports it
  if (state.buffers[1].d == nullptr) return;  // no room for more buffers: upload in line
  DeviceScope scope(t.config.device);
  for (const BatchBuffer& b : state.buffers) {
    if (same(b.pending, batch)) return;  // already on its way
  }
  // No batch runs between insert_batch() calls (each ends with a synchronisation), so every
  // buffer is free of kernels; one still being copied into keeps its order on the copy stream.
  BatchBuffer& b = state.buffers[buffer_to_fill(state)];
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(b.d, batch.data(), batch.size_bytes(), cudaMemcpyHostToDevice,
                                    state.copy_stream.get()));
  SIMLOD_CUDA_CHECK(cudaEventRecord(b.copied.get(), state.copy_stream.get()));
  b.pending = batch;
  b.order = ++state.prefetches;
}

void stage(TreeStore& t, UpdateState& state, std::span<const Point> batch) {
  if (state.buffers[1].d == nullptr) {  // one buffer, no prefetching
    state.view.d_batch = state.buffers[0].d;
    upload(t, state, batch);
    return;
  }
  for (BatchBuffer& b : state.buffers) {
    if (same(b.pending, batch)) {
      state.view.d_batch = b.d;
      SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(t.stream_handle(), b.copied.get(), 0));
      b.pending = {};
      return;
    }
  }
  // Not prefetched: upload in line into a free buffer (or the oldest prefetch's, after its
  // copy has landed, so that nothing writes into it later).
  BatchBuffer& b = state.buffers[buffer_to_fill(state)];
  if (!b.pending.empty()) {
    SIMLOD_CUDA_CHECK(cudaStreamWaitEvent(t.stream_handle(), b.copied.get(), 0));
    b.pending = {};
  }
  state.view.d_batch = b.d;
  upload(t, state, batch);
}

}  // namespace simlod::detail::cuda
