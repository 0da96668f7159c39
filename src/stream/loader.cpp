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
};

std::string source_name(const LoaderContext& ctx, std::size_t source) {
  if (ctx.generator != nullptr) return "synthetic scene";
  return fmt::format("'{}'", ctx.files[source].path.string());
}

/// Points read and checked at a time: 1 MB, so that the reader's copy, its origin shift and
/// the cube check all run on data still in the core's L2 cache instead of passing the batch
/// through host memory three times (host memory bandwidth bounds streaming from the page
/// cache: docs/perf-notes.md).
constexpr std::size_t kPiecePoints = std::size_t{1} << 16;

/// Checks points [at, at + n) of `batch` (which starts at point `first` of its source) and
/// throws InvalidInput naming the source and point when one is not finite or lies outside the
/// cube. The checks stay with the batch, so that Octree::insert_now() does not repeat them.
void check_points(const LoaderContext& ctx, std::size_t source, std::uint64_t first,
                  PinnedBatch& batch, std::size_t at, std::size_t n) {
  const auto bad = batch.check(ctx.cube, at, n);
  if (!bad) return;
  throw InvalidInput(
      fmt::format("{}: point {} {}", source_name(ctx, source), first + bad->index, bad->reason));
}

/// Reads batch `b` into `out` (batch.points entries) from a file source, checking each piece.
void read_file_batch(LoaderContext& ctx, OpenReader& open, const StreamBatch& b, PinnedBatch& batch,
                     Point* out) {
  if (!open.reader || open.source != b.source) {
    open.reader.reset();
    ReaderOptions options;
    options.origin = ctx.cube.min;
    options.threads = 1;  // the loaders are the parallelism
    open.reader = open_reader(ctx.files[b.source].path, options);
    open.source = b.source;
  }
  PointReader& reader = *open.reader;
  reader.seek(b.first);
  for (std::size_t at = 0; at < b.points; at += kPiecePoints) {
    const std::span<Point> piece(out + at, std::min<std::size_t>(kPiecePoints, b.points - at));
    const std::size_t n = reader.read(piece);
    if (n != piece.size()) {
      throw IoError(fmt::format("'{}': expected {} points from point {}, the file gave {}",
                                ctx.files[b.source].path.string(), piece.size(), b.first + at, n));
    }
    check_points(ctx, b.source, b.first, batch, at, piece.size());
  }
}

/// Generates batch `b` (the next points of the scene) shifted to the cube's corner.
void generate_batch(LoaderContext& ctx, const StreamBatch& b, PinnedBatch& batch, Point* out) {
  const std::size_t n = ctx.generator->next({out, b.points});
  if (n != b.points) {
    throw Error(fmt::format("synthetic scene: expected {} points from point {}, got {}", b.points,
                            b.first, n));
  }
  const auto& o = ctx.cube.min;
  for (std::size_t i = 0; i < n; ++i) {
    Point& p = out[i];
    p.x = static_cast<float>(static_cast<double>(p.x) - o[0]);
    p.y = static_cast<float>(static_cast<double>(p.y) - o[1]);
    p.z = static_cast<float>(static_cast<double>(p.z) - o[2]);
  }
  check_points(ctx, 0, b.first, batch, 0, n);
}

/// Loads batch `seq` into its ring slot and publishes it (or its error). False: cancelled.
bool load_batch(LoaderContext& ctx, OpenReader& open, std::size_t seq) {
  const StreamBatch& b = ctx.plan.batches[seq];
  PinnedBatch* batch = nullptr;
  try {
    batch = ctx.ring.acquire(seq);
    if (batch == nullptr) return false;
  } catch (...) {
    ctx.ring.publish(seq, 0, std::current_exception());
    return true;
  }
  if (ctx.failed[b.source].load()) {
    ctx.ring.publish(seq, 0, nullptr);  // the file's error was published already
    return true;
  }
  if (ctx.generator == nullptr && ctx.open_errors[b.source]) {
    ctx.failed[b.source] = true;
    ctx.ring.publish(seq, 0, ctx.open_errors[b.source]);
    return true;
  }
  try {
    Point* out = batch->points().data();  // taken before the checks, which follow the writes
    if (ctx.generator != nullptr) {
      generate_batch(ctx, b, *batch, out);
    } else if (b.points > 0) {
      read_file_batch(ctx, open, b, *batch, out);
    }
  } catch (...) {
    ctx.failed[b.source] = true;
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
