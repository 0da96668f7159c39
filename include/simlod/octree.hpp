// simlod::Octree: a level-of-detail octree that accepts batches of points at any time.
//
// Leaves hold up to max_points_per_leaf original points; inner nodes hold voxels sampled on a
// voxel_grid^3 grid (a voxel reads back as a Point at its cell centre with the colour of the
// first point that landed in the cell, or its Sampling filter's; it is stored as its cell and
// RGB colour, detail/voxel_codec.hpp). The octree is a move-only owner of its (device or host)
// memory.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "simlod/attributes.hpp"
#include "simlod/backend.hpp"
#include "simlod/bounds.hpp"
#include "simlod/device_stream.hpp"
#include "simlod/point.hpp"

namespace simlod {

/// How a voxel gets its colour from the original points below its cell
/// (include/simlod/detail/sampling.hpp states the arithmetic).
enum class Sampling {
  /// The colour of the first point (or child voxel) that reaches the cell: no extra memory
  /// or work, but order-dependent, and in a race on the GPU.
  FirstCome,
  /// The colour of one of the cell's points, each about equally likely: the point with the
  /// largest hash of (position, sampling_seed). Independent of the order, the batching, the
  /// builder and the backend; the incremental builder keeps it exact batch by batch.
  Random,
  /// The mean colour of every point below the cell (exact integer sums, each channel rounded
  /// half up): smooth, and identical in every builder and backend; the incremental builder
  /// keeps it exact batch by batch.
  Average,
  /// Every sample (a child's point or voxel) adds its colour to the up to 2x2x2 occupied cells
  /// nearest to it, weighted by 1 - its distance to their centres in cells (CudaLOD's
  /// weighted filter): smoother than Average across cell borders, no cell without a sample
  /// gets a voxel. Identical in every backend. It does not decompose per batch: the incremental
  /// builder writes first-come colours and Octree::finalize() computes the weighted ones.
  Weighted,
};

/// How a leaf stores its points (include/simlod/detail/point_codec.hpp).
enum class PointEncoding {
  /// The input points as they are: 16 bytes, exact.
  Float32,
  /// 16 bits per axis within the leaf plus the colour: 10 bytes, so a chunk holds 1.6 times as
  /// many points. A point is rounded when it first goes into a leaf, at level L say, to the
  /// nearest of 2^16 steps across the leaf per axis: it reads back (render, snapshot(),
  /// read_node()) within half a step, edge / 2^(L + 17) (a whole step on the leaf's upper
  /// faces), e.g. 0.24 mm in a leaf at level 6 of a 2 km cube, and keeps that position when
  /// its leaf splits later. Deeper than level 15 a step is the tree's integer unit, edge / 2^31.
  /// Voxels, colours and channel records are unchanged. The position a point keeps depends on
  /// the leaf it first went into, so build() (which puts points straight into their final
  /// leaves, as one batch does) keeps them finer than a batch-by-batch build of the same
  /// points, whose positions, voxel cells and, where a rounded point crossed the border of a
  /// later split, leaves may differ from build()'s. Both backends give the same tree for the
  /// same batches.
  Quantized16,
};

struct OctreeConfig {
  Backend backend = Backend::Auto;
  std::uint32_t max_points_per_leaf = 50'000;  ///< SimLOD: 50k
  std::uint32_t voxel_grid = 128;              ///< cells per axis of an inner node; power of 2
  /// Points per storage chunk (SimLOD: 1000; at least 8); a chunk of an inner node holds about
  /// 2.7 times as many compact voxels in the same bytes (OctreeStats::voxels_per_chunk), and a
  /// chunk of occupancy bricks (OctreeStats::chunks_bricks) 1000 / 4 of them.
  std::uint32_t chunk_capacity = 1000;
  /// How leaves store their points: exact floats (default) or 16 bits per axis within the leaf
  /// (about 10 instead of 16 bytes a point; see PointEncoding for the precision).
  PointEncoding point_encoding = PointEncoding::Float32;
  /// CUDA: share of free device memory the octree may grow into. create() reserves that much
  /// address space and backs it with memory only as the tree grows (by half of what it holds,
  /// at least 256 MiB at a time), so the rest stays free for the application until the octree
  /// needs it.
  double memory_fraction = 0.8;
  /// Memory reserve in bytes for nodes, chunks and grids; 0 = memory_fraction of free device
  /// memory (CUDA) or no limit but the host's (CPU). A batch that would not fit goes in as
  /// smaller pieces; see update(). The CPU backend's per-batch working
  /// memory (about 32 bytes per point of the batch being inserted) comes on top.
  std::uint64_t memory_bytes = 0;
  /// CUDA: back the whole reserve with device memory at create(), as one allocation would,
  /// instead of as the tree grows. No batch then waits for memory to be backed (about 14 steps
  /// of a few tenths of a millisecond over a 10^8-point build), but the octree holds all of
  /// memory_bytes (or memory_fraction of the device) from the start: set memory_bytes too.
  bool back_memory_at_create = false;
  std::uint32_t max_batch_points = 1u << 20;  ///< larger inserts are split into such batches
  unsigned cpu_threads = 0;                   ///< CPU backend threads (0 = hardware threads)
  /// Voxel colours. Both builders keep every filter, on both backends: the incremental builder
  /// (insert, update) keeps Random and Average exact with a voxel index
  /// (OctreeStats::bytes_filter), and Weighted through finalize().
  Sampling sampling = Sampling::FirstCome;
  std::uint32_t sampling_seed = 1;  ///< Sampling::Random: the hash seed (any value)
  /// Attributes the octree keeps beside every sample (attribute_bit() of each; none by
  /// default), so that rasterize() can colour by them (View::color) and snapshots return them.
  /// A leaf keeps its points' attributes; a voxel's follow its sampling (below). Batches then
  /// go in with insert(points, attributes). Memory: each sample
  /// takes the channels' record on top of its 16 bytes (detail/channels.hpp; e.g. 4 bytes for
  /// intensity + classification, OctreeStats::bytes_channels). Voxel attributes by sampling:
  /// - FirstCome and Random: the record of the point whose colour the voxel took
  ///   (detail/sampling.hpp breaks Random's ties), on both backends;
  /// - Average: intensity and NIR are the means of the points below the cell,
  ///   classification their mode (ties to the smaller class), every other attribute that of
  ///   the point Random would pick, so that they belong to one measured point
  ///   (detail/channels.hpp); both backends, exact batch by batch. The voxel index then takes
  ///   about 140 bytes per voxel, and with classification 16-byte class counts
  ///   per (voxel, class) in a table at most half full; grids of at most 256 cells a side
  ///   with classification;
  /// - Weighted: Average's rules for the channels (exact batch by batch); the colours come
  ///   from finalize() as without channels, into the voxels beside their records.
  /// The incremental builder (insert, insert_now, update) and build(points, attributes, ...)
  /// keep them.
  AttributeMask channels = 0;
  /// CUDA: the device the octree lives on (its memory, stream and kernels); every call sets
  /// it for its duration and restores the caller's current device. Framebuffers that draw the
  /// octree must be on the same device.
  int device = 0;
};

/// Octree::compact()'s chunk capacity: a quarter of OctreeConfig's default (4 KiB chunks of
/// points), which keeps the leaves' partly filled last chunks near 1% of the points' bytes.
inline constexpr std::uint32_t kCompactChunkCapacity = 256;
/// The same for PointEncoding::Quantized16 leaves: chunks of 320 x 16 bytes, which hold 512
/// quantised points, two full rounds of the CUDA renderer's 256-thread blocks (the 409 points
/// of a 256-capacity chunk take two rounds too, the second 60% full: close-ups measured 6-14%
/// slower).
inline constexpr std::uint32_t kCompactChunkCapacityQuantized = 320;

/// compact()'s default chunk capacity for leaves of `encoding`.
constexpr std::uint32_t compact_chunk_capacity(PointEncoding encoding) {
  return encoding == PointEncoding::Quantized16 ? kCompactChunkCapacityQuantized
                                                : kCompactChunkCapacity;
}

struct UpdateStats {
  std::uint64_t batches = 0;       ///< batches inserted by this update() call
  std::uint64_t points = 0;        ///< points inserted by this call
  std::uint64_t batches_left = 0;  ///< still queued after the call
  std::chrono::microseconds duration{0};
  /// Expand (count/split) passes of the last batch: 1 when no leaf split, +1 per pass that
  /// split at least one leaf.
  std::uint32_t split_rounds = 0;
  /// Batches that did not fit at once and went in as smaller pieces (memory ran short).
  std::uint64_t pieces = 0;
  /// CUDA: device time of this call's batches from CUDA events, summed: the upload (copy into
  /// pinned staging memory and to the device; for a prefetched batch, the wait for its copy)
  /// and everything after it (expand, sample, allocate, insert). 0 on the CPU backend.
  double device_upload_ms = 0.0, device_update_ms = 0.0;
};

/// What Octree::build() measured (all zero for an octree made by create()).
struct BuildStats {
  std::uint64_t points = 0;  ///< points built
  /// Split: points sorted or counted into their leaves and written there. Voxelize: the inner
  /// nodes' voxels, bottom-up. CUDA: device time from CUDA events around the kernels (the
  /// input already on the device); CPU: host time.
  double split_ms = 0.0, voxelize_ms = 0.0;
  /// The whole build() call: validation, upload (a host span on CUDA), split, voxelize.
  double total_ms = 0.0;
  /// Peak working memory beyond the finished tree and the input points (CUDA: device memory).
  std::uint64_t scratch_bytes = 0;
  /// Of scratch_bytes: the voxel colours' accumulators at their peak (two levels at a time;
  /// CUDA: the filtered levels' accumulators and cell index, 0 for FirstCome).
  std::uint64_t filter_bytes = 0;
};

struct OctreeStats {
  std::uint64_t nodes = 0, leaves = 0, inner_nodes = 0;
  std::uint32_t depth = 0;  ///< deepest level (root = 0)
  std::uint64_t points = 0, voxels = 0;
  /// Chunks in node lists, chunks in the pool (freed by splits, reused first), and all chunks
  /// taken (these two and chunks_bricks).
  std::uint64_t chunks_used = 0, chunks_pooled = 0, chunks_allocated = 0;
  /// Occupancy, block-sparse: the 8^3-cell bricks (64-byte masks) with a set cell, and the
  /// chunks that hold them (detail/occupancy_codec.hpp). Both backends.
  std::uint64_t bricks = 0, chunks_bricks = 0;
  /// Samples a chunk holds: points (a leaf's: OctreeConfig::chunk_capacity, about 1.6 times as
  /// many with PointEncoding::Quantized16) and voxels (an
  /// inner node's). Every chunk has the same size; voxels are stored as their cell and RGB
  /// colour (6 bytes at grids of up to 256 cells a side, detail/voxel_codec.hpp), so a chunk
  /// holds about 2.7 times as many voxels as points (fewer with channels). Both backends.
  std::uint32_t points_per_chunk = 0, voxels_per_chunk = 0;
  /// Bytes held by used chunks of leaves (points) and inner nodes (voxels), occupancy grids
  /// (the inner nodes' slot tables and the chunks of their bricks) and node records.
  std::uint64_t bytes_points = 0, bytes_voxels = 0, bytes_grids = 0, bytes_nodes = 0;
  /// Bytes of the voxel index that keeps filtered colours exact while batches go in
  /// (Sampling::Random, Average on the incremental builder; 0 otherwise).
  std::uint64_t bytes_filter = 0;
  /// The memory reserve (CPU without memory_bytes: no limit, reported as the bytes held), and
  /// what of it is not yet used by points, voxels, grids and nodes (pooled chunks count as free).
  std::uint64_t bytes_reserved = 0, bytes_free = 0;
  std::uint64_t batches_queued = 0;
  /// Octree::compact() finished the tree: no occupancy grids, no pool; it takes no more points.
  bool compacted = false;
  /// CUDA: times the reserve was backed with more device memory since create(), and the host
  /// time those steps took (a batch that needs a step waits for it). 0 on the CPU backend.
  std::uint64_t memory_grow_steps = 0;
  double memory_grow_ms = 0.0;
  /// Bytes each attribute channel takes in the used chunks (points and voxels), indexed by
  /// Attribute; included in bytes_points and bytes_voxels. Zero for attributes not kept.
  std::array<std::uint64_t, kAttributeCount> bytes_channels{};
  /// The last update() or insert_now() call, also when it threw.
  UpdateStats last_update;
  /// The bulk build that made this octree (Octree::build); zero after create().
  BuildStats build;
  /// The last finalize() that computed colours (Sampling::Weighted); zero before one did.
  /// CUDA: the bulk build of the stored points (split and voxelize device times; scratch_bytes
  /// includes the 16 bytes per point of the gathered points); CPU: voxelize_ms re-voxelizes
  /// in place. total_ms: the whole call.
  BuildStats finalize;
};

/// Host copy of the whole tree, for tests, export and debugging.
///
/// Canonical comparison (CPU vs CUDA, or two batchings of the same input): node indices and the
/// order of points/voxels inside a node are not specified. Key nodes by (level, position);
/// compare leaf flags, points as multisets, and voxels by position as multisets (the position
/// is the cell centre, detail::cell_centre_axis, so equal cell sets give equal positions).
/// First-come voxel colours may differ (each is the colour of some point of that cell).
struct NodeSnapshot {
  struct Node {
    std::uint32_t level = 0;
    std::array<std::uint32_t, 3> position{};  ///< integer position at its level
    Bounds bounds;                            ///< in octree coordinates (origin = cube min)
    bool leaf = true;
    std::array<std::int32_t, 8> children{-1, -1, -1, -1, -1, -1, -1, -1};  ///< snapshot indices
    std::vector<Point> points;  ///< leaves: original points
    std::vector<Point> voxels;  ///< inner nodes: one per occupied cell, at the cell centre
    /// The attribute channels (NodeSnapshot::channels) of the points (leaf) or voxels (inner
    /// node), element i beside sample i; empty arrays for attributes not kept.
    PointAttributes attributes;
  };
  Bounds cube;                 ///< file coordinates of the root cube
  AttributeMask channels = 0;  ///< OctreeConfig::channels of the octree
  std::vector<Node> nodes;     ///< nodes[0] is the root
};

/// One node as the node reader reports it (Octree::for_each_node): the record, no samples.
struct NodeInfo {
  std::uint32_t id = 0;  ///< for read_node(); stable until the next update()
  std::uint32_t level = 0;
  std::array<std::uint32_t, 3> position{};  ///< integer position at its level
  Bounds bounds;                            ///< in octree coordinates (origin = cube min)
  bool leaf = true;
  std::array<std::int64_t, 8> children{-1, -1, -1, -1, -1, -1, -1, -1};  ///< node ids
  std::uint64_t samples = 0;  ///< points (leaf) or voxels (inner node)
};

/// A point that Octree::insert() refuses (Octree::find_bad_point).
struct BadPoint {
  std::size_t index = 0;  ///< in the batch
  std::string reason;     ///< e.g. "(1, nan, 2) is not finite"
};

class PinnedBatch;   // host_batch.hpp
class DeviceBatch;   // device_batch.hpp
class Framebuffer;   // framebuffer.hpp
struct View;         // view.hpp
struct RenderStats;  // render.hpp

namespace detail {
struct OctreeImpl;
}  // namespace detail

/// Not thread-safe: call one method at a time (the backends use their own threads inside).
/// A moved-from Octree throws InvalidInput from every method until it is assigned a new one.
class Octree {
 public:
  /// Creates an empty octree over `cube` (file coordinates; made a cube by Bounds::cube()).
  /// A cube of zero size (bounds of one point) is widened to an edge of 1.
  /// Throws InvalidInput for a bad configuration or an empty/non-finite cube, CudaError when
  /// Backend::Cuda is requested without a device, CapacityError when memory cannot be reserved.
  static Octree create(const Bounds& cube, const OctreeConfig& config = {});

  /// Builds the octree of `points` in one go (the bulk builder: all points are split into
  /// their leaves at once, then the inner nodes are voxelized bottom-up), much faster than
  /// inserting them batch by batch. `points` are relative to root_cube(cube).min, as insert()
  /// takes them. The result equals create(cube, config) followed by insert() and update() of
  /// the same points (the same nodes, the same points per leaf, the same voxel cells; first-come
  /// voxel colours may come from other points of their cell; with PointEncoding::Quantized16,
  /// inserted as one batch, of at most max_batch_points, since batches change how points are
  /// rounded), and it is a normal octree: it renders, and update() inserts more batches into it
  /// (with Random or Average colours, the voxel index that keeps them exact is made at the
  /// first batch). stats().build holds the timings.
  /// Blocks until done. Throws InvalidInput for a bad configuration, an empty span or a bad
  /// point (naming its index), CapacityError when the tree does not fit into the memory
  /// reserve (config.memory_bytes, or memory_fraction of the device's free memory after the
  /// input was uploaded) or host memory; nothing is left allocated then.
  static Octree build(std::span<const Point> points, const Bounds& cube,
                      const OctreeConfig& config = {});
  /// The same for an octree with attribute channels (config.channels; the call without
  /// attributes refuses them): `attributes` holds every attribute of config.channels for each
  /// point, and the tree is the one insert(points, attributes) gives: leaves keep their
  /// points' attributes, voxels those of the point whose colour they took (FirstCome: the
  /// first sample's; Random: the winner's, equal to the incremental builder's), on both
  /// backends by the bulk builder. Average's and Weighted's channels (means, class modes) run
  /// the incremental builder (the same tree, at the incremental rate; stats().build holds
  /// total_ms only; Weighted finalize()s).
  /// Throws InvalidInput as build() does, and for a missing or short attribute array.
  static Octree build(std::span<const Point> points, const PointAttributes& attributes,
                      const Bounds& cube, const OctreeConfig& config = {});
  /// The same for points already on the octree's device (config.device), without an upload:
  /// `points` must be a DeviceBatch of that device. The batch is left as it was.
  static Octree build(DeviceBatch& points, const Bounds& cube, const OctreeConfig& config = {});

  /// The root cube create(bounds) gives the octree (cube() afterwards): Bounds::cube() of
  /// `bounds`, widened to an edge of 1 when of zero size. Throws InvalidInput as create() does
  /// for empty or non-finite bounds or an edge outside the float range. For callers that
  /// prepare points (origin = the cube's min corner) before the octree exists.
  [[nodiscard]] static Bounds root_cube(const Bounds& bounds);
  /// The first point of `batch` that insert() into an octree over `cube` (its cube(), or
  /// root_cube()) refuses: not finite, or outside [0, edge] per axis; nullopt when every point
  /// is good. Touches no octree: any thread may call it at any time.
  [[nodiscard]] static std::optional<BadPoint> find_bad_point(std::span<const Point> batch,
                                                              const Bounds& cube);

  Octree(Octree&&) noexcept;
  Octree& operator=(Octree&&) noexcept;
  ~Octree();

  /// Queues a batch (copied before return; an empty batch queues nothing). Coordinates are
  /// relative to cube().min and must lie in [0, edge] per axis, edge = the cube's edge as float.
  /// Batches larger than config().max_batch_points are queued as several batches. Throws
  /// InvalidInput naming the first bad point (non-finite, outside the cube); then nothing of
  /// the batch is queued.
  void insert(std::span<const Point> batch);
  /// The same for an octree with attribute channels (config().channels): `attributes` holds,
  /// beside the points, an array of at least batch.size() values for every attribute kept
  /// (others are ignored), as a reader returns them (ReaderOptions::attributes). Throws
  /// InvalidInput naming the first bad point or an attribute that is missing or too short;
  /// then nothing is queued. insert(batch) without attributes is refused on such an octree.
  void insert(std::span<const Point> batch, const PointAttributes& attributes);

  /// Inserts queued batches in order until `budget` is spent (0 = all of them); at least one
  /// batch per call when any is queued. Blocks until done. A batch whose memory is not free
  /// goes in as smaller pieces (UpdateStats::pieces); the CUDA backend first backs more of its
  /// reserve with device memory. When not even one point fits (the device or memory_bytes is
  /// full), update() throws CapacityError: the points that did not go in stay queued, in order
  /// (update() tries them again; discard_queued() drops them), and the octree stays usable.
  UpdateStats update(std::chrono::microseconds budget = std::chrono::microseconds{0});

  /// Inserts `batch` at once from the caller's memory, without copying it into the queue:
  /// for callers that own their batch buffers (the Streamer's ring, PinnedBatch). Same
  /// semantics as update() of that batch: batches larger than config().max_batch_points go in
  /// as several, a batch whose memory is not free goes in as smaller pieces. Blocks until
  /// done; the memory may be reused when it returns. Sets stats().last_update, also when it
  /// throws. Throws
  /// - InvalidInput naming the first bad point (as insert()), or when batches are queued
  ///   (update() or discard_queued() them first: the order of batches stays the caller's):
  ///   then nothing of the batch went in;
  /// - CapacityError when not even one point fits: CapacityError::points_inserted() of the
  ///   batch's first points went in, the rest is the caller's to retry or drop; the octree
  ///   stays usable.
  UpdateStats insert_now(std::span<const Point> batch);
  /// The same for a PinnedBatch, whose points checked by PinnedBatch::check() against this
  /// octree's cube are not checked again (the rest is).
  UpdateStats insert_now(const PinnedBatch& batch);
  /// insert_now() of an octree with attribute channels: `attributes` as for insert(points,
  /// attributes) (InvalidInput when one is missing or short; nothing goes in then).
  UpdateStats insert_now(std::span<const Point> batch, const PointAttributes& attributes);
  UpdateStats insert_now(const PinnedBatch& batch, const PointAttributes& attributes);
  /// The same for a DeviceBatch (device_batch.hpp) on this CUDA octree's device: no upload;
  /// the points are checked on the device (DeviceBatch::check(), unless that found them good
  /// for this cube already), and the batch may be clear()ed and refilled as soon as this
  /// returns (its new copies wait for this insert on the device). Also throws InvalidInput for
  /// a CPU octree or another device. On CapacityError the points after points_inserted() stay
  /// in the batch.
  UpdateStats insert_now(DeviceBatch& batch);

  /// Starts moving `batch` (at most config().max_batch_points) to where the next insert_now()
  /// of the same span reads it (CUDA: an asynchronous copy into one of the device's batch
  /// buffers), so that the copy overlaps with the work done meanwhile (rendering, inserting
  /// the batch before). Returns at once. The memory must stay valid and unchanged until
  /// insert_now() of the span returned, or, if it is never inserted, until the octree is
  /// destroyed. The backend keeps a few batches in flight (a later prefetch replaces the
  /// oldest); insert_now() of a span that is not in flight uploads it in line. Pays off only
  /// for page-locked memory (PinnedBatch, host_batch.hpp): the driver copies ordinary memory
  /// before it returns. Does nothing on the CPU backend, which reads batches in place.
  void prefetch(std::span<const Point> batch);

  /// update() for an application that runs its own CUDA work beside the octree: the batches'
  /// device work runs after what was queued on `stream` before the call, and work queued on
  /// `stream` afterwards sees the tree with these batches (it waits on the device, through an
  /// event, not on the host). The host still waits inside each batch where the memory plan
  /// needs counts back from the device. On the CPU backend the same as update().
  UpdateStats update_async(DeviceStream stream,
                           std::chrono::microseconds budget = std::chrono::microseconds{0});

  /// Sampling::Weighted: computes the voxel colours that batches inserted since the last call
  /// left first-come (bottom-up from the stored points, as build() does; the result equals
  /// build() of the same points). The CPU recomputes the colours in place; CUDA builds the tree
  /// of the stored points again with the bulk builder, beside the old one, and then frees the
  /// old one (node ids change; the nodes, points and voxel cells do not). Nothing to do for the
  /// other filters, or when no batch went in since. The Streamer calls it when its last batch
  /// is in. Blocks until done. Throws CapacityError when memory runs out (the octree then stays
  /// as it was, with first-come colours).
  void finalize();

  /// Drops every queued batch; returns the points dropped.
  std::uint64_t discard_queued();

  /// Finishes the tree: moves every node's samples, in order, into a new store of chunks of
  /// `chunk_capacity` points (a leaf's last chunk is partly empty, so smaller chunks waste
  /// less; an inner node's chunk holds about 2.7 times as many voxels) and frees what only
  /// further batches need: the occupancy grids, the voxel index of Random and Average, the
  /// chunk pool and the builder's working memory. Weighted's colours are computed first
  /// (finalize()). The nodes, their samples and their order stay (the renderer draws the same
  /// picture, snapshots and the node reader return the same samples); node ids stay;
  /// config().chunk_capacity becomes `chunk_capacity`; stats().compacted is set. Afterwards
  /// the octree takes no more points: insert(), insert_now() and prefetch() throw
  /// InvalidInput. Calling it again re-chunks the tree. Peak memory: the tree twice (the new
  /// store is filled beside the old one). Blocks until done. Throws InvalidInput when
  /// batches are queued (update() or discard_queued() them first) or for a chunk_capacity
  /// create() would refuse, CapacityError when the new store does not fit (memory_bytes, host
  /// or device memory): the octree then stays as it was.
  void compact(std::uint32_t chunk_capacity);
  /// compact() with the default chunk capacity of the leaves' encoding
  /// (compact_chunk_capacity(config().point_encoding): 256, or 320 for Quantized16).
  void compact();

  [[nodiscard]] OctreeStats stats() const;
  /// Copies the whole tree to the host (nodes[0] = root); for tests, export and debugging.
  [[nodiscard]] NodeSnapshot snapshot() const;
  /// The node reader: calls `visit` once per node (root first, then in id order) with its
  /// record, without copying samples; for export and queries that stream the tree. On CUDA it
  /// copies the node tables (about 40 bytes a node) to the host once per call.
  void for_each_node(const std::function<void(const NodeInfo&)>& visit) const;
  /// Copies samples [first, first + out.size()) of node `id` (points of a leaf, voxels of an
  /// inner node, in storage order) into `out`; returns how many it copied (fewer at the end of
  /// the node). Throws InvalidInput for an id that is not a node.
  std::uint64_t read_node(std::uint32_t id, std::span<Point> out, std::uint64_t first = 0) const;
  /// The same, and `attributes` is set to the attribute channels (config().channels) of the
  /// samples copied, element i beside out[i] (empty arrays without channels).
  std::uint64_t read_node(std::uint32_t id, std::span<Point> out, std::uint64_t first,
                          PointAttributes& attributes) const;
  /// The root cube in file coordinates (Bounds::cube() of the bounds given to create()).
  [[nodiscard]] const Bounds& cube() const;
  /// The backend that runs (Backend::Auto resolved).
  [[nodiscard]] Backend backend() const;
  /// The configuration as validated, with `backend` resolved.
  [[nodiscard]] const OctreeConfig& config() const;

 private:
  /// insert_now() of a batch whose first `checked` points need no check.
  UpdateStats insert_now(std::span<const Point> batch, std::size_t checked,
                         const PointAttributes* attributes = nullptr);
  // The renderer (render.hpp) draws the store behind the facade.
  friend RenderStats rasterize(const Octree& octree, const View& view, Framebuffer& fb);
  friend void rasterize_async(const Octree& octree, const View& view, Framebuffer& fb,
                              DeviceStream stream);
  explicit Octree(std::unique_ptr<detail::OctreeImpl> impl);
  /// The state; throws InvalidInput when used after a move.
  [[nodiscard]] detail::OctreeImpl& impl() const;
  std::unique_ptr<detail::OctreeImpl> impl_;  ///< queue, geometry and backend (src/core)
};

}  // namespace simlod
