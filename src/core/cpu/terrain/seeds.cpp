// The CPU executor of the seed search (core/terrain_plan.hpp): the library's thread pool,
// atomics on shared cell arrays with runs of one cell combined per worker first (points of a
// scan arrive a few per cell in a row).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>

#include "core/cpu/terrain/terrain.hpp"
#include "core/cpu/tuning.hpp"
#include "core/stopwatch.hpp"
#include "core/thread_pool.hpp"

namespace simlod::detail::cpu {
namespace {

void atomic_min(std::uint64_t& slot, std::uint64_t v) {
  std::atomic_ref<std::uint64_t> a(slot);
  std::uint64_t cur = a.load(std::memory_order_relaxed);
  while (v < cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

void atomic_add(std::uint32_t& slot, std::uint32_t v) {
  std::atomic_ref<std::uint32_t>(slot).fetch_add(v, std::memory_order_relaxed);
}

std::uint64_t cell_of(const GroundAxis& ax, const GroundAxis& ay, const Point& p) {
  return index_cell(ax, ay, p.x, p.y);
}

class CpuSeeds final : public SeedExecutor {
 public:
  CpuSeeds(std::span<const Point> points, std::span<const std::uint8_t> skip)
      : points_(points), skip_(skip), pool_(ThreadPool::shared()) {}

  GroundBox bounds(double& ms) override {
    const Stopwatch watch;
    std::vector<GroundBox> part(pool_.size());
    for (GroundBox& b : part) {
      b.min_x = b.min_y = std::numeric_limits<float>::infinity();
      b.max_x = b.max_y = -std::numeric_limits<float>::infinity();
    }
    pool_.parallel_for(points_.size(), kCpuPointGrain,
                       [&](unsigned w, std::size_t b, std::size_t e) {
                         GroundBox& box = part[w];
                         for (std::size_t i = b; i < e; ++i) {
                           if (skipped(i)) continue;
                           const Point& p = points_[i];
                           if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
                             box.first_bad = std::min<std::uint64_t>(box.first_bad, i);
                             continue;
                           }
                           box.min_x = std::min(box.min_x, p.x);
                           box.max_x = std::max(box.max_x, p.x);
                           box.min_y = std::min(box.min_y, p.y);
                           box.max_y = std::max(box.max_y, p.y);
                           ++box.kept;
                         }
                       });
    GroundBox all = part[0];
    for (std::size_t w = 1; w < part.size(); ++w) {
      all.min_x = std::min(all.min_x, part[w].min_x);
      all.max_x = std::max(all.max_x, part[w].max_x);
      all.min_y = std::min(all.min_y, part[w].min_y);
      all.max_y = std::max(all.max_y, part[w].max_y);
      all.kept += part[w].kept;
      all.first_bad = std::min(all.first_bad, part[w].first_bad);
    }
    ms = watch.ms();
    return all;
  }

  void index(const SeedPlan& plan, double& ms) override {
    const Stopwatch watch;
    count_.assign(plan.cells(), 0);
    min_.assign(plan.cells(), kNoKey);
    const GroundAxis ax = plan.x.view();
    const GroundAxis ay = plan.y.view();
    pool_.parallel_for(points_.size(), kCpuPointGrain, [&](unsigned, std::size_t b, std::size_t e) {
      std::uint64_t run_cell = plan.cells();
      std::uint32_t run_count = 0;
      std::uint64_t run_min = kNoKey;
      const auto flush = [&] {
        if (run_count == 0) return;
        atomic_add(count_[run_cell], run_count);
        atomic_min(min_[run_cell], run_min);
      };
      for (std::size_t i = b; i < e; ++i) {
        if (skipped(i)) continue;
        const std::uint64_t c = cell_of(ax, ay, points_[i]);
        if (c == plan.cells()) continue;
        const std::uint64_t key = ground_key(points_[i].z, static_cast<std::uint32_t>(i));
        if (c != run_cell) {
          flush();
          run_cell = c;
          run_count = 0;
          run_min = kNoKey;
        }
        ++run_count;
        run_min = std::min(run_min, key);
      }
      flush();
    });
    ms = watch.ms();
  }

  std::uint64_t outliers(const SeedPlan& plan, double& ms) override {
    const Stopwatch watch;
    const std::uint32_t sx = plan.x.strips();
    const std::uint32_t sy = plan.y.strips();
    outlier_.assign(plan.cells(), 0);
    std::atomic<std::uint64_t> found{0};
    pool_.parallel_for(sy, 1, [&](unsigned, std::size_t b, std::size_t e) {
      std::uint64_t local = 0;
      for (std::size_t y = b; y < e; ++y) {
        for (std::uint32_t x = 0; x < sx; ++x) {
          if (!low_outlier_cell(min_.data(), x, static_cast<std::uint32_t>(y), sx, sy,
                                plan.low_outlier)) {
            continue;
          }
          outlier_[y * sx + x] = 1;
          ++local;
        }
      }
      found += local;
    });
    ms = watch.ms();
    return found.load();
  }

  WindowResult windows(const SeedPlan& plan, double& ms) override {
    const Stopwatch watch;
    const std::uint32_t sx = plan.x.strips();
    std::vector<std::uint32_t> votes(plan.cells(), 0);
    std::atomic<std::uint64_t> used{0};
    pool_.parallel_for(plan.y.windows(), 1, [&](unsigned, std::size_t b, std::size_t e) {
      std::uint64_t local = 0;
      for (std::size_t j = b; j < e; ++j) {
        for (std::uint32_t i = 0; i < plan.x.windows(); ++i) {
          const WindowPick pick = pick_window(
              count_.data(), min_.data(), outlier_.empty() ? nullptr : outlier_.data(), sx,
              plan.x.window_lo[i], plan.x.window_hi[i], plan.y.window_lo[j], plan.y.window_hi[j]);
          if (pick.total < plan.min_points) continue;
          ++local;
          if (pick.best != kNoKey) atomic_add(votes[pick.cell], 1);
        }
      }
      used += local;
    });
    WindowResult r;
    r.windows_used = used.load();
    for (std::uint64_t c = 0; c < votes.size(); ++c) {
      if (votes[c] >= 1) ++r.local_minima;
      if (votes[c] >= 2) r.seeds.push_back(key_index(min_[c]));
    }
    ms = watch.ms();
    return r;
  }

  std::vector<std::uint32_t> gap(const SeedPlan& plan, const std::vector<std::uint32_t>& seeds,
                                 double& ms) override {
    const Stopwatch watch;
    const GapPlan& g = plan.gap;
    std::vector<std::uint64_t> lowest(static_cast<std::uint64_t>(g.nx) * g.ny, kNoKey);
    const GroundAxis ax = plan.x.view();
    const GroundAxis ay = plan.y.view();
    pool_.parallel_for(points_.size(), kCpuPointGrain, [&](unsigned, std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        if (skipped(i)) continue;
        const Point& p = points_[i];
        const std::uint64_t key = ground_key(p.z, static_cast<std::uint32_t>(i));
        if (!outlier_.empty()) {
          const std::uint64_t c = cell_of(ax, ay, p);
          if (c != plan.cells() && outlier_[c] != 0 && min_[c] == key) continue;
        }
        atomic_min(lowest[gap_index(g, p)], key);
      }
    });
    std::vector<std::uint8_t> has_seed(lowest.size(), 0);
    for (std::uint32_t s : seeds) has_seed[gap_index(g, points_[s])] = 1;
    std::vector<std::uint32_t> out;
    for (std::size_t c = 0; c < lowest.size(); ++c) {
      if (lowest[c] != kNoKey && has_seed[c] == 0) out.push_back(key_index(lowest[c]));
    }
    std::sort(out.begin(), out.end());
    ms = watch.ms();
    return out;
  }

 private:
  [[nodiscard]] bool skipped(std::size_t i) const { return !skip_.empty() && skip_[i] != 0; }

  static std::uint64_t gap_index(const GapPlan& g, const Point& p) {
    return static_cast<std::uint64_t>(gap_cell_of(p.y, g.min_y, g.cell, g.ny)) * g.nx +
           gap_cell_of(p.x, g.min_x, g.cell, g.nx);
  }

  std::span<const Point> points_;
  std::span<const std::uint8_t> skip_;
  PoolView pool_;
  std::vector<std::uint32_t> count_;
  std::vector<std::uint64_t> min_;
  std::vector<std::uint8_t> outlier_;  // empty: filter off
};

}  // namespace

std::unique_ptr<SeedExecutor> make_seed_executor(std::span<const Point> points,
                                                 std::span<const std::uint8_t> skip) {
  return std::make_unique<CpuSeeds>(points, skip);
}

}  // namespace simlod::detail::cpu
