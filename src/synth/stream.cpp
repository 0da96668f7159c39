#include "synth/stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "simlod/error.hpp"
#include "synth/parallel.hpp"
#include "synth/sampler.hpp"

namespace simlod::synth::detail {
namespace {

void validate(const SceneConfig& config) {
  if (!std::isfinite(config.extent) || config.extent < kMinExtent || config.extent > kMaxExtent) {
    throw InvalidInput(fmt::format(
        "synthetic scene: extent {} m is out of range (expected a finite value in [{}, {}] m)",
        config.extent, kMinExtent, kMaxExtent));
  }
  if (config.order != Order::Scan && config.order != Order::Morton) {
    throw InvalidInput(
        fmt::format("synthetic scene: unknown order {}", static_cast<int>(config.order)));
  }
}

float round_down(double v) {
  const auto f = static_cast<float>(v);
  return static_cast<double>(f) > v ? std::nextafter(f, -INFINITY) : f;
}

float round_up(double v) {
  const auto f = static_cast<float>(v);
  return static_cast<double>(f) < v ? std::nextafter(f, INFINITY) : f;
}

struct TileJob {
  std::uint32_t tile = 0;
  std::uint64_t unit = 0;
  std::size_t offset = 0;  // first slot of the tile's points in the chunk
  std::uint64_t count = 0;
};

struct WorkItem {
  std::size_t job = 0;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

}  // namespace

PointStream::PointStream(const SceneConfig& config, std::uint64_t max_unit_points)
    : config_(config) {
  validate(config);
  scene_ = std::make_unique<Scene>(config.seed);
  plan_ = std::make_unique<TilePlan>(*scene_, config.points, max_unit_points);
  order_ = std::make_unique<UnitOrder>(*plan_, scene_->bounds, config.order);
  scale_ = config.extent / kReferenceExtent;
  const Box3& b = scene_->bounds;
  lo_ = {round_down(b.lo.x * scale_), round_down(b.lo.y * scale_), round_down(b.lo.z * scale_)};
  hi_ = {round_up(b.hi.x * scale_), round_up(b.hi.y * scale_), round_up(b.hi.z * scale_)};
  bounds_.min = {lo_[0], lo_[1], lo_[2]};
  bounds_.max = {hi_[0], hi_[1], hi_[2]};
}

Point PointStream::to_point(const Vec3& p, std::uint32_t rgba) const {
  // Clamping only guards against rounding: scene bounds already contain every point.
  return {std::clamp(static_cast<float>(p.x * scale_), lo_[0], hi_[0]),
          std::clamp(static_cast<float>(p.y * scale_), lo_[1], hi_[1]),
          std::clamp(static_cast<float>(p.z * scale_), lo_[2], hi_[2]), rgba};
}

std::size_t PointStream::next(std::span<Point> out, std::span<std::uint8_t> classes) {
  if (classes.size() < out.size()) {
    throw InvalidInput(fmt::format(
        "synthetic scene: {} classes for {} points (the classes span must be at least as long)",
        classes.size(), out.size()));
  }
  return fill(out, classes);
}

double PointStream::ground_height(double x, double y) const {
  return scene_->terrain.land(x / scale_, y / scale_).height * scale_;
}

double PointStream::water_level() const { return scene_->terrain.water_level() * scale_; }

std::size_t PointStream::fill(std::span<Point> out, std::span<std::uint8_t> classes) {
  std::size_t written = 0;
  while (written < out.size() && generated_ < config_.points) {
    if (cursor_ == chunk_size_) produce_chunk();
    const std::size_t n = std::min(out.size() - written, chunk_size_ - cursor_);
    for (std::size_t i = 0; i < n; ++i) out[written + i] = points_[sorted_[cursor_ + i].index];
    // A loop of its own keeps the plain copy above free of a per-point branch.
    if (!classes.empty()) {
      for (std::size_t i = 0; i < n; ++i) {
        classes[written + i] = sorted_[cursor_ + i].classification;
      }
    }
    cursor_ += n;
    written += n;
    generated_ += n;
  }
  return written;
}

void PointStream::produce_chunk() {
  // Gather whole units (tiles) up to the chunk target (at least one non-empty unit).
  std::vector<TileJob> jobs;
  std::vector<std::size_t> unit_offsets{0};
  std::size_t total = 0;
  while (next_unit_ < order_->unit_count()) {
    const std::uint32_t tile = order_->unit_tile(next_unit_);
    const std::uint64_t count = plan_->budget(tile);
    if (total > 0 && total + count > kChunkTargetPoints) break;
    if (count > 0) {
      jobs.push_back({tile, next_unit_, total, count});
      total += count;
      unit_offsets.push_back(total);
    }
    ++next_unit_;
  }

  std::vector<std::optional<TileSampler>> samplers(jobs.size());
  parallel_for(jobs.size(),
               [&](std::size_t j) { samplers[j].emplace(*scene_, *plan_, jobs[j].tile); });
  std::vector<WorkItem> items;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (std::uint64_t b = 0; b < jobs[j].count; b += kWorkItemPoints) {
      items.push_back({j, b, std::min(jobs[j].count, b + kWorkItemPoints)});
    }
  }
  // Buffers only grow: re-initialising (and first touching) them per chunk cost a fifth of
  // the time.
  if (points_.size() < total) {
    points_.resize(total);
    records_.resize(total);
    sorted_.resize(total);
  }
  chunk_size_ = total;
  parallel_for(items.size(), [&](std::size_t w) {
    const WorkItem& item = items[w];
    const TileJob& job = jobs[item.job];
    const TileSampler& sampler = *samplers[item.job];
    for (std::uint64_t i = item.begin; i < item.end; ++i) {
      const ScenePoint sp = sampler.sample(i);
      const std::size_t slot = job.offset + static_cast<std::size_t>(i);
      points_[slot] = to_point(sp.position, sp.rgba);
      records_[slot] = {order_->sort_key(job.unit, sp.position), static_cast<std::uint32_t>(slot),
                        sp.classification};
    }
  });
  sort_units(std::span(records_).first(total), unit_offsets, std::span(sorted_).first(total));
  cursor_ = 0;
}

}  // namespace simlod::synth::detail
