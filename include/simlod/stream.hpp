// simlod::Streamer: builds an Octree while the points load, so that a viewer can draw the
// data tens of milliseconds after loading starts and watch the picture fill in.
//
// Pipeline (DESIGN.md "Data flow"):
//   loader threads -- read files (or run the synthetic generator) in batches into a bounded
//                     ring, piece by piece, and check every point against the cube; when the
//                     octree runs on CUDA the ring's batches are DeviceBatches on its device
//                     and each piece is copied there as soon as it is read (the points cross
//                     host memory once); then publish the batch
//   update(budget) -- on the caller's thread, once per frame: inserts published batches in
//                     stream order until the time budget is spent
// Memory stays bounded (ring_batches x batch_points x 16 bytes of host buffers, or of device
// memory plus two 1 MB page-locked staging pieces per batch on CUDA, plus one reader per
// loader thread) however large the input; loaders wait while the ring is full. On CUDA the
// points are checked on the device, by update(), before each batch goes in.
//
// Batches: the stream is cut into batches in a fixed order (files in the order given, a
// folder's files sorted by name), so the octree does not depend on the thread count or timing:
// it equals the octree that inserts batches() one by one. The first batch of the stream holds
// first_batch_points (a quick first picture), the others batch_points, cut at file ends; for
// chunked LAZ files both are rounded down to whole chunks (at least one), because a chunk is
// the unit a decoder can start at.
//
// Coordinates: the octree's cube is the union of the files' header bounds (or the declared
// cube), and points are stored relative to its minimum corner (ReaderOptions::origin).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/coloring.hpp"
#include "simlod/io.hpp"
#include "simlod/octree.hpp"
#include "simlod/synth.hpp"

namespace simlod {

/// Where a stream stands; passed to StreamConfig::on_progress and returned by progress().
struct StreamProgress {
  std::uint64_t points_total = 0;  ///< points the stream will read (from headers)
  std::uint64_t points_read = 0;   ///< read into the ring by the loaders so far
  /// Handed to the octree's backend: on CUDA, copies started (the loaders start each piece's
  /// copy as they read it: points_read); on the CPU, batches taken by update().
  std::uint64_t points_uploaded = 0;
  std::uint64_t points_inserted = 0;  ///< in the octree
  /// Dropped because not even one more point fitted (the device or memory_bytes was full;
  /// update() threw CapacityError for their batch). Batches go in as smaller pieces first.
  std::uint64_t points_refused = 0;
  std::uint64_t bytes_read = 0;  ///< file bytes behind points_read (16 B/point synthetic)
  std::size_t files_total = 0, files_done = 0;  ///< files, and files completely inserted
  std::size_t files_failed = 0;                 ///< files whose error update() has reported
  double seconds = 0.0;                         ///< since the Streamer was created
  double points_per_second = 0.0;               ///< points_inserted / seconds
  double eta_seconds = 0.0;  ///< remaining points at the current rate (0 when done)
  bool done = false;         ///< everything inserted, failed or cancelled
};

/// One batch of the stream's fixed order (Streamer::batches()).
struct StreamBatch {
  std::size_t source = 0;   ///< index into Streamer::files(); 0 for the synthetic scene
  std::uint64_t first = 0;  ///< index of the batch's first point in its file or scene
  std::uint32_t points = 0;
};

struct StreamConfig {
  OctreeConfig octree;  ///< octree.max_batch_points is raised to batch_points if smaller
  std::uint32_t batch_points = 1u << 20;  ///< SimLOD: batches of up to 1M points
  /// The stream's first batch (a quick first picture); 0 or more than batch_points:
  /// batch_points.
  std::uint32_t first_batch_points = 1u << 14;
  /// Loader threads (0 = hardware threads - 2, leaving cores to the caller's thread and the
  /// driver; hardware threads - 1 when every file is LAZ). The synthetic scene uses one loader,
  /// which runs the generator's own threads. LAZ files are decoded one chunk range per loader.
  unsigned loader_threads = 0;
  /// Batches in the ring (0 = loader threads + 4; on CUDA, where they are device memory,
  /// 2 x loader threads + 4): the bound on memory and on how far
  /// loading runs ahead of insertion.
  unsigned ring_batches = 0;
  /// The octree's cube in file coordinates; default: union of the files' header bounds
  /// (synthetic: the generator's bounds). Points outside it fail their file's batch.
  std::optional<Bounds> cube;
  /// Called on the caller's thread at the end of every update() (and of wait()).
  std::function<void(const StreamProgress&)> on_progress;
  /// Colours the points by an attribute as the loaders read them (files only: synthetic()
  /// throws InvalidInput). open() throws InvalidInput when no file has the attribute; a file
  /// without it fails like a bad file (update() reports it). ColorBy::Intensity without a range
  /// samples the files once (sample_intensity_range) so that every batch shares one range.
  ColorByOptions color_by{};
};

/// A file of the stream that failed (unreadable header, truncated data, bad points).
struct StreamFailure {
  std::filesystem::path path;
  std::string message;
  /// Points of this file inserted before the error; they stay in the octree.
  std::uint64_t points_inserted = 0;
};

/// Not thread-safe except cancel() and progress(), which any thread may call. A moved-from
/// Streamer throws InvalidInput from every method until it is assigned a new one.
class Streamer {
 public:
  /// Streams files; a directory stands for its .las/.laz/.sim/.ply files (not recursive),
  /// sorted by name. Reads every header first (the cube). A file whose header cannot be read
  /// does not stop the others: its error is reported by update() at its place in the stream.
  /// Throws InvalidInput when no path is given, a path is neither file nor directory, a
  /// directory holds no point-cloud file, or no file could be opened; also the errors of
  /// Octree::create.
  static Streamer open(const std::vector<std::filesystem::path>& paths,
                       const StreamConfig& config = {});
  /// Streams the synthetic scene of `scene` (cube: the generator's bounds).
  static Streamer synthetic(const synth::SceneConfig& scene, const StreamConfig& config = {});

  /// Page-locks the staging pieces a stream with `config` will use, ahead of time (call it when
  /// the application starts). Pinning costs about 0.6 ms per MB and holds up the device's
  /// other allocations meanwhile; streams keep their pieces for later streams anyway (up to
  /// 1 GiB), so only the first stream of a process pays unless this was called. Does nothing
  /// when the octree will not run on CUDA. Blocks until done.
  static void prepare(const StreamConfig& config = {});

  Streamer(Streamer&&) noexcept;
  Streamer& operator=(Streamer&&) noexcept;
  /// Cancels and joins the loader threads.
  ~Streamer();

  /// Inserts published batches in stream order until `budget` is spent (at least one batch
  /// when one is ready; 0 = every ready batch); stops early when the next batch is predicted
  /// to overrun the budget. Never waits for loaders. Throws, on the caller's thread, the error
  /// of a failed file when the stream reaches it (IoError or InvalidInput naming the file,
  /// offset or point index): batches inserted before stay, the rest of that file is skipped,
  /// and the next update() goes on with the following files. A CapacityError from the octree
  /// drops the rest of that batch (progress().points_refused) and is thrown as well. Returns
  /// the figures of all batches of the call; octree().stats().last_update holds those of the
  /// last batch (each goes in through Octree::insert_now).
  UpdateStats update(std::chrono::microseconds budget = std::chrono::milliseconds{10});
  /// Blocks until a batch is ready to insert, the stream is done, or `timeout` passes.
  /// Returns true when a batch is ready.
  bool wait(std::chrono::microseconds timeout);
  /// Stops the loaders: no loader starts another batch, batches not yet inserted are dropped,
  /// and update() inserts nothing more. Points already inserted stay. Returns at once.
  void cancel();

  /// Once done(): finishes the octree with Octree::compact() (`chunk_capacity` as there), so
  /// that it holds the tree in less memory and takes no more points. Throws InvalidInput before
  /// done(), and as Octree::compact() does.
  void compact(std::uint32_t chunk_capacity);
  /// The same with the default chunk capacity of the octree's point encoding.
  void compact();

  [[nodiscard]] const Octree& octree() const;
  [[nodiscard]] StreamProgress progress() const;
  /// True once every batch was inserted or skipped, or after cancel().
  [[nodiscard]] bool done() const;
  /// The files' header information (empty for synthetic scenes). The colour fields of LAZ
  /// files only say whether the format has RGB: sampling them would decode a chunk per file.
  [[nodiscard]] const std::vector<FileInfo>& files() const;
  /// Bounds of the data in file coordinates, known before loading (union of the readable
  /// headers, or the generator's bounds): what a camera should frame. The octree's cube is
  /// Bounds::cube() of it unless StreamConfig::cube was given.
  [[nodiscard]] const Bounds& bounds() const;
  [[nodiscard]] std::vector<StreamFailure> failures() const;  ///< reported so far
  /// The stream's batches in insertion order (see the top of this header).
  [[nodiscard]] const std::vector<StreamBatch>& batches() const;
  /// Bytes of batches the ring holds at most (device memory when the octree runs on CUDA).
  [[nodiscard]] std::uint64_t ring_bytes() const;

  struct Impl;

 private:
  explicit Streamer(std::unique_ptr<Impl> impl);
  [[nodiscard]] Impl& impl() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simlod
