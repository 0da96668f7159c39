// The CUDA bulk builder's driver (kernels/entry.hpp build_bulk): the passes of
// kernels/bulk/bulk_passes.hpp in order on the store's stream, the few read-backs that size
// the next step (one per counting round, one for the layout, one per voxelized level),
// the memory checks before anything is written to the arena's chunks, and the tree's counters.
#include <algorithm>
#include <cub/device/device_scan.cuh>
#include <string>
#include <vector>

#include "kernels/bulk/bulk_passes.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/staged_copy.cuh"
#include "kernels/tree/store.cuh"
#include "kernels/tuning.hpp"
#include "kernels/update/device_batch.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace bulk {
namespace {

/// Device scratch that grows and keeps its contents.
class Buffer {
 public:
  explicit Buffer(std::string what) : what_(std::move(what)) {}
  template <class T>
  T* as() const {
    return static_cast<T*>(mem_.get());
  }
  [[nodiscard]] std::uint64_t bytes() const { return bytes_; }
  /// At least `bytes`, keeping the first `keep` bytes (copied on `s`).
  void reserve(std::uint64_t bytes, std::uint64_t keep, cudaStream_t s) {
    if (bytes <= bytes_) return;
    bytes = std::max(bytes, bytes_ + bytes_ / 2);
    DeviceMemory fresh = make_device(bytes, what_);
    if (keep > 0) {
      SIMLOD_CUDA_CHECK(
          cudaMemcpyAsync(fresh.get(), mem_.get(), keep, cudaMemcpyDeviceToDevice, s));
    }
    if (mem_.get() != nullptr) {
      SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s));  // the old memory may be in use
    }
    mem_ = std::move(fresh);
    bytes_ = bytes;
  }

 private:
  std::string what_;
  DeviceMemory mem_;
  std::uint64_t bytes_ = 0;
};

/// uint32 words: the driver's read-back buffer; the counters after the inner node list.
constexpr std::uint32_t kReadbackWords = 128;
constexpr std::uint32_t kCounterWords = 4;

class Driver {
 public:
  /// `d_records`: the points' channel records (t.writer.record_bytes each), or nullptr;
  /// `quantized_input`: build_bulk()'s.
  Driver(TreeStore& t, const Point* d_points, const std::byte* d_records, std::uint32_t n,
         bool quantized_input)
      : t_(t),
        s_(t.stream_handle()),
        n_(n),
        readback_(make_pinned(kReadbackWords * sizeof(std::uint32_t))) {
    v_ = BulkView{};
    v_.tree = t.writer;
    v_.d_points = d_points;
    v_.quantized_input = quantized_input;
    v_.d_records = d_records;
    v_.points = n;
    v_.limit = t.config.max_points_per_leaf;
    v_.max_depth = t.geometry.max_depth;
    root_levels_ = std::min(kBulkRootLevels, t.geometry.max_depth);
    // Inner nodes of one level hold more than the limit each, and they are disjoint.
    const std::uint64_t inner_bound = std::min<std::uint64_t>(
        t.layout.max_splits, std::uint64_t{t.geometry.max_depth} * (n / (v_.limit + 1ull)));
    node_bound_ = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(t.layout.max_nodes, 1 + 8 * inner_bound));
    inner_bound_ = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, inner_bound));
  }

  void run(BuildStats& stats) {
    const EventHandle start = make_event(), split = make_event(), end = make_event();
    SIMLOD_CUDA_CHECK(cudaEventRecord(start.get(), s_));
    count();
    layout();
    place_points();
    SIMLOD_CUDA_CHECK(cudaEventRecord(split.get(), s_));
    voxelize();
    compact_grids();
    SIMLOD_CUDA_CHECK(cudaEventRecord(end.get(), s_));
    finish();
    stats.split_ms = elapsed_ms(start.get(), split.get());
    stats.voxelize_ms = elapsed_ms(split.get(), end.get());
    stats.scratch_bytes = scratch_bytes();
    stats.filter_bytes = acc_[0].bytes() + acc_[1].bytes() + groups_.bytes();
  }

 private:
  std::uint32_t* host() const { return static_cast<std::uint32_t*>(readback_.get()); }
  void sync() { SIMLOD_CUDA_CHECK(cudaStreamSynchronize(s_)); }
  /// Copies `count` uint32 from the device to host()[at ...].
  void read(const std::uint32_t* d, std::uint32_t count, std::uint32_t at) {
    SIMLOD_CUDA_CHECK(cudaMemcpyAsync(host() + at, d, count * 4, cudaMemcpyDeviceToHost, s_));
  }
  void zero(void* d, std::uint64_t bytes, int value = 0) {
    if (bytes > 0) SIMLOD_CUDA_CHECK(cudaMemsetAsync(d, value, bytes, s_));
  }

  std::uint64_t scratch_bytes() const {
    std::uint64_t sum = 0;
    for (const Buffer* b :
         {&blocks_, &count_, &node_, &link_, &per_node_, &inner_, &owner_, &emit_[0], &emit_[1],
          &sources_, &acc_[0], &acc_[1], &groups_, &cub_, &bricks_, &slots_}) {
      sum += b->bytes();
    }
    return sum;
  }

  [[noreturn]] void refuse(const std::string& what) const {
    throw CapacityError("the octree of " + std::to_string(n_) + " points does not fit into the " +
                        "device memory reserve of " + std::to_string(t_.layout.total_bytes) +
                        " bytes: " + what + "; nothing was built");
  }

  void allocate_nodes() {
    // Per node: block, index, flags, ranks, cursor, chunks (6 x uint32).
    per_node_.reserve(std::uint64_t{node_bound_} * 24, 0, s_);
    auto* base = per_node_.as<std::uint32_t>();
    v_.d_block_of = base;
    v_.d_index_of = base + node_bound_;
    v_.d_flags = base + 2ull * node_bound_;
    v_.d_ranks = base + 3ull * node_bound_;
    v_.d_cursor = base + 4ull * node_bound_;
    v_.d_chunks = base + 5ull * node_bound_;
    zero(base, per_node_.bytes());
    inner_.reserve((std::uint64_t{inner_bound_} + kCounterWords + kLayoutWords) * 4, 0, s_);
    v_.d_inner = inner_.as<std::uint32_t>();
    v_.d_counter = v_.d_inner + inner_bound_;
    // The scans' scratch: the nodes', and the bricks' (compact_grids()) at their bound, so
    // that neither grows it later (growing waits for the device).
    std::size_t bytes = 0, brick_bytes = 0;
    SIMLOD_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(nullptr, bytes, v_.d_flags, v_.d_chunks, node_bound_, s_));
    const std::uint64_t bricks = brick_step(inner_bound_).most + 1;
    SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, brick_bytes, v_.d_flags, v_.d_chunks,
                                                    static_cast<int>(bricks), s_));
    cub_.reserve(std::max(bytes, brick_bytes), 0, s_);
  }

  /// Exclusive sum of d_flags[0, n) into `out` (d_chunks unless said).
  void scan(std::uint32_t n, std::uint32_t* out = nullptr) {
    std::size_t bytes = cub_.bytes();
    SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cub_.as<void>(), bytes, v_.d_flags,
                                                    out != nullptr ? out : v_.d_chunks, n, s_));
  }

  static std::uint64_t block_entries(std::uint32_t root_levels, std::uint64_t blocks) {
    return pyramid_size(root_levels) + (blocks - 1) * pyramid_size(kBulkBlockLevels);
  }

  /// `blocks` counter blocks in use (the contents so far kept), in buffers with room for
  /// `room` of them; the cells' node and link entries too unless `links` is false (then
  /// reserve_links() follows).
  void reserve_blocks(std::uint32_t blocks, std::uint64_t room = 0, bool links = true) {
    const std::uint64_t old_entries = entries_;
    entries_ = block_entries(root_levels_, blocks);
    room = std::max<std::uint64_t>(room, blocks);
    const std::uint64_t room_entries = block_entries(root_levels_, room);
    if (room_entries > kNil) {  // the counters are indexed in 32 bits
      refuse("its counting rounds need " + std::to_string(blocks) + " blocks of counters");
    }
    blocks_.reserve(room * sizeof(CountBlock), std::uint64_t{block_count_} * sizeof(CountBlock),
                    s_);
    count_.reserve(room_entries * 4, old_entries * 4, s_);
    v_.d_blocks = blocks_.as<CountBlock>();
    v_.d_count = count_.as<std::uint32_t>();
    zero(v_.d_count + old_entries, (entries_ - old_entries) * 4);
    if (links) reserve_links(old_entries, room_entries);
  }

  /// The node and link entries of the counters (kNil where none), as reserve_blocks() left
  /// them: `old_entries` kept, room for `room_entries`.
  void reserve_links(std::uint64_t old_entries, std::uint64_t room_entries) {
    for (Buffer* b : {&node_, &link_}) b->reserve(room_entries * 4, old_entries * 4, s_);
    v_.d_node = node_.as<std::uint32_t>();
    v_.d_link = link_.as<std::uint32_t>();
    const std::uint64_t fresh = (entries_ - old_entries) * 4;
    zero(v_.d_node + old_entries, fresh, 0xFF);
    zero(v_.d_link + old_entries, fresh, 0xFF);
  }

  /// Counting rounds until no finest cell is over the limit.
  void count() {
    // Room for the blocks the first round can add (cells over the limit), up to 1 byte a
    // point, so that the second round need not wait for new buffers.
    const std::uint64_t first_round = std::min<std::uint64_t>(
        n_ / (std::uint64_t{v_.limit} + 1), n_ / (12 * pyramid_size(kBulkBlockLevels)));
    reserve_blocks(1, 1 + first_round, false);
    CountBlock root{};
    root.k = root_levels_;
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(v_.d_blocks, &root, sizeof(root), cudaMemcpyHostToDevice, s_));
    block_count_ = 1;
    // The first round needs only the counters: the other scratch is allocated while it runs
    // (the driver's allocations take the host a few hundred microseconds).
    launch_count(v_, 0, s_);
    allocate_nodes();
    reserve_links(0, block_entries(root_levels_, 1 + first_round));
    for (std::uint32_t first = 0;;) {
      if (first != 0) launch_count(v_, first, s_);
      if (first == 0) {
        // While the device counts: memory for about the points' chunks (the arena backs a
        // margin beyond it), so that placing them waits less.
        const std::uint64_t chunks = n_ / t_.layout.points.capacity + 1;
        t_.arena.back_ahead(t_.layout.dynamic_begin + chunks * t_.layout.chunk_bytes,
                            t_.layout.dynamic_end);
      }
      zero(v_.d_counter, 4);
      launch_refine(v_, first, block_count_, block_count_, root_levels_, false, s_);
      read(v_.d_counter, 1, 0);
      sync();
      const std::uint32_t add = host()[0];
      if (add == 0) break;
      reserve_blocks(block_count_ + add);
      zero(v_.d_counter, 4);
      launch_refine(v_, first, block_count_, block_count_, root_levels_, true, s_);
      first = block_count_;
      block_count_ += add;
    }
    launch_reduce(v_, block_count_, root_levels_, s_);
  }

  /// The breadth-first node layout, all levels in one launch and one read-back.
  void layout() {
    static_assert(kLayoutWords <= kReadbackWords);
    if (v_.max_depth >= kLayoutLevels) {
      refuse("its depth limit " + std::to_string(v_.max_depth) + " is above the layout's " +
             std::to_string(kLayoutLevels - 1));
    }
    std::uint32_t* d_out = v_.d_counter + kCounterWords;
    launch_layout(v_, n_, node_bound_, inner_bound_, d_out, s_);
    read(d_out, kLayoutWords, 0);
    sync();
    const std::uint32_t* h = host();
    depth_ = h[kLayoutDepth];
    if (h[kLayoutNeed] != 0) {
      refuse("it needs " + std::to_string(h[kLayoutNeed]) +
             " nodes or more, the node table holds " + std::to_string(node_bound_));
    }
    level_begin_ = {0, 1};
    inner_begin_ = {0};
    for (std::uint32_t l = 0; l < depth_; ++l) {
      level_begin_.push_back(h[kLayoutLevelBegin + l + 2]);
      inner_begin_.push_back(h[kLayoutInnerBegin + l + 1]);
    }
    level_max_.assign(h + kLayoutMax, h + kLayoutMax + depth_ + 1);
    launch_leaf_links(v_, block_count_, root_levels_, s_);
  }

  /// The leaves' chunks (after the memory check) and the points written into them.
  void place_points() {
    const std::uint32_t nodes = level_begin_.back();
    const std::uint32_t levels = static_cast<std::uint32_t>(level_begin_.size()) - 1;
    launch_leaf_chunks(v_, nodes, s_);
    scan(nodes);
    // First chunk of every level's leaves (breadth-first ids: a level is one id range), and
    // the total.
    for (std::uint32_t l = 0; l < levels; ++l) read(v_.d_chunks + level_begin_[l], 1, l);
    read(v_.d_chunks + nodes - 1, 1, levels);
    read(v_.d_flags + nodes - 1, 1, levels + 1);
    sync();
    chunk_begin_.assign(host(), host() + levels);
    point_chunks_ = std::uint64_t{host()[levels]} + host()[levels + 1];
    chunk_begin_.push_back(static_cast<std::uint32_t>(point_chunks_));
    const std::uint64_t grids = inner_begin_.back();
    high_begin_ = t_.layout.dynamic_end - grids * t_.layout.dense_grid_bytes;
    // The chunks' memory first; the grids' while the device inserts.
    const std::uint64_t low_end =
        check_chunks(point_chunks_, "the points' chunks and the inner nodes' occupancy grids");
    t_.arena.ensure(low_end, t_.arena.size());
    owner_.reserve(std::max<std::uint64_t>(4, point_chunks_ * 4), 0, s_);
    v_.d_owner = owner_.as<std::uint32_t>();
    launch_give_chunks(v_, nodes, s_);
    zero(v_.d_cursor, std::uint64_t{nodes} * 4);
    launch_insert(v_, s_);
    t_.arena.ensure(low_end, high_begin_);
    if (t_.config.sampling == Sampling::FirstCome) {
      // Also while the device inserts: the records of two levels at the most room
      // first_come_level() gives a level, so that no level waits for a larger buffer.
      const std::uint64_t room = most_records();
      for (Buffer& b : emit_) b.reserve(room * sizeof(VoxelRecord), 0, s_);
      if (v_.d_records != nullptr) sources_.reserve(room * sizeof(std::uint64_t), 0, s_);
    } else {
      reserve_index(inner_begin_.back());  // the filters' voxel index of all levels' grids
    }
    reserve_bricks(inner_begin_.back());
  }

  /// Throws CapacityError unless `chunks` fit below the grids; returns where they end.
  std::uint64_t check_chunks(std::uint64_t chunks, const std::string& what) const {
    const std::uint64_t low_end = t_.layout.dynamic_begin + chunks * t_.layout.chunk_bytes;
    if (chunks > t_.layout.max_chunks || low_end > high_begin_ ||
        high_begin_ < t_.layout.dynamic_begin) {
      refuse(std::to_string(chunks) + " chunks of " + std::to_string(t_.layout.chunk_bytes) +
             " bytes and " + std::to_string(inner_begin_.back()) + " grids of " +
             std::to_string(t_.layout.dense_grid_bytes) + " bytes do not fit (" + what + ")");
    }
    return low_end;
  }

  /// check_chunks(), then backs the chunks and the grids with memory.
  void require_chunks(std::uint64_t chunks, const std::string& what) {
    t_.arena.ensure(check_chunks(chunks, what), high_begin_);
  }

  void voxelize() {
    zero(t_.arena.data() + high_begin_, t_.layout.dynamic_end - high_begin_);
    chunk_top_ = point_chunks_;
    v_.sampling = t_.config.sampling;
    v_.seed = t_.config.sampling_seed;
    if (v_.sampling != Sampling::FirstCome) {
      filtered_levels();
      return;
    }
    int current = 0;
    std::uint32_t below = 0;
    for (std::uint32_t level = depth_; level-- > 0;) {
      v_.d_below = emit_[1 - current].as<VoxelRecord>();
      const std::uint32_t emitted = first_come_level(level_at(level), below, current);
      voxels_ += emitted;
      below = emitted;
      current = 1 - current;
    }
  }

  /// A step of compact_grids() over `grids` grids: the grids it takes, the most bricks.
  struct BrickStep {
    std::uint32_t grids;
    std::uint64_t most;
  };
  [[nodiscard]] BrickStep brick_step(std::uint32_t grids) const {
    const std::uint32_t bricks = t_.layout.occupancy.bricks;
    const auto step =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(1, kBulkBrickItems / bricks));
    return {step, std::uint64_t{std::min(step, grids)} * bricks};
  }

  /// compact_grids()'s slot tables and brick flags for `grids` grids (the scan's scratch is
  /// allocate_nodes()'s).
  void reserve_bricks(std::uint32_t grids) {
    slots_.reserve(std::uint64_t{grids} * t_.layout.occupancy.bricks * 4, 0, s_);
    bricks_.reserve((brick_step(grids).most + 1) * 8, 0, s_);
  }

  /// The dense grids become block-sparse (detail/occupancy_codec.hpp): the bricks with a set
  /// cell, numbered in (grid, brick) order, are copied into pages (fresh chunks after the
  /// voxels'), a step of grids at a time; then the slot tables replace the dense grids at the
  /// top of the arena.
  void compact_grids() {
    const std::uint32_t grids = inner_begin_.back();
    if (grids == 0) return;
    const OccupancyLayout& o = t_.layout.occupancy;
    const BrickStep bs = brick_step(grids);
    const std::uint32_t step = bs.grids;
    const std::uint64_t most = bs.most;
    reserve_bricks(grids);  // place_points() reserved it: no allocation now
    auto* flags = bricks_.as<std::uint32_t>();
    auto* numbers = flags + most + 1;
    const auto first_chunk = static_cast<std::uint32_t>(chunk_top_);
    std::uint64_t bricks = 0;
    for (std::uint32_t first = 0; first < grids; first += step) {
      const std::uint32_t n = std::min(step, grids - first);
      const std::uint64_t items = std::uint64_t{n} * o.bricks;
      zero(flags + items, 4);
      launch_brick_flags(t_.writer, first, n, flags, s_);
      std::size_t bytes = cub_.bytes();
      SIMLOD_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cub_.as<void>(), bytes, flags, numbers,
                                                      static_cast<int>(items + 1), s_));
      read(numbers + items, 1, 0);
      sync();
      const std::uint64_t total = bricks + host()[0];
      require_chunks(chunk_top_ + brick_pages(total, o), "the occupancy bricks' chunks");
      launch_brick_copy(t_.writer, first, n, flags, numbers, static_cast<std::uint32_t>(bricks),
                        first_chunk, slots_.as<std::uint32_t>() + std::uint64_t{first} * o.bricks,
                        s_);
      bricks = total;
    }
    launch_brick_tables(t_.writer, grids, slots_.as<std::uint32_t>(), s_);
    bricks_count_ = bricks;
    chunk_top_ += brick_pages(bricks, o);
  }

  /// A level of inner nodes to voxelize: their level, the first id of the level below, their
  /// ranks, and the chunks of the leaves below.
  struct Level {
    std::uint32_t level, child_begin, inner_begin, inner, chunk_begin, chunk_end;
  };

  [[nodiscard]] Level level_at(std::uint32_t level) const {
    return Level{level,
                 level_begin_[level + 1],
                 inner_begin_[level],
                 inner_begin_[level + 1] - inner_begin_[level],
                 chunk_begin_[level + 1],
                 chunk_begin_[level + 2]};
  }

  /// Takes `chunks` more chunks for voxels (after the memory check) and links them.
  void take_voxel_chunks(const Level& l, std::uint64_t chunks) {
    require_chunks(chunk_top_ + chunks, "the voxels' chunks");
    launch_link_voxel_chunks(v_, l.inner_begin, l.inner, s_);
    chunk_top_ += chunks;
    voxel_chunks_ += chunks;
  }

  /// The most room in voxel records a first-come level gets at first: half a record a point
  /// (kBulkMinRecords at least).
  std::uint64_t most_records() const { return std::max<std::uint64_t>(kBulkMinRecords, n_ / 2); }

  /// The most voxels level `l` can emit: every sample (leaf points, the level below's `below`
  /// voxels) a voxel, every cell of its grids set.
  std::uint64_t sample_bound(const Level& l, std::uint32_t below) const {
    const std::uint64_t cells = std::uint64_t{1} << (3 * t_.geometry.grid_bits);
    return std::min(std::uint64_t{l.chunk_end - l.chunk_begin} * t_.layout.points.capacity + below,
                    l.inner * cells);
  }

  /// While the device samples level `l`: memory for about its voxels' chunks (half its
  /// bound; the arena backs a margin beyond), so that take_voxel_chunks() seldom waits for
  /// the driver. Backing a gigabyte takes a millisecond or more.
  void back_voxels_ahead(const Level& l, std::uint32_t below) {
    const std::uint64_t chunks =
        chunk_top_ + sample_bound(l, below) / 2 / t_.layout.voxels.capacity + l.inner;
    t_.arena.back_ahead(t_.layout.dynamic_begin + chunks * t_.layout.chunk_bytes, high_begin_);
  }

  /// First-come: the first sample of a cell emits its voxel. Returns the voxels emitted.
  std::uint32_t first_come_level(const Level& l, std::uint32_t below, int current) {
    const std::uint64_t bound = sample_bound(l, below);
    // Room for the bound, up to most_records() (place_points() reserved that much): a
    // level that emits more runs again with room for all of it (its grids cleared first). A
    // level emits a fifth to a half of its bound, so less room would often sample twice.
    std::uint64_t room = std::min<std::uint64_t>(bound, most_records());
    std::uint32_t emitted = 0;
    std::uint64_t chunks = 0;
    for (;;) {
      emit_[current].reserve(std::max<std::uint64_t>(1, room) * sizeof(VoxelRecord), 0, s_);
      v_.d_emit = emit_[current].as<VoxelRecord>();
      if (v_.d_records != nullptr) {  // the place of each voxel's record, beside it
        sources_.reserve(emit_[current].bytes() / sizeof(VoxelRecord) * 8, 0, s_);
        v_.d_emit_source = sources_.as<std::uint64_t>();
      }
      v_.emit_capacity = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(kNil, emit_[current].bytes() / sizeof(VoxelRecord)));
      zero(v_.d_cursor + l.inner_begin, std::uint64_t{l.inner} * 4);
      zero(v_.d_counter, 8);
      if (octant_sampling(v_)) {
        launch_octant_sample(v_, l.level, l.child_begin, l.inner_begin, l.chunk_begin, l.chunk_end,
                             below, s_);
      } else {
        launch_sample(v_, l.level, l.child_begin, l.inner_begin, l.chunk_begin, l.chunk_end, below,
                      s_);
      }
      give_voxel_chunks(l);
      back_voxels_ahead(l, below);
      read(v_.d_counter, 2, 0);
      sync();
      emitted = host()[0];
      chunks = host()[1];
      if (emitted <= v_.emit_capacity) break;
      // The grids of this level's inner nodes (consecutive ranks: one range) start over.
      const std::uint64_t gb = t_.layout.dense_grid_bytes;
      zero(t_.arena.data() + t_.layout.dynamic_end - std::uint64_t{l.inner_begin + l.inner} * gb,
           std::uint64_t{l.inner} * gb);
      room = emitted + emitted / 4;
    }
    take_voxel_chunks(l, chunks);
    launch_write_voxels(v_, emitted, s_);
    return emitted;
  }

  /// The chunks of the level's inner nodes for their d_cursor voxels; d_counter[1] = the total.
  void give_voxel_chunks(const Level& l) {
    launch_voxel_chunks(v_, l.inner_begin, l.inner, s_);
    scan(l.inner);
    launch_give_voxel_chunks(v_, l.inner_begin, l.inner, static_cast<std::uint32_t>(chunk_top_),
                             s_);
  }

  /// Random with channels: a level's accumulators of `n` voxels hold the keys, then the places
  /// (8 bytes each) and the digests (4 bytes each).
  static constexpr std::uint64_t kWinnerBytes = 2 * sizeof(std::uint64_t) + sizeof(std::uint32_t);
  template <class Key, class Place, class Digest>
  static void winners_at(Key* keys, std::uint64_t n, Place*& places, Digest*& digests) {
    places = reinterpret_cast<Place*>(keys + n);
    digests = reinterpret_cast<Digest*>(places + n);
  }

  /// Room in groups_ and cub_ for the voxel index of `inner` grids: the set cells per 8 grid
  /// words, then their exclusive sum.
  void reserve_index(std::uint64_t inner) {
    const std::uint64_t groups = (t_.layout.dense_grid_bytes / 4 * inner + 7) / 8;
    groups_.reserve((groups + 1) * 8, 0, s_);
    auto* counts = groups_.as<std::uint32_t>();
    std::size_t bytes = 0;
    SIMLOD_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(nullptr, bytes, counts, counts + groups + 1, groups + 1, s_));
    cub_.reserve(bytes, 0, s_);
  }

  /// The first word of level `level`'s grids among all levels' (the deepest level's lowest).
  [[nodiscard]] std::uint64_t level_words_begin(std::uint32_t level) const {
    return std::uint64_t{inner_begin_.back() - inner_begin_[level + 1]} *
           (t_.layout.dense_grid_bytes / 4);
  }

  /// The accumulator bytes of a voxel of `level` (Weighted: its first, narrow fold).
  [[nodiscard]] std::uint64_t accumulator_bytes(std::uint32_t level) const {
    if (v_.sampling == Sampling::Random) {
      return v_.d_records != nullptr ? kWinnerBytes : sizeof(std::uint64_t);
    }
    return narrow_level(level) ? sizeof(NarrowSum) : sizeof(ColourSum);
  }

  /// 32-bit sums: Average where the level's largest node holds fewer than 2^24 points (no
  /// channel's sum can reach 2^32); Weighted first on every level, then 64-bit where a sum
  /// wrapped (each sample adds up to 255 x kWeightOne, so no point count bounds it usefully).
  [[nodiscard]] bool narrow_level(std::uint32_t level) const {
    return v_.sampling == Sampling::Weighted ||
           (v_.sampling == Sampling::Average && level_max_[level] < kNarrowPoints);
  }

  /// Random, Average and Weighted. Every level's cells are marked first, bottom-up (a level's
  /// leaf children's points, then its inner children's set cells, which are the cells of the
  /// voxels they will emit); all levels' voxels are then indexed in cell order, counted per node
  /// and given their chunks at once, with one read-back. Then each level folds every sample
  /// into its voxel's accumulator and emits, with no read-back between levels but Weighted's
  /// check for wrapped 32-bit sums.
  void filtered_levels() {
    const std::uint32_t grids = inner_begin_.back();
    if (grids == 0) return;
    const std::uint64_t words_per_grid = t_.layout.dense_grid_bytes / 4;
    v_.d_level_words = t_.writer.dense_words(grids - 1);
    v_.voxel_base = 0;
    for (std::uint32_t level = depth_; level-- > 0;) {
      const Level l = level_at(level);
      if (octant_sampling(v_)) {
        launch_octant_mark(v_, l.level, l.child_begin, l.inner_begin, l.chunk_begin, l.chunk_end, 0,
                           s_);
      } else {
        launch_filter(v_, l.level, l.child_begin, l.inner_begin, l.chunk_begin, l.chunk_end, 0,
                      FilterStage::Mark, s_);
      }
      if (level + 1 < depth_) {
        launch_mark_parents(v_, inner_begin_[level + 1],
                            inner_begin_[level + 2] - inner_begin_[level + 1], l.child_begin,
                            l.inner_begin, words_per_grid, s_);
      }
    }
    const std::uint64_t words = words_per_grid * grids;
    const std::uint64_t groups = (words + 7) / 8;
    reserve_index(grids);  // place_points() reserved it: no wait here
    auto* counts = groups_.as<std::uint32_t>();
    auto* prefix = counts + groups + 1;
    launch_groups(v_, words, counts, s_);
    std::size_t bytes = cub_.bytes();
    SIMLOD_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(cub_.as<void>(), bytes, counts, prefix, groups + 1, s_));
    v_.d_groups = prefix;
    launch_filter_counts(v_, 0, grids, words_per_grid, s_);
    zero(v_.d_counter, 8);
    const Level all{0, 0, 0, grids, 0, 0};
    give_voxel_chunks(all);
    // While the device works: memory for about the voxels' chunks (most_records() voxels).
    t_.arena.back_ahead(t_.layout.dynamic_begin +
                            (chunk_top_ + most_records() / t_.layout.voxels.capacity + grids) *
                                t_.layout.chunk_bytes,
                        high_begin_);
    // The set cells below each level's grids (the voxels of the deeper levels), the total and
    // the chunks.
    for (std::uint32_t level = 0; level < depth_; ++level) {
      read(prefix + level_words_begin(level) / 8, 1, level);
    }
    read(prefix + groups, 1, depth_);
    read(v_.d_counter + 1, 1, depth_ + 1);
    sync();
    const std::vector<std::uint32_t> base(host(), host() + depth_ + 1);
    const std::uint64_t chunks = host()[depth_ + 1];
    const auto voxels = [&](std::uint32_t level) {
      return (level == 0 ? base[depth_] : base[level - 1]) - base[level];
    };
    // Each buffer of a pair holds every other level (the deepest in [0]): room for the most.
    std::uint64_t records[2] = {1, 1}, accumulators[2] = {1, 1};
    for (std::uint32_t level = 0; level < depth_; ++level) {
      const std::uint32_t c = (depth_ - 1 - level) % 2;
      records[c] = std::max<std::uint64_t>(records[c], voxels(level));
      accumulators[c] = std::max(accumulators[c], voxels(level) * accumulator_bytes(level));
    }
    for (int c = 0; c < 2; ++c) {
      emit_[c].reserve(records[c] * sizeof(VoxelRecord), 0, s_);
      acc_[c].reserve(accumulators[c], 0, s_);
    }
    take_voxel_chunks(all, chunks);
    int current = 0;
    std::uint32_t below = 0;
    for (std::uint32_t level = depth_; level-- > 0;) {
      v_.voxel_base = base[level];
      fold_level(level_at(level), below, voxels(level), current);
      voxels_ += voxels(level);
      below = voxels(level);
      current = 1 - current;
    }
  }

  /// A filtered level whose cells are marked and indexed: every sample (leaf points, the
  /// `below` voxels of the level below) folds into its voxel's accumulator, then the level's
  /// `total` voxels are written and recorded for the level above.
  void fold_level(const Level& l, std::uint32_t below, std::uint32_t total, int current) {
    v_.d_below = emit_[1 - current].as<VoxelRecord>();
    v_.narrow_below = v_.narrow;
    v_.narrow = narrow_level(l.level);
    v_.d_emit = emit_[current].as<VoxelRecord>();
    v_.emit_capacity = total;
    v_.d_keys_below = acc_[1 - current].as<std::uint64_t>();
    v_.d_sums_below = acc_[1 - current].as<void>();
    // Random with channels: the keys, then the places and digests (winners_at()).
    const bool winners = v_.sampling == Sampling::Random && v_.d_records != nullptr;
    if (winners) winners_at(v_.d_keys_below, below, v_.d_sources_below, v_.d_digests_below);
    const bool weighted = v_.sampling == Sampling::Weighted;
    for (;;) {
      const std::uint64_t acc_bytes = v_.sampling == Sampling::Random
                                          ? accumulator_bytes(l.level)
                                          : (v_.narrow ? sizeof(NarrowSum) : sizeof(ColourSum));
      acc_[current].reserve(std::max<std::uint32_t>(1, total) * acc_bytes, 0, s_);
      v_.d_keys = acc_[current].as<std::uint64_t>();
      v_.d_sums = acc_[current].as<void>();
      if (winners) winners_at(v_.d_keys, total, v_.d_sources, v_.d_digests);
      zero(acc_[current].as<void>(), std::uint64_t{total} * acc_bytes);
      if (weighted) zero(v_.d_counter, 4);
      launch_filter(v_, l.level, l.child_begin, l.inner_begin, l.chunk_begin, l.chunk_end, below,
                    FilterStage::Fold, s_);
      if (!weighted || !v_.narrow) break;
      read(v_.d_counter, 1, 0);
      sync();
      if (host()[0] == 0) break;
      v_.narrow = false;  // a 32-bit sum wrapped: fold the level again, 64-bit
    }
    if (winners) {
      for (const FilterStage stage : {FilterStage::Digest, FilterStage::Source}) {
        launch_filter(v_, l.level, l.child_begin, l.inner_begin, l.chunk_begin, l.chunk_end, below,
                      stage, s_);
      }
    }
    launch_filter_emit(v_, l.inner_begin, l.inner, t_.layout.dense_grid_bytes / 4,
                       level_words_begin(l.level), s_);
  }

  void finish() {
    sync();
    Control c{};
    SIMLOD_CUDA_CHECK(cudaMemcpy(&c, t_.writer.d_control, sizeof(Control), cudaMemcpyDeviceToHost));
    if (c.overflow != 0) {
      throw Error("internal error: the bulk build of " + std::to_string(n_) +
                  " points found an inconsistent layout (overflow bits " +
                  std::to_string(c.overflow) + ")");
    }
    c = Control{};
    c.node_count = level_begin_.back();
    c.grid_count = inner_begin_.back();
    c.chunk_top = static_cast<std::uint32_t>(chunk_top_);
    c.bricks = static_cast<std::uint32_t>(bricks_count_);
    c.brick_page = c.bricks != 0 ? c.chunk_top - 1 : 0;  // the bricks' pages came last
    c.depth = depth_;
    c.voxels = voxels_;
    c.point_chunks = point_chunks_;
    c.voxel_chunks = voxel_chunks_;
    auto* staged = static_cast<Control*>(t_.control_host.get());
    *staged = c;
    SIMLOD_CUDA_CHECK(
        cudaMemcpyAsync(t_.writer.d_control, staged, sizeof(Control), cudaMemcpyHostToDevice, s_));
    SIMLOD_CUDA_CHECK(cudaEventRecord(t_.ready.get(), s_));
    sync();
    t_.control = c;
    t_.points = n_;
  }

  TreeStore& t_;
  cudaStream_t s_;
  std::uint32_t n_;
  PinnedMemory readback_;
  BulkView v_;
  std::uint32_t root_levels_ = 1, node_bound_ = 1, inner_bound_ = 1;
  Buffer blocks_{"the bulk build's counter blocks"}, count_{"the bulk build's counters"},
      node_{"the bulk build's counter nodes"}, link_{"the bulk build's cell links"},
      per_node_{"the bulk build's node scratch"}, inner_{"the bulk build's inner node list"},
      owner_{"the bulk build's chunk owners"}, cub_{"the bulk build's scan scratch"};
  Buffer emit_[2] = {Buffer{"the bulk build's voxel records"},
                     Buffer{"the bulk build's voxel records"}};
  Buffer sources_{"the bulk build's voxel record places"};
  Buffer acc_[2] = {Buffer{"the bulk build's voxel accumulators"},
                    Buffer{"the bulk build's voxel accumulators"}};
  Buffer groups_{"the bulk build's voxel index"};
  Buffer bricks_{"the bulk build's brick flags"}, slots_{"the bulk build's slot tables"};
  std::uint32_t block_count_ = 0;
  std::uint64_t entries_ = 0;
  std::vector<std::uint32_t> level_begin_, inner_begin_, chunk_begin_;
  std::vector<std::uint32_t> level_max_;  ///< per level: points of its largest inner node
  std::uint32_t depth_ = 0;
  std::uint64_t point_chunks_ = 0, voxel_chunks_ = 0, voxels_ = 0, chunk_top_ = 0;
  std::uint64_t bricks_count_ = 0;
  std::uint64_t high_begin_ = 0;
};

}  // namespace
}  // namespace bulk

void build_bulk(TreeStore& t, std::span<const Point> host, std::span<const std::byte> records,
                DeviceBatchStore* device, std::size_t device_points, BuildStats& stats,
                bool quantized_input) {
  const std::size_t n = device != nullptr ? device_points : host.size();
  if (n >= kNil) {
    throw CapacityError("the CUDA bulk builder takes at most " + std::to_string(kNil - 1) +
                        " points at once, not " + std::to_string(n) + "; nothing was built");
  }
  DeviceScope scope(t.config.device);
  cudaStream_t s = t.stream_handle();
  DeviceMemory input, input_records;
  const Point* points = nullptr;
  const std::byte* d_records = nullptr;
  try {
    if (device != nullptr) {
      points = device->points;
    } else {
      input = make_device(n * sizeof(Point), "the points to build");
      copy_to_device_staged(input.get(), host.data(), host.size_bytes(), s);
      points = static_cast<const Point*>(input.get());
    }
    if (t.writer.record_bytes != 0) {
      input_records = make_device(records.size(), "the channel records of the points to build");
      copy_to_device_staged(input_records.get(), records.data(), records.size(), s);
      d_records = static_cast<const std::byte*>(input_records.get());
    }
    bulk::Driver(t, points, d_records, static_cast<std::uint32_t>(n), quantized_input).run(stats);
    if (d_records != nullptr) stats.scratch_bytes += records.size();
    // The incremental builder's voxel index is made when a batch first needs it (index_tree).
    t.index.set_ready(false);
  } catch (...) {
    (void)cudaStreamSynchronize(s);  // nothing queued may outlive the error
    throw;
  }
  if (device != nullptr) {
    SIMLOD_CUDA_CHECK(cudaEventRecord(device->consumed.get(), s));
    device->consumed_recorded = true;
  }
}

}  // namespace simlod::detail::cuda
