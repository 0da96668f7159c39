#include "stream/loader.hpp"

#include <fmt/format.h>

#include "simlod/error.hpp"
#include "simlod/octree.hpp"

namespace simlod::detail {
namespace {

/// The reader a loader keeps between units: units of one file mostly follow each other.
struct OpenReader {
  std::size_t source = 0;
  std::unique_ptr<PointReader> reader;
  PointAttributes attributes;  ///< of the piece being read, when colouring by one
};

std::string source_name(const LoaderContext& ctx, std::size_t source) {
  if (ctx.generator != nullptr) return "synthetic scene";
  return fmt::format("'{}'", ctx.files[source].path.string());
}

/// Points read and checked at a time: 1 MB, so that the reader's copy, its origin shift, the
/// cube check and (on a device slot) the DMA engine's read all find the points in the core's
/// cache instead of passing the batch through host memory three times (host memory bandwidth
/// bounds streaming from the page cache: docs/perf-notes.md).
constexpr std::size_t kPiecePoints = DeviceBatch::kPiecePoints;

/// Commits points [at, at + n) of `slot` (which starts at point `first` of its source): throws
/// InvalidInput naming the source and point when one is not finite or lies outside the cube
/// (host slots; device slots are checked on the device before their insert). The checks stay
/// with the batch, so that Octree::insert_now() does not repeat them.
void commit_piece(const LoaderContext& ctx, std::size_t source, std::uint64_t first,
                  BatchSlot& slot, std::size_t at, std::size_t n) {
  if (const auto bad = slot.commit(at, n, ctx.cube))
    throw bad_point_error(ctx, source, first, *bad);
}

/// Reads batch `b` into `slot` from a file source, piece by piece.
void read_file_batch(LoaderContext& ctx, OpenReader& open, const StreamBatch& b, BatchSlot& slot) {
  if (!open.reader || open.source != b.source) {
    open.reader.reset();
    ReaderOptions options;
    options.origin = ctx.cube.min;
    options.threads = 1;  // the loaders are the parallelism
    options.attributes = attributes_for(ctx.coloring.by) | ctx.channels;
    open.reader = open_reader(ctx.files[b.source].path, options);
    open.source = b.source;
  }
  PointReader& reader = *open.reader;
  reader.seek(b.first);
  for (std::size_t at = 0; at < b.points; at += kPiecePoints) {
    const std::span<Point> piece = slot.piece(at, std::min(kPiecePoints, b.points - at));
    const bool coloring = ctx.coloring.by != ColorBy::File;
    const bool attributes = coloring || ctx.channels != 0;
    const std::size_t n = attributes ? reader.read(piece, open.attributes) : reader.read(piece);
    if (coloring) color_points(piece.first(n), open.attributes, ctx.coloring);
    // The octree's channels travel with the batch, beside its points.
    if (ctx.channels != 0) slot.attributes.copy_from(open.attributes, n, at, ctx.channels);
    if (n != piece.size()) {
      throw IoError(fmt::format("'{}': expected {} points from point {}, the file gave {}",
                                ctx.files[b.source].path.string(), piece.size(), b.first + at, n));
    }
    commit_piece(ctx, b.source, b.first, slot, at, piece.size());
  }
}

/// Generates batch `b` (the next points of the scene) shifted to the cube's corner.
void generate_batch(LoaderContext& ctx, const StreamBatch& b, BatchSlot& slot) {
  const auto& o = ctx.cube.min;
  for (std::size_t at = 0; at < b.points; at += kPiecePoints) {
    const std::span<Point> piece = slot.piece(at, std::min(kPiecePoints, b.points - at));
    const std::size_t n = ctx.generator->next(piece);
    if (n != piece.size()) {
      throw Error(fmt::format("synthetic scene: expected {} points from point {}, got {}",
                              piece.size(), b.first + at, n));
    }
    for (Point& p : piece) {
      p.x = static_cast<float>(static_cast<double>(p.x) - o[0]);
      p.y = static_cast<float>(static_cast<double>(p.y) - o[1]);
      p.z = static_cast<float>(static_cast<double>(p.z) - o[2]);
    }
    commit_piece(ctx, 0, b.first, slot, at, n);
  }
}

/// Batch `seq` of `source` failed: later batches of the source are skipped.
void mark_failed(LoaderContext& ctx, std::size_t source, std::uint64_t seq) {
  std::atomic<std::uint64_t>& at = ctx.failed_at[source];
  std::uint64_t current = at.load();
  while (seq < current && !at.compare_exchange_weak(current, seq)) {
  }
}

/// Loads batch `seq` into its ring slot and publishes it (or its error). False: cancelled.
bool load_batch(LoaderContext& ctx, OpenReader& open, std::size_t seq) {
  const StreamBatch& b = ctx.plan.batches[seq];
  BatchSlot* slot = nullptr;
  try {
    slot = ctx.ring.acquire(seq);
    if (slot == nullptr) return false;
  } catch (...) {
    ctx.ring.publish(seq, 0, std::current_exception());
    return true;
  }
  if (seq > ctx.failed_at[b.source].load()) {
    ctx.ring.publish(seq, 0, nullptr);  // an earlier batch of the file failed
    return true;
  }
  if (ctx.generator == nullptr && ctx.open_errors[b.source]) {
    mark_failed(ctx, b.source, seq);
    ctx.ring.publish(seq, 0, ctx.open_errors[b.source]);
    return true;
  }
  try {
    if (ctx.generator != nullptr) {
      generate_batch(ctx, b, *slot);
    } else if (b.points > 0) {
      read_file_batch(ctx, open, b, *slot);
    }
    slot->finish(ctx.cube);
  } catch (...) {
    mark_failed(ctx, b.source, seq);
    open.reader.reset();  // a reader that failed is in an unknown state
    ctx.ring.publish(seq, 0, std::current_exception());
    return true;
  }
  ctx.points_read += b.points;
  const double per_point = ctx.generator != nullptr ? sizeof(Point) : ctx.bytes_per_point[b.source];
  ctx.bytes_read += static_cast<std::uint64_t>(per_point * b.points);
  ctx.ring.publish(seq, b.points, nullptr);
  return true;
}

}  // namespace

InvalidInput bad_point_error(const LoaderContext& ctx, std::size_t source, std::uint64_t first,
                             const BadPoint& bad) {
  return InvalidInput(
      fmt::format("{}: point {} {}", source_name(ctx, source), first + bad.index, bad.reason));
}

void run_loader(LoaderContext& ctx) noexcept {
  OpenReader open;
  for (;;) {
    const std::size_t u = ctx.next_unit.fetch_add(1);
    if (u >= ctx.plan.units.size()) return;
    const PlanUnit& unit = ctx.plan.units[u];
    for (std::size_t k = 0; k < unit.batch_count; ++k) {
      if (!load_batch(ctx, open, unit.first_batch + k)) return;
    }
  }
}

}  // namespace simlod::detail
