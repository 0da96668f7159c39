// The CUDA executors as the dispatch (core/dispatch.cpp) calls them: plain C++ declarations,
// no CUDA types, so that host code compiled by the C++ compiler can hold CUDA stores. Defined
// in src/kernels only in builds with CUDA (SIMLOD_HAS_CUDA); the dispatch calls them only then.
//
// Stores and states are owned through Owned<T>, a unique_ptr whose deleter is the matching
// destroy() (a function pointer, so that builds without CUDA never reference it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/octree_store.hpp"
#include "simlod/render.hpp"

namespace simlod::detail {

struct RenderJob;        // core/render_job.hpp
struct ResolveSettings;  // core/framebuffer_store.hpp

/// Device-side duration of the last batch a CUDA builder inserted, from CUDA events.
struct CudaBatchTiming {
  double upload_ms = 0.0;  ///< copy into pinned staging memory plus host-to-device transfer
  double update_ms = 0.0;  ///< everything after the upload: expand, sample, allocate, insert
  /// Since the store was created: times the arena backed more memory, and the host time
  /// those steps took (a batch that needs a step waits for it).
  std::uint64_t grow_steps = 0;
  double grow_ms = 0.0;
};

}  // namespace simlod::detail

namespace simlod::detail::cuda {

struct TreeStore;         // kernels/tree/store.cuh
struct UpdateState;       // kernels/update/update_state.cuh
class Framebuffer;        // kernels/render/framebuffer.cuh
struct DeviceBatchStore;  // kernels/update/device_batch.cuh

template <class T>
using Owned = std::unique_ptr<T, void (*)(T*)>;

void destroy(TreeStore* p);
void destroy(UpdateState* p);
void destroy(Framebuffer* p);
void destroy(DeviceBatchStore* p);

// Every function runs on the device of its store or framebuffer (OctreeConfig::device) and
// restores the caller's current device.

// The tree store (kernels/tree/).
/// Reserves the arena on config.device and writes the empty tree. Throws CapacityError when the
/// reserve cannot be had or cannot hold the fixed tables, CudaError otherwise.
[[nodiscard]] Owned<TreeStore> create_store(const OctreeConfig& config,
                                            const OctreeGeometry& geometry);
/// From counters read back after the last batch; does not touch the device.
[[nodiscard]] OctreeStats stats(const TreeStore& store);
/// Copies node tables and chunks to the host (synchronous).
[[nodiscard]] NodeSnapshot snapshot(const TreeStore& store);
void for_each_node(const TreeStore& store, const NodeVisitor& visit);
/// `attributes` (optional): set to the channels of the samples copied.
std::uint64_t read_node(const TreeStore& store, std::uint32_t id, std::uint64_t first,
                        std::span<Point> out, PointAttributes* attributes = nullptr);
/// The store's next device work runs after what is queued on `stream` (a cudaStream_t) now.
void order_after(TreeStore& store, void* stream);
/// What is queued on `stream` from now on runs after the store's last batch.
void signal(const TreeStore& store, void* stream);

// The incremental builder (kernels/update/).
[[nodiscard]] Owned<UpdateState> create_update_state(const TreeStore& store);
/// Points `state` at `store`, a store of the same configuration and geometry as the one it was
/// made for (its scratch, buffers and staging are kept); false when their layouts differ.
[[nodiscard]] bool rebind_update_state(UpdateState& state, const TreeStore& store);
/// Inserts one validated, non-empty batch completely, or throws CapacityError having changed
/// nothing; any other exception may leave the store half-written.
/// `records`: the points' channel records (empty without channels).
void insert_batch(TreeStore& store, UpdateState& state, std::span<const Point> batch,
                  std::span<const std::byte> records, UpdateStats& stats);
/// The same for points [first, first + count) of a DeviceBatch on the store's device, checked
/// (finish_check) since its last copy, so its copies have landed; later copies into it wait
/// for this insert on the device.
void insert_batch(TreeStore& store, UpdateState& state, DeviceBatchStore& batch, std::size_t first,
                  std::size_t count, UpdateStats& stats);
/// Starts copying `batch` into a free device batch buffer on a second stream; insert_batch()
/// of the same span then waits for that copy only.
void prefetch(const TreeStore& store, UpdateState& state, std::span<const Point> batch);
/// Timing of the last batch (nullptr before the first).
[[nodiscard]] const CudaBatchTiming* last_timing(const UpdateState& state);

// The bulk builder (kernels/bulk/).
/// Builds the tree of validated, non-empty points into the empty `store` (just created): from
/// `host` (uploaded into a temporary device buffer), or, when `device` is set, from its first
/// `device_points` points. With attribute channels (FirstCome, Random), `records` holds the
/// host points' channel records: leaves keep their points', voxels those of the point whose
/// colour they took (Random: the CPU's winner). Throws CapacityError when the tree does not
/// fit (the store must then be discarded), CudaError otherwise. `quantized_input`: the
/// device points hold quantised positions in their x, y, z words (the gathered leaves of a
/// PointEncoding::Quantized16 tree, rebuild.cu), not floats.
void build_bulk(TreeStore& store, std::span<const Point> host, std::span<const std::byte> records,
                DeviceBatchStore* device, std::size_t device_points, BuildStats& stats,
                bool quantized_input = false);

/// Sampling::Weighted, whose colours do not decompose per batch: the tree of `store`'s points
/// built again by the bulk builder into a new store (the same nodes and points; every voxel
/// colour computed bottom-up), when batches went in since the colours were computed; null
/// otherwise, and for a store with channels (recolour_in_place()). Throws CapacityError when
/// the new store does not fit beside the old one (which
/// stays as it was) (kernels/bulk/rebuild.cu). `stats`: the bulk build's, with the gathered
/// points in scratch_bytes.
[[nodiscard]] Owned<TreeStore> rebuild_for_colours(const TreeStore& store, BuildStats& stats);
/// The same for a store with attribute channels, whose voxels keep their places (beside their
/// records, which the voxel index keeps by Average's rules): the tree is built again without
/// channels, and each of its voxels gives its colour to the store's voxel of the same node
/// and cell. False for a store without channels (rebuild_for_colours() then) or with nothing
/// to compute. Throws as rebuild_for_colours (the store then keeps its first-come colours).
bool recolour_in_place(TreeStore& store, BuildStats& stats);

/// Octree::compact(): a new store holding `store`'s nodes and samples (in order; node ids
/// kept) in chunks of `chunk_capacity`, sized to fit them exactly, without occupancy grids or
/// a chunk pool (kernels/tree/compact.cu). Throws CapacityError when it does not fit beside
/// `store` (which stays as it was).
[[nodiscard]] Owned<TreeStore> compact_store(const TreeStore& store, std::uint32_t chunk_capacity);

// DeviceBatch (kernels/update/device_batch.cu).
/// Device memory for `capacity` points on `device`; CapacityError when it cannot be had.
[[nodiscard]] Owned<DeviceBatchStore> create_device_batch(std::size_t capacity, int device);
/// Waits until the copy from staging piece `k` (0 or 1) has finished.
void wait_staging(DeviceBatchStore& batch, int k);
/// Copies `n` points from staging piece `k` (page-locked) to points [at, at + n), asynchronously.
void upload_piece(DeviceBatchStore& batch, int k, std::size_t at, const Point* staging,
                  std::size_t n);
/// Queues the check of points [0, count) as Octree::insert() does, for a cube of `edge`, on
/// the batch's stream after its copies; the first bad index (or all ones) lands in
/// `host_result` (page-locked).
void queue_check(DeviceBatchStore& batch, std::uint64_t count, float edge,
                 unsigned long long* host_result);
/// Waits for the last queue_check(): returns the first bad point's index (its value in `bad`),
/// or `count`. Afterwards every copy into the batch has landed.
std::uint64_t finish_check(DeviceBatchStore& batch, std::uint64_t count,
                           const unsigned long long* host_result, Point* bad);
/// Copies into the batch from now on wait (on the device) for the last insert that read it.
void reuse_device_batch(DeviceBatchStore& batch);

// The renderer and its framebuffer (kernels/render/).
[[nodiscard]] Owned<Framebuffer> create_framebuffer(std::uint32_t width, std::uint32_t height,
                                                    int device);
/// Queues a frame (selection, splatting and resolve) on the framebuffer's stream, after the
/// store's last batch and, when `external`, after what is queued on `stream` now; the store's
/// next batch, and then `stream` when `external`, wait for the frame on the device.
void render_async(const TreeStore& store, const RenderJob& job, Framebuffer& fb, void* stream,
                  bool external);
/// Waits for the last frame render_async() queued on `fb` and returns its statistics.
[[nodiscard]] RenderStats frame_stats(Framebuffer& fb);
[[nodiscard]] int device_of(const Framebuffer& fb);
double resolve(Framebuffer& fb, const ResolveSettings& settings);
[[nodiscard]] std::vector<std::uint8_t> download(const Framebuffer& fb);
[[nodiscard]] std::vector<std::uint64_t> download_words(const Framebuffer& fb);
void wrap_device_rgba8(Framebuffer& fb, void* d_pixels, std::size_t pitch_bytes);

// Device and host memory (kernels/common/).
[[nodiscard]] int device_count();
[[nodiscard]] std::string unavailable_reason();
[[nodiscard]] std::string device_description();
/// Page-locked host memory, or nullptr when the driver refuses.
[[nodiscard]] void* allocate_pinned(std::size_t bytes) noexcept;
void free_pinned(void* p) noexcept;

}  // namespace simlod::detail::cuda
