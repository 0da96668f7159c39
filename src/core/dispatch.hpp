// The one dispatch between the facades (Octree, rasterize, Framebuffer) and the executors: the
// tree stores of an octree, and the free functions over them chosen by backend. CPU functions
// live in core/cpu/<capability>/, CUDA functions in kernels/<capability>/ (declared in
// kernels/entry.hpp); builds without CUDA compile the CUDA branches out, so asking for CUDA
// there is a CudaError at create time. A new capability (bulk builder, export, queries) adds a
// function here and a folder per backend; nothing else changes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "core/framebuffer_store.hpp"
#include "core/octree_store.hpp"
#include "kernels/entry.hpp"
#include "simlod/device_stream.hpp"

namespace simlod::detail {

struct RenderJob;  // core/render_job.hpp

namespace cpu {
struct TreeStore;      // core/cpu/tree/store.hpp
struct UpdateScratch;  // core/cpu/update/update.hpp
}  // namespace cpu

/// The store of one octree and its builder's working state; exactly one backend's are set.
struct TreeStores {
  TreeStores();
  ~TreeStores();
  TreeStores(TreeStores&&) noexcept;
  TreeStores& operator=(TreeStores&&) noexcept;

  Backend kind = Backend::Cpu;
  std::unique_ptr<cpu::TreeStore> cpu;
  std::unique_ptr<cpu::UpdateScratch> cpu_update;
  cuda::Owned<cuda::TreeStore> cuda{nullptr, nullptr};
  cuda::Owned<cuda::UpdateState> cuda_update{nullptr, nullptr};
};

/// Points for insert_batch(): in host memory, or in a DeviceBatch on the CUDA store's device.
struct BatchSource {
  std::span<const Point> host;
  cuda::DeviceBatchStore* device = nullptr;  ///< when set, `device_points` points there
  std::size_t device_points = 0;
  /// Host: the channel records of the points (ChannelLayout::record_bytes each), or empty.
  std::span<const std::byte> records{};
  [[nodiscard]] std::size_t size() const { return device ? device_points : host.size(); }
  [[nodiscard]] static BatchSource of(std::span<const Point> points,
                                      std::span<const std::byte> records = {}) {
    return {points, nullptr, 0, records};
  }
  [[nodiscard]] static BatchSource of(cuda::DeviceBatchStore* store, std::size_t points) {
    return {{}, store, points, {}};
  }
};

/// An empty tree on config.backend (resolved: Cpu or Cuda). Throws CapacityError when the
/// reserve cannot be had, CudaError when CUDA is not compiled in or fails.
[[nodiscard]] TreeStores create_stores(const OctreeConfig& config, const OctreeGeometry& geometry);

// The incremental builder.
/// Inserts points [first, first + count) of a validated batch (count <= config.max_batch_points)
/// completely, or throws CapacityError before changing anything when the memory reserve cannot
/// hold them.
void insert_batch(TreeStores& s, const BatchSource& batch, std::size_t first, std::size_t count,
                  UpdateStats& stats);
/// Computes the colours that batches left first-come (Sampling::Weighted); see
/// Octree::finalize(); false when there was nothing to compute (`stats` then untouched).
bool finalize(TreeStores& s, BuildStats& stats);
/// Octree::compact(): moves the tree into a store of chunks of `chunk_capacity` and drops
/// what only further batches need; throws CapacityError with the store unchanged.
void compact(TreeStores& s, std::uint32_t chunk_capacity);
/// Starts moving `batch` to where insert_batch() reads it (CUDA: an asynchronous copy into a
/// free device batch buffer); the CPU reads batches in place and does nothing.
void prefetch(TreeStores& s, std::span<const Point> batch);
/// The device timing of the last CUDA batch; nullopt on the CPU or before the first batch.
[[nodiscard]] std::optional<CudaBatchTiming> cuda_batch_timing(const TreeStores& s);

// The bulk builder.
/// Builds the tree of validated, non-empty points (host, or a DeviceBatch for a CUDA store)
/// into the empty store `s` (just created). Throws CapacityError when it does not fit; the
/// store must then be discarded.
void build_bulk(TreeStores& s, const BatchSource& points, BuildStats& stats);

// Consumers of the store.
[[nodiscard]] OctreeStats stats(const TreeStores& s);
[[nodiscard]] NodeSnapshot snapshot(const TreeStores& s);
void for_each_node(const TreeStores& s, const NodeVisitor& visit);
std::uint64_t read_node(const TreeStores& s, std::uint32_t id, std::uint64_t first,
                        std::span<Point> out, PointAttributes* attributes = nullptr);
/// Clears `fb` (of the tree's backend), draws the tree and resolves the image; waits for it.
RenderStats render(const TreeStores& s, const RenderJob& job, FramebufferStore& fb);
/// The same, queued after the work on `stream` and before what `stream` gets next (CUDA; the
/// CPU draws at once); frame_stats() waits for it.
void render_async(const TreeStores& s, const RenderJob& job, FramebufferStore& fb,
                  DeviceStream stream);
/// The statistics of the last frame, after waiting for it.
RenderStats frame_stats(FramebufferStore& fb);

// Ordering against an application's stream (CUDA; nothing on the CPU).
/// The store's next device work runs after what is queued on `stream` now.
void order_after(TreeStores& s, DeviceStream stream);
/// What `stream` gets from now on runs after the store's last batch.
void signal(const TreeStores& s, DeviceStream stream);
/// The CPU renderer over a snapshot (fb on the CPU).
RenderStats render(const NodeSnapshot& snapshot, const RenderJob& job, FramebufferStore& fb);

// The framebuffer (its store is created by FramebufferStore's constructor). Each waits for a
// frame render_async() queued first.
double resolve(FramebufferStore& fb, const ResolveSettings& settings);
[[nodiscard]] std::vector<std::uint8_t> download(FramebufferStore& fb);
[[nodiscard]] std::vector<std::uint64_t> download_words(FramebufferStore& fb);
void wrap_device_rgba8(FramebufferStore& fb, void* d_pixels, std::size_t pitch_bytes);

}  // namespace simlod::detail
