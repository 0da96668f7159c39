#include "synth/order.hpp"

#include <algorithm>
#include <cmath>

#include "simlod/detail/morton.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {
namespace {

constexpr int kMortonBits = 21;

std::uint32_t quantize(double v, double lo, double scale, std::uint32_t max) {
  const double q = std::floor((v - lo) * scale);
  return q <= 0.0 ? 0u : (q >= max ? max : static_cast<std::uint32_t>(q));
}

}  // namespace

std::uint64_t morton3(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return simlod::detail::morton_3d(x, y, z);
}

void morton2_decode(std::uint64_t code, std::uint32_t& x, std::uint32_t& y) {
  x = simlod::detail::compact_bits_2d(code);
  y = simlod::detail::compact_bits_2d(code >> 1);
}

UnitOrder::UnitOrder(const TilePlan& plan, const Box3& scene_bounds, Order order)
    : order_(order),
      side_(plan.tiles_per_side()),
      cube_min_(scene_bounds.lo),
      tile_size_(plan.tile_size()) {
  const Vec3 size = scene_bounds.hi - scene_bounds.lo;
  const double edge = std::max({size.x, size.y, size.z});
  cube_scale_ = static_cast<double>(1u << kMortonBits) / edge;
  // Sweep lines about kScanLineSpacings mean point spacings wide, a whole number per tile so
  // that no line straddles two tiles; firings as far apart along a channel's segment.
  const double spacing =
      kReferenceExtent / std::sqrt(std::max(static_cast<double>(plan.points()), 1.0));
  const double per_tile = std::clamp(std::round(tile_size_ / (kScanLineSpacings * spacing)), 1.0,
                                     static_cast<double>(1u << 20));
  line_width_ = tile_size_ / per_tile;
  line_count_ = static_cast<std::uint64_t>(per_tile) * side_;
  slots_ = static_cast<std::uint32_t>(std::max(1.0, std::round(per_tile / kScanChannels)));
}

std::uint64_t UnitOrder::unit_count() const { return std::uint64_t{side_} * side_; }

std::uint32_t UnitOrder::unit_tile(std::uint64_t unit) const {
  std::uint32_t tx = 0;
  std::uint32_t ty = 0;
  if (order_ == Order::Morton) {
    morton2_decode(unit, tx, ty);
  } else {
    ty = static_cast<std::uint32_t>(unit / side_);
    const auto column = static_cast<std::uint32_t>(unit % side_);
    tx = ty % 2 == 0 ? column : side_ - 1 - column;  // strips alternate direction
  }
  return ty * side_ + tx;
}

std::uint64_t UnitOrder::sort_key(std::uint64_t unit, const Vec3& p) const {
  constexpr std::uint32_t kMax = (1u << kMortonBits) - 1;
  if (order_ == Order::Morton) {
    return morton3(quantize(p.x, cube_min_.x, cube_scale_, kMax),
                   quantize(p.y, cube_min_.y, cube_scale_, kMax),
                   quantize(p.z, cube_min_.z, cube_scale_, kMax));
  }
  const auto last_line = static_cast<std::uint32_t>(line_count_ - 1);
  const std::uint32_t line = quantize(p.x, 0.0, 1.0 / line_width_, last_line);
  const auto strip = static_cast<std::uint32_t>(unit / side_);
  const std::uint64_t rank = strip % 2 == 0 ? line : last_line - line;
  // Across the strip: which channel's segment, and which firing along it.
  const double across = (p.y - strip * tile_size_) / tile_size_ * kScanChannels;
  const std::uint32_t channel = quantize(across, 0.0, 1.0, kScanChannels - 1);
  std::uint32_t slot = quantize(across - channel, 0.0, slots_, slots_ - 1);
  std::uint32_t lane = channel;
  if (rank % 2 == 1) {  // the sweep comes back
    slot = slots_ - 1 - slot;
    lane = kScanChannels - 1 - channel;
  }
  return rank << 32 | std::uint64_t{slot} << 8 | lane;
}

}  // namespace simlod::synth::detail
