#include "synth/footprints.hpp"

#include <algorithm>
#include <cmath>

#include "synth/tuning.hpp"

namespace simlod::synth::detail {

Footprints::Footprints() : buckets_(static_cast<std::size_t>(kGrid) * kGrid) {}

int Footprints::bucket_of(double v) {
  return std::clamp(static_cast<int>(std::floor(v * kGrid / kReferenceExtent)), 0, kGrid - 1);
}

void Footprints::add(const Rect& rect) {
  const auto id = static_cast<std::uint32_t>(rects_.size());
  rects_.push_back(rect);
  max_size_ = std::max({max_size_, rect.x1 - rect.x0, rect.y1 - rect.y0});
  const int bx = bucket_of(0.5 * (rect.x0 + rect.x1));
  const int by = bucket_of(0.5 * (rect.y0 + rect.y1));
  buckets_[static_cast<std::size_t>(by) * kGrid + static_cast<std::size_t>(bx)].push_back(id);
}

bool Footprints::near(double x, double y, double margin) const {
  // A rectangle within `margin` has its centre within max_size_/2 + margin of (x, y).
  const double reach = 0.5 * max_size_ + margin;
  const int bx0 = bucket_of(x - reach);
  const int bx1 = bucket_of(x + reach);
  const int by0 = bucket_of(y - reach);
  const int by1 = bucket_of(y + reach);
  for (int by = by0; by <= by1; ++by) {
    for (int bx = bx0; bx <= bx1; ++bx) {
      for (std::uint32_t id :
           buckets_[static_cast<std::size_t>(by) * kGrid + static_cast<std::size_t>(bx)]) {
        if (rects_[id].grown(margin).contains(x, y)) return true;
      }
    }
  }
  return false;
}

bool Footprints::contains(double x, double y) const { return near(x, y, 0.0); }

double Footprints::covered_area(const Rect& cell) const {
  const double reach = 0.5 * max_size_;
  const int bx0 = bucket_of(cell.x0 - reach);
  const int bx1 = bucket_of(cell.x1 + reach);
  const int by0 = bucket_of(cell.y0 - reach);
  const int by1 = bucket_of(cell.y1 + reach);
  double area = 0.0;
  for (int by = by0; by <= by1; ++by) {
    for (int bx = bx0; bx <= bx1; ++bx) {
      for (std::uint32_t id :
           buckets_[static_cast<std::size_t>(by) * kGrid + static_cast<std::size_t>(bx)]) {
        area += rects_[id].overlap(cell);
      }
    }
  }
  return area;
}

}  // namespace simlod::synth::detail
