// CUDA backend: reserving the arena, the empty tree, statistics and snapshots.
#include <cstring>
#include <string>

#include "kernels/cuda_backend.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/host_tree.hpp"
#include "kernels/tuning.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

std::uint64_t reserve_size(const OctreeConfig& config) {
  if (config.memory_bytes != 0) return config.memory_bytes;
  std::size_t free = 0, total = 0;
  SIMLOD_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return static_cast<std::uint64_t>(config.memory_fraction * static_cast<double>(free));
}

}  // namespace

CudaBackend::CudaBackend(const OctreeConfig& config, const OctreeGeometry& geometry)
    : config_(config), geometry_(geometry), headroom_(kExpandHeadroom) {
  layout_ = plan_arena(reserve_size(config), config, geometry);  // throws before allocating
  arena_ = DeviceArena(layout_.total_bytes, layout_.dynamic_begin);
  void* pinned = nullptr;
  SIMLOD_CUDA_CHECK(cudaHostAlloc(&pinned, std::uint64_t{layout_.max_batch} * sizeof(Point),
                                  cudaHostAllocDefault));
  staging_ = PinnedMemory(pinned);
  SIMLOD_CUDA_CHECK(cudaHostAlloc(&pinned, sizeof(Control), cudaHostAllocDefault));
  control_host_ = PinnedMemory(pinned);
  cudaStream_t stream = nullptr;
  SIMLOD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  stream_ = StreamHandle(stream);
  for (EventHandle* e : {&started_, &uploaded_, &done_}) {
    cudaEvent_t event = nullptr;
    SIMLOD_CUDA_CHECK(cudaEventCreate(&event));
    *e = EventHandle(event);
  }

  base_ = make_tree_view(arena(), layout_, config, geometry);
  buffers_[0].d = base_.d_batch;
  reserve_second_batch_buffer();

  // The empty tree: the root, a leaf at level 0 with no samples.
  control_ = Control{};
  control_.node_count = 1;
  std::memcpy(control_host_.get(), &control_, sizeof(Control));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(base_.d_control, control_host_.get(), sizeof(Control),
                                    cudaMemcpyHostToDevice, stream_.get()));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(base_.d_nodes, &kRootNode, sizeof(kRootNode),
                                    cudaMemcpyHostToDevice, stream_.get()));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(base_.d_links, &kRootLink, sizeof(kRootLink),
                                    cudaMemcpyHostToDevice, stream_.get()));
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
}

OctreeStats CudaBackend::stats() const { return tree_stats(control_, layout_, points_); }

NodeSnapshot CudaBackend::snapshot() const {
  const Control& c = control_;
  HostTreeCopy copy;
  copy.nodes.resize(c.node_count);
  copy.links.resize(c.node_count);
  copy.chunks.resize(std::uint64_t{c.chunk_top} * layout_.chunk_bytes);
  cudaStream_t s = stream_.get();
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(copy.nodes.data(), base_.d_nodes,
                                    copy.nodes.size() * sizeof(DeviceNode), cudaMemcpyDeviceToHost,
                                    s));
  SIMLOD_CUDA_CHECK(cudaMemcpyAsync(copy.links.data(), base_.d_links,
                                    copy.links.size() * sizeof(NodeLink), cudaMemcpyDeviceToHost,
                                    s));
  if (!copy.chunks.empty()) {
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(copy.chunks.data(), base_.d_chunks, copy.chunks.size(),
                                      cudaMemcpyDeviceToHost, s));
  }
  SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));
  return build_snapshot(copy, geometry_, config_.chunk_capacity, layout_.chunk_bytes);
}

}  // namespace simlod::detail::cuda

// The backend's entry points, declared in core/octree_backend.hpp and kernels/cuda_backend.hpp.
namespace simlod::detail {

std::unique_ptr<OctreeBackend> make_cuda_backend(const OctreeConfig& config,
                                                 const OctreeGeometry& geometry) {
  return std::make_unique<cuda::CudaBackend>(config, geometry);
}

std::optional<CudaBatchTiming> cuda_batch_timing(const OctreeBackend& backend) {
  const auto* b = dynamic_cast<const cuda::CudaBackend*>(&backend);
  if (b == nullptr || !b->inserted_any()) return std::nullopt;
  return b->timing();
}

}  // namespace simlod::detail
