// Phase 1, expand: count the batch's points per leaf and split overfull leaves until none is.
//
// A point's walk resumes where it stopped in the previous round: only points of leaves that
// just split walk again, and the counts of the other leaves stay valid. That gives the same
// counts (and splits) as walking every point from the root in every round.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>

#include "core/cpu/tuning.hpp"
#include "core/cpu/update/local_counts.hpp"
#include "core/cpu/update/updater.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cpu {

std::uint32_t Updater::expand(Batch& b) {
  std::vector<std::uint32_t> touched;
  for (std::uint32_t round = 1;; ++round) {
    touched.clear();
    count_round(b, round == 1, touched);
    std::sort(touched.begin(), touched.end());  // deterministic node ids
    bool split_any = false;
    for (const std::uint32_t leaf : touched) {
      const CpuNode& n = nodes_[leaf];
      if (n.count + scratch_[leaf].pending > config_.max_points_per_leaf &&
          n.level < geometry_.max_depth) {
        split(b, leaf);
        split_any = true;
      } else {
        b.leaves.push_back(leaf);
      }
    }
    if (!split_any) return round;
  }
}

void Updater::add_pending(std::uint32_t node, std::uint32_t n, std::vector<std::uint32_t>& list) {
  std::atomic_ref<std::uint32_t> pending(scratch_[node].pending);
  if (pending.fetch_add(n, std::memory_order_relaxed) == 0) list.push_back(node);
}

void Updater::count_round(Batch& b, bool first, std::vector<std::uint32_t>& touched) {
  auto& per_worker = b.per_worker;
  for (auto& list : per_worker) list.clear();
  pool_.parallel_for(b.size(), kCpuPointGrain, [&](unsigned w, std::size_t lo, std::size_t hi) {
    auto& mine = per_worker[w];
    auto flush = [&](std::uint32_t node, std::uint32_t n) { add_pending(node, n, mine); };
    LocalCounts counts;
    for (std::size_t i = lo; i < hi; ++i) {
      std::uint32_t node = b.node_of[i];
      if (!first && nodes_[node].leaf()) continue;  // its leaf did not split: counted already
      while (!nodes_[node].leaf()) {
        const CpuNode& n = nodes_[node];
        node = n.first_child + child_octant(b.q[i], n.level);
      }
      b.node_of[i] = node;
      counts.add(node, flush);
    }
    counts.flush_all(flush);
  });
  for (const auto& list : per_worker) touched.insert(touched.end(), list.begin(), list.end());
}

void Updater::split(Batch& b, std::uint32_t leaf) {
  const CpuNode before = nodes_[leaf];
  require(b, 8 * kNodeBytes + grids_.layout().table_bytes,
          "nodes and an occupancy grid's slot table for splits");
  if (b.size() + before.count >= kNone) {  // per-batch counters are 32-bit
    throw CapacityError(
        fmt::format("a batch of {} points plus the points of the leaves it "
                    "splits exceeds 2^32 points; insert smaller batches",
                    b.input.size()));
  }
  if (nodes_.size() + 8 >= kNone) {  // node ids are 32-bit
    throw CapacityError(
        fmt::format("the octree reached {} nodes, the most it can index; a batch "
                    "of {} points was not inserted",
                    nodes_.size(), b.input.size()));
  }
  // From the journal entry on, every change below is undone by rollback().
  b.splits.push_back({leaf, before});
  const std::uint32_t grid = grids_.acquire();
  const auto first = static_cast<std::uint32_t>(nodes_.size());
  for (std::uint32_t k = 0; k < 8; ++k) {
    nodes_.push_back(before.child(k));
    scratch_.emplace_back();
  }
  // Its stored points join the batch; they walk on from this node in the next round.
  const std::size_t old_size = b.size();
  const auto count = static_cast<std::size_t>(before.count);
  store_.read().for_each_point(leaf, [&](const Point& p, const QuantPoint& q, const std::byte* r) {
    b.spill.push_back(p);
    if (r != nullptr) b.spill_records.insert(b.spill_records.end(), r, r + b.record_bytes);
    b.q.push_back(q);
  });
  b.node_of.resize(old_size + count, leaf);
  b.released += chunks_for(before.count, true);
  b.depth = std::max(b.depth, before.level + 1);

  CpuNode& n = nodes_[leaf];
  n.first_child = first;
  n.grid = grid;
  n.head = n.tail = kNone;
  n.count = 0;
  scratch_[leaf].pending = 0;
}

}  // namespace simlod::detail::cpu
