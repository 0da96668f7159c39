// simlod::Streamer on the caller's thread: update() takes published batches from the ring in
// stream order and inserts them until the budget is spent. The loaders uploaded the batches of
// a CUDA octree already (device slots, stream/batch_ring.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "simlod/error.hpp"
#include "stream/streamer_impl.hpp"

namespace simlod {
namespace {

using detail::BatchSlot;

/// Adds the stats of one Octree::insert_now() to those of the whole update().
void add(UpdateStats& total, const UpdateStats& batch) {
  total.batches += batch.batches;
  total.points += batch.points;
  total.split_rounds = batch.split_rounds;
  total.pieces += batch.pieces;
  total.device_upload_ms += batch.device_upload_ms;
  total.device_update_ms += batch.device_update_ms;
}

/// Streamer::compact() before done() is refused.
void refuse_until_done(bool done) {
  if (!done) {
    throw InvalidInput(
        "Streamer::compact: the stream is not done (update() until done(), or cancel() it)");
  }
}

}  // namespace

Streamer::Streamer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Streamer::Streamer(Streamer&&) noexcept = default;
Streamer& Streamer::operator=(Streamer&&) noexcept = default;
Streamer::~Streamer() = default;  // ~Impl stops the loaders

Streamer::Impl& Streamer::impl() const {
  if (!impl_) throw InvalidInput("this Streamer was moved from; assign a new one before use");
  return *impl_;
}

void Streamer::Impl::stop_loaders() {
  cancelled = true;
  if (ring) ring->cancel();
  std::lock_guard lock(join_mutex);
  for (auto& t : loaders) {
    if (t.joinable()) t.join();
  }
}

StreamProgress Streamer::Impl::progress() const {
  StreamProgress p;
  p.points_total = points_total;
  if (loaders_context) {
    p.points_read = loaders_context->points_read.load();
    p.bytes_read = loaders_context->bytes_read.load();
  }
  // Device slots: each piece's copy starts as the loaders read it.
  p.points_uploaded = ring && ring->on_device() ? p.points_read : points_uploaded.load();
  p.points_inserted = points_inserted.load();
  p.points_refused = points_refused.load();
  p.files_total = files.size();
  p.files_done = files_done.load();
  p.files_failed = files_failed.load();
  p.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  p.points_per_second = p.seconds > 0.0 ? static_cast<double>(p.points_inserted) / p.seconds : 0.0;
  p.done = finished.load() || cancelled.load();
  const std::uint64_t left =
      p.points_total > p.points_inserted ? p.points_total - p.points_inserted : 0;
  p.eta_seconds =
      p.done || p.points_per_second <= 0.0 ? 0.0 : static_cast<double>(left) / p.points_per_second;
  return p;
}

UpdateStats Streamer::update(std::chrono::microseconds budget) {
  using Clock = Impl::Clock;
  Impl& s = impl();
  Octree& tree = *s.octree;
  const auto start = Clock::now();
  UpdateStats stats;
  auto elapsed_ms = [&] {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  auto finish = [&] {
    const auto n = s.plan.batches.size();
    stats.batches_left = n > s.next_batch ? n - s.next_batch : 0;
    stats.duration = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start);
    if (s.next_batch >= n) s.finished = true;
    if (s.config.on_progress) s.config.on_progress(s.progress());
  };
  /// Moves past batch `b`: frees its slot, counts its file.
  auto advance = [&](std::size_t b) {
    s.ring->release(b);
    s.next_batch = b + 1;
    if (s.plan.last_of_source[b] && s.generator == nullptr) s.files_done += 1;
  };

  /// Batch `b`'s file failed with `error`: records it, skips the batch and throws the error.
  auto fail_source = [&](std::size_t b, const std::exception_ptr& error) {
    advance(b);
    s.files_failed += 1;
    const std::size_t failed = s.plan.batches[b].source;
    s.source_failed[failed] = true;
    {
      std::lock_guard lock(s.failures_mutex);
      std::string message;
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        message = e.what();
      } catch (...) {
        message = "unknown error";
      }
      s.failures.push_back({s.generator ? std::filesystem::path() : s.files[failed].path, message,
                            s.source_inserted[failed]});
    }
    finish();
    std::rethrow_exception(error);
  };

  const double budget_ms = std::chrono::duration<double, std::milli>(budget).count();
  while (!s.cancelled && s.next_batch < s.plan.batches.size()) {
    const std::size_t b = s.next_batch;
    const auto entry = s.ring->ready(b);
    if (!entry) break;
    const std::size_t source = s.plan.batches[b].source;
    if (s.source_failed[source] || (entry->points == 0 && !entry->error)) {
      // A batch of a file whose error was reported (its own error, if any, is the same file's
      // and not reported twice), or an empty file: skipped.
      advance(b);
      continue;
    }
    if (entry->error) fail_source(b, entry->error);
    if (stats.batches > 0 && budget_ms > 0.0 && elapsed_ms() + s.batch_ms_estimate > budget_ms) {
      break;  // the next batch would overrun the budget: it waits for the next frame
    }
    if (!entry->slot->on_device()) s.points_uploaded += entry->points;  // the CPU reads it here
    BatchSlot& slot = *entry->slot;
    const auto before = Clock::now();
    if (slot.on_device()) {
      // Device slots are checked here, on the device (batch_ring.hpp).
      if (const auto bad = slot.device.check(tree.cube())) {
        fail_source(b, std::make_exception_ptr(detail::bad_point_error(
                           *s.loaders_context, source, s.plan.batches[b].first, *bad)));
      }
    }
    try {
      if (slot.on_device()) {
        add(stats, tree.insert_now(slot.device));
      } else if (tree.config().channels != 0) {
        add(stats, tree.insert_now(std::as_const(slot.host), slot.attributes));
      } else {
        add(stats, tree.insert_now(std::as_const(slot.host)));
      }
    } catch (const CapacityError& e) {
      // The device is full: what did not fit of this batch is dropped (the stream goes on,
      // later batches may find memory freed).
      const std::uint64_t inserted = e.points_inserted();
      stats.points += inserted;
      s.points_inserted += inserted;
      s.source_inserted[source] += inserted;
      s.points_refused += entry->points - inserted;
      advance(b);
      finish();
      throw;
    } catch (...) {  // InvalidInput, or a failure that left the octree in its failed state
      advance(b);
      finish();
      throw;
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - before).count();
    s.batch_ms_estimate = s.batch_ms_estimate == 0.0 ? ms : 0.8 * s.batch_ms_estimate + 0.2 * ms;
    s.points_inserted += entry->points;
    s.source_inserted[source] += entry->points;
    advance(b);
    if (budget_ms > 0.0 && elapsed_ms() >= budget_ms) break;
  }
  // Everything is in: colours that do not decompose per batch are computed now (once; a
  // later call finds nothing to do).
  if (!s.cancelled && s.next_batch >= s.plan.batches.size()) tree.finalize();
  finish();
  return stats;
}

bool Streamer::wait(std::chrono::microseconds timeout) {
  Impl& s = impl();
  if (s.cancelled || s.next_batch >= s.plan.batches.size()) return false;
  return s.ring->wait_ready(s.next_batch, timeout);
}

void Streamer::cancel() { impl().stop_loaders(); }

void Streamer::compact(std::uint32_t chunk_capacity) {
  refuse_until_done(done());
  impl().octree->compact(chunk_capacity);
}

void Streamer::compact() {
  refuse_until_done(done());
  impl().octree->compact();  // the default capacity of its point encoding
}

const Octree& Streamer::octree() const { return *impl().octree; }
StreamProgress Streamer::progress() const { return impl().progress(); }
bool Streamer::done() const {
  return impl().cancelled || impl().next_batch >= impl().plan.batches.size();
}
const std::vector<FileInfo>& Streamer::files() const { return impl().files; }
const Bounds& Streamer::bounds() const { return impl().bounds; }
std::vector<StreamFailure> Streamer::failures() const {
  std::lock_guard lock(impl().failures_mutex);
  return impl().failures;
}
const std::vector<StreamBatch>& Streamer::batches() const { return impl().plan.batches; }
std::uint64_t Streamer::ring_bytes() const { return impl().ring->capacity_bytes(); }

}  // namespace simlod
