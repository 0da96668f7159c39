// The CPU renderer: node selection and splatting over any host tree, written once for the CPU
// backend's chunk lists and for snapshots. A tree is any type with
//   std::size_t size() const;                         nodes, root = 0
//   RenderNode node(std::size_t i) const;
//   std::uint32_t record_bytes() const;               channel record size (0: none)
//   template <class Fn> void for_each_run(std::size_t i, Fn fn) const;
//                                                     fn(const Point*, const std::byte* records,
//                                                     std::size_t) per run of the node's
//                                                     samples (records: nullptr without channels)
// The per-node and per-sample arithmetic is the CUDA renderer's (core/render_math.hpp).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "core/channels.hpp"
#include "core/cpu/render/framebuffer.hpp"
#include "core/render_job.hpp"
#include "simlod/octree.hpp"

namespace simlod::detail::cpu {

struct RenderNode {
  std::uint32_t level = 0, x = 0, y = 0, z = 0;
  bool leaf = true;
  std::uint64_t count = 0;  ///< points (leaf) or voxels (inner node)
};

/// A snapshot (Octree::snapshot()) as a tree for the CPU renderer.
class SnapshotTree {
 public:
  explicit SnapshotTree(const NodeSnapshot& s) : s_(s), layout_(channel_layout(s.channels)) {}

  [[nodiscard]] std::size_t size() const { return s_.nodes.size(); }
  [[nodiscard]] RenderNode node(std::size_t i) const {
    const NodeSnapshot::Node& n = s_.nodes[i];
    return RenderNode{n.level,       n.position[0], n.position[1],
                      n.position[2], n.leaf,        (n.leaf ? n.points : n.voxels).size()};
  }
  [[nodiscard]] std::uint32_t record_bytes() const { return layout_.record_bytes; }
  /// With channels, the node's attributes are packed into records first (per thread), so a
  /// snapshot whose attribute arrays are shorter than its samples is refused by the caller.
  template <class Fn>
  void for_each_run(std::size_t i, Fn fn) const {
    const NodeSnapshot::Node& n = s_.nodes[i];
    const std::vector<Point>& samples = n.leaf ? n.points : n.voxels;
    if (samples.empty()) return;
    if (layout_.record_bytes == 0) return fn(samples.data(), nullptr, samples.size());
    thread_local std::vector<std::byte> records;
    records.resize(samples.size() * layout_.record_bytes);
    pack_records(n.attributes, layout_, 0, samples.size(), records.data());
    fn(samples.data(), records.data(), samples.size());
  }

 private:
  const NodeSnapshot& s_;
  ChannelLayout layout_;
};

struct Selection {
  std::vector<std::uint32_t> drawn;  ///< node indices, ascending
  float threshold = 0.0f;            ///< after the budget
  RenderStats stats;                 ///< nodes, leaves, points, voxels, threshold
};

/// Nodes per block of the parallel selection loop.
inline constexpr std::size_t kSelectGrain = 1024;

template <class Tree>
Selection select_nodes(const Tree& tree, const RenderJob& job, PoolView& pool) {
  const std::size_t n = tree.size();
  std::vector<DrawRange> ranges(n);
  pool.parallel_for(n, kSelectGrain, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const RenderNode node = tree.node(i);
      ranges[i] = draw_range(job.params, node.level, node.x, node.y, node.z, node.leaf);
    }
  });
  Selection s;
  s.threshold = job.params.threshold;
  if (job.budget != 0) {
    std::array<std::uint64_t, kBudgetSteps + 1> hist{};
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t count = tree.node(i).count;
      for (std::uint32_t k = 0; k <= kBudgetSteps; ++k) {
        if (draws(ranges[i], budget_threshold(job.params.threshold, k))) hist[k] += count;
      }
    }
    s.threshold =
        budget_threshold(job.params.threshold, choose_budget_step(hist.data(), job.budget));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!draws(ranges[i], s.threshold)) continue;
    const RenderNode node = tree.node(i);
    s.drawn.push_back(static_cast<std::uint32_t>(i));
    ++s.stats.nodes;
    (node.leaf ? s.stats.points : s.stats.voxels) += node.count;
    s.stats.leaves += node.leaf ? 1 : 0;
  }
  s.stats.threshold = s.threshold;
  return s;
}

/// Atomic minimum of a framebuffer word (host twin of the device's atomicMin), after an early
/// test against the current value.
inline void splat_word(std::uint64_t* words, std::uint32_t pixel, std::uint64_t word) {
  std::atomic_ref<std::uint64_t> ref(words[pixel]);
  std::uint64_t current = ref.load(std::memory_order_relaxed);
  while (word < current && !ref.compare_exchange_weak(current, word, std::memory_order_relaxed)) {
  }
}

/// Clears the framebuffer, draws the selected nodes (two passes in High quality) and resolves.
template <class Tree>
RenderStats render_on_cpu(const Tree& tree, const RenderJob& job, Framebuffer& fb) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  const auto t0 = Clock::now();
  fb.clear(job.blend);
  const Selection sel = select_nodes(tree, job, fb.pool());
  const auto t1 = Clock::now();
  const RenderParams& p = job.params;
  std::uint64_t* words = fb.words();
  std::uint64_t* sums = fb.sums();
  const std::size_t stride = tree.record_bytes();
  auto pass = [&](bool second) {
    fb.pool().parallel_for(sel.drawn.size(), 1, [&](unsigned, std::size_t begin, std::size_t end) {
      for (std::size_t d = begin; d < end; ++d) {
        tree.for_each_run(sel.drawn[d],
                          [&](const Point* pts, const std::byte* records, std::size_t count) {
                            const auto* record = reinterpret_cast<const std::uint8_t*>(records);
                            for (std::size_t j = 0; j < count; ++j, record += stride) {
                              const Point& q = pts[j];
                              const std::uint32_t rgba = sample_color(p, q.z, q.rgba, record);
                              std::uint32_t pixel = 0;
                              std::uint64_t word = 0;
                              if (!project_sample(p, q.x, q.y, q.z, rgba, pixel, word)) continue;
                              for_each_covered(p, pixel, [&](std::uint32_t px) {
                                if (!second) {
                                  splat_word(words, px, word);
                                } else if (blends(word, words[px])) {
                                  std::atomic_ref<std::uint64_t>(sums[2 * std::size_t{px}])
                                      .fetch_add(blend_sum0(rgba), std::memory_order_relaxed);
                                  std::atomic_ref<std::uint64_t>(sums[2 * std::size_t{px} + 1])
                                      .fetch_add(blend_sum1(rgba), std::memory_order_relaxed);
                                }
                              });
                            }
                          });
      }
    });
  };
  pass(false);
  if (job.blend) pass(true);
  const auto t2 = Clock::now();
  RenderStats stats = sel.stats;
  stats.resolve_ms = fb.resolve(job.resolve);
  const auto t3 = Clock::now();
  stats.select_ms = ms(t0, t1);
  stats.splat_ms = ms(t1, t2);
  stats.total_ms = ms(t0, t3);
  return stats;
}

struct ReadView;  // core/cpu/tree/store.hpp

/// The entry points (core/cpu/render/render.cpp): a store's tree, or a snapshot.
RenderStats render(const ReadView& tree, const RenderJob& job, Framebuffer& fb);
RenderStats render(const NodeSnapshot& snapshot, const RenderJob& job, Framebuffer& fb);

}  // namespace simlod::detail::cpu
