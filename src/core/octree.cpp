// simlod::Octree: validation, the host queue of batches and update() timing; the stores and
// their builders do the rest (core/dispatch.hpp).
#include "simlod/octree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <new>

#include "core/channels.hpp"
#include "core/octree_impl.hpp"
#include "core/thread_pool.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace {

/// Batch buffers kept for reuse: enough for a loader that inserts one batch per update().
constexpr std::size_t kSpareBuffers = 2;

}  // namespace

Octree Octree::create(const Bounds& cube, const OctreeConfig& config) {
  detail::validate_config(config);
  auto impl = std::make_unique<detail::OctreeImpl>();
  impl->config = config;
  impl->spare.reserve(kSpareBuffers);  // update() then never allocates to keep a buffer
  impl->geometry = detail::make_geometry(cube, config);
  impl->config.backend = resolve_backend(config.backend);
  impl->channels = detail::channel_layout(config.channels);
  try {
    impl->store = detail::create_stores(impl->config, impl->geometry);
  } catch (const std::bad_alloc&) {
    throw CapacityError("not enough host memory to create the octree");
  }
  return Octree(std::move(impl));
}

Octree::Octree(std::unique_ptr<detail::OctreeImpl> impl) : impl_(std::move(impl)) {}
Octree::Octree(Octree&&) noexcept = default;
Octree& Octree::operator=(Octree&&) noexcept = default;
Octree::~Octree() = default;

detail::OctreeImpl& Octree::impl() const {
  if (!impl_) throw InvalidInput("this Octree was moved from; assign a new one before use");
  if (!impl_->failure.empty()) {
    throw StateError(
        "this Octree failed earlier and may be half-written, so it cannot be used "
        "(destroy it or assign a new one); the first failure was: " +
        impl_->failure);
  }
  return *impl_;
}

namespace {

/// Queues a batch (and its packed channel records) in pieces of max_batch_points.
void queue_batch(detail::OctreeImpl& s, std::span<const Point> batch,
                 const PointAttributes* attributes) {
  detail::validate_batch(batch, s.geometry, "queued");
  if (batch.empty()) return;
  const std::size_t limit = s.config.max_batch_points;
  const std::size_t queued = s.queue.size();
  const std::size_t stride = s.channels.record_bytes;
  try {
    for (std::size_t begin = 0; begin < batch.size(); begin += limit) {
      const auto piece = batch.subspan(begin, std::min(limit, batch.size() - begin));
      if (s.spare.empty()) {
        s.queue.emplace_back();
      } else {
        s.queue.push_back(std::move(s.spare.back()));
        s.spare.pop_back();
      }
      detail::OctreeImpl::Queued& q = s.queue.back();
      q.points.assign(piece.begin(), piece.end());
      q.records.resize(stride * piece.size());
      if (stride != 0) {
        detail::pack_records(*attributes, s.channels, begin, piece.size(), q.records.data());
      }
    }
  } catch (const std::bad_alloc&) {
    s.queue.resize(queued);  // nothing of the batch stays queued
    throw CapacityError(fmt::format(
        "not enough host memory to queue a batch of {} points; nothing of it was queued",
        batch.size()));
  }
}

}  // namespace

void Octree::insert(std::span<const Point> batch) {
  detail::OctreeImpl& s = impl();
  detail::refuse_if_compacted(s, "insert");
  detail::check_channel_attributes(nullptr, s.config.channels, batch.size(), "insert");
  queue_batch(s, batch, nullptr);
}

void Octree::insert(std::span<const Point> batch, const PointAttributes& attributes) {
  detail::OctreeImpl& s = impl();
  detail::refuse_if_compacted(s, "insert");
  detail::check_channel_attributes(&attributes, s.config.channels, batch.size(), "insert");
  queue_batch(s, batch, &attributes);
}

UpdateStats Octree::update(std::chrono::microseconds budget) {
  using Clock = std::chrono::steady_clock;
  detail::OctreeImpl& s = impl();
  const auto start = Clock::now();
  UpdateStats stats;
  auto finish = [&] { detail::finish_update(s, stats, start); };
  while (!s.queue.empty()) {
    std::vector<Point>& batch = s.queue.front().points;
    std::vector<std::byte>& records = s.queue.front().records;
    try {
      detail::insert_in_pieces(s, detail::BatchSource::of(batch, records), 0, batch.size(), stats);
    } catch (const CapacityError& e) {
      // The device is full: what did not go in stays queued for a later update().
      batch.erase(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(e.points_inserted()));
      records.erase(records.begin(),
                    records.begin() +
                        static_cast<std::ptrdiff_t>(e.points_inserted() * s.channels.record_bytes));
      finish();
      throw;
    } catch (...) {
      // Refused before anything changed (InvalidInput), or the octree failed (insert_in_pieces
      // put it into the failed state): drop the batch so that later batches can still go in.
      s.queue.pop_front();
      finish();
      throw;
    }
    if (s.spare.size() < kSpareBuffers) s.spare.push_back(std::move(s.queue.front()));
    s.queue.pop_front();
    if (budget.count() > 0 && Clock::now() - start >= budget) break;
  }
  finish();
  return stats;
}

UpdateStats Octree::update_async(DeviceStream stream, std::chrono::microseconds budget) {
  detail::OctreeImpl& s = impl();
  detail::order_after(s.store, stream);
  UpdateStats stats = update(budget);
  detail::signal(s.store, stream);
  return stats;
}

void Octree::finalize() {
  detail::OctreeImpl& s = impl();
  const auto start = std::chrono::steady_clock::now();
  BuildStats stats;
  if (!detail::finalize(s.store, stats)) return;
  stats.total_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  s.finalize = stats;
}

std::uint64_t Octree::discard_queued() {
  detail::OctreeImpl& s = impl();
  std::uint64_t points = 0;
  for (const auto& batch : s.queue) points += batch.points.size();
  s.queue.clear();
  return points;
}

OctreeStats Octree::stats() const {
  detail::OctreeImpl& s = impl();
  OctreeStats out = detail::stats(s.store);
  out.batches_queued = s.queue.size();
  out.compacted = s.compacted;
  if (const auto timing = detail::cuda_batch_timing(s.store)) {
    out.memory_grow_steps = timing->grow_steps;
    out.memory_grow_ms = timing->grow_ms;
  }
  out.last_update = s.last_update;
  out.build = s.build;
  out.finalize = s.finalize;
  return out;
}

NodeSnapshot Octree::snapshot() const {
  detail::OctreeImpl& s = impl();
  NodeSnapshot out = detail::snapshot(s.store);
  out.cube = s.geometry.cube;
  return out;
}

namespace detail {

void finish_update(OctreeImpl& s, UpdateStats& stats, std::chrono::steady_clock::time_point start) {
  stats.batches_left = s.queue.size();
  stats.duration = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  s.last_update = stats;
}

void fail(OctreeImpl& s, std::string_view what) {
  if (s.failure.empty()) s.failure = what;
}

void insert_all(OctreeImpl& s, const BatchSource& batch, UpdateStats& stats) {
  const std::size_t limit = s.config.max_batch_points;
  for (std::size_t begin = 0; begin < batch.size(); begin += limit) {
    insert_in_pieces(s, batch, begin, std::min(batch.size(), begin + limit), stats);
  }
}

void pack_all_records(const OctreeImpl& s, const PointAttributes* attributes, std::size_t n,
                      FillVector<std::byte>& records, std::string_view what,
                      std::string_view undone) {
  try {
    records.resize(n * s.channels.record_bytes);
  } catch (const std::bad_alloc&) {
    throw CapacityError(
        fmt::format("not enough host memory for the attribute records {}; {}", what, undone));
  }
  if (records.empty()) return;
  // Blocks of records on the library's pool (a build packs 10^8 at once); one block inline.
  constexpr std::size_t kBlock = std::size_t{1} << 16;
  ThreadPool::shared().parallel_for(
      (n + kBlock - 1) / kBlock, 1, [&](unsigned, std::size_t lo, std::size_t hi) {
        const std::size_t first = lo * kBlock;
        const std::size_t end = std::min(n, hi * kBlock);
        pack_records(*attributes, s.channels, first, end - first,
                     records.data() + first * s.channels.record_bytes);
      });
}

void insert_in_pieces(OctreeImpl& s, const BatchSource& batch, std::size_t begin, std::size_t end,
                      UpdateStats& stats) {
  std::size_t inserted = begin;
  std::size_t piece = end - begin;
  bool split = false;
  while (inserted < end) {
    const std::size_t n = std::min(piece, end - inserted);
    try {
      detail::insert_batch(s.store, batch, inserted, n, stats);
    } catch (const InvalidInput&) {
      throw;  // refused before anything changed
    } catch (const CapacityError& e) {
      // All or nothing: the octree is as before this piece. Halve it until it fits; a single
      // point that does not fit means the device (or the reserve) is full.
      if (n == 1) {
        stats.points += inserted - begin;
        throw CapacityError(fmt::format("{} ({} of the batch's {} points were inserted)", e.what(),
                                        inserted, batch.size()),
                            inserted);
      }
      piece = (n + 1) / 2;
      split = true;
      continue;
    } catch (const std::exception& e) {
      fail(s, e.what());  // a CUDA or internal error mid-batch: the tree may be half-written
      throw;
    } catch (...) {
      fail(s, "an unknown exception");
      throw;
    }
    if (const auto timing = cuda_batch_timing(s.store)) {
      stats.device_upload_ms += timing->upload_ms;
      stats.device_update_ms += timing->update_ms;
    }
    inserted += n;
  }
  stats.batches += 1;
  stats.points += end - begin;
  stats.pieces += split ? 1 : 0;
}

}  // namespace detail

void Octree::for_each_node(const std::function<void(const NodeInfo&)>& visit) const {
  if (!visit) throw InvalidInput("for_each_node: the visitor is empty");
  detail::for_each_node(impl().store, visit);
}

std::uint64_t Octree::read_node(std::uint32_t id, std::span<Point> out, std::uint64_t first) const {
  return detail::read_node(impl().store, id, first, out);
}

std::uint64_t Octree::read_node(std::uint32_t id, std::span<Point> out, std::uint64_t first,
                                PointAttributes& attributes) const {
  return detail::read_node(impl().store, id, first, out, &attributes);
}

void Octree::prefetch(std::span<const Point> batch) {
  detail::OctreeImpl& s = impl();
  detail::refuse_if_compacted(s, "prefetch");
  detail::prefetch(s.store, batch);
}

const Bounds& Octree::cube() const { return impl().geometry.cube; }
Backend Octree::backend() const { return impl().config.backend; }
const OctreeConfig& Octree::config() const { return impl().config; }

}  // namespace simlod
