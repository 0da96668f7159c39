// The occupancy index while updating (bench/occupancy/replay.hpp): the slot table the
// builders use against a popcount rank directory and a Fenwick rank index, each with bricks
// kept in rank order, on the occupancy work of the incremental sample pass.
//
// The tree is the default configuration's octree of the synthetic scene in scan order
// (SIMLOD_BENCH_POINTS points, Octree::build on CUDA, the node set every batching gives);
// its shape is then fixed, and the points, in scan order and in random order (the scan order
// shuffled), are replayed in batches of 1M (the update benchmark's) through its inner nodes,
// each variant from empty. Every run is checked against
// a host replay of the same walks (cells and a digest of every brick's words must agree).
// Times are CUDA events around the walk kernel and around the merge of each batch, summed;
// 3 repetitions, medians.
//
// Counters: visit_ms and merge_ms (summed over the batches), max_batch_ms,
// Gvisits_per_s (node visits per second of walking), index_B_per_pt and bricks_B_per_pt
// (bytes per input point at the end), merge_MB (the largest extra memory of one merge),
// bricks, visits_per_pt.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_env.hpp"
#include "bench_scene.hpp"
#include "simlod/backend.hpp"
#include "simlod/detail/occupancy_codec.hpp"
#include "simlod/octree.hpp"

#if SIMLOD_BENCH_HAS_CUDA
#include "occupancy/replay.hpp"
#endif

namespace {

#if SIMLOD_BENCH_HAS_CUDA
using simlod::bench::occupancy::IndexKind;
using simlod::bench::occupancy::kNone;
using simlod::bench::occupancy::QuantPoint;
using simlod::bench::occupancy::ReplayResult;
using simlod::bench::occupancy::ReplayTree;

constexpr std::size_t kBatchPoints = 1'000'000;

struct Study {
  ReplayTree tree;
  std::map<int, std::vector<QuantPoint>> points;  ///< by simlod::bench::Order
  ReplayResult expected;  ///< the host replay: visits, bricks, cells, digest (any order)
};

/// The tree's shape from the node reader: the root first, children by octant (from their
/// positions), grids numbered over the inner nodes.
ReplayTree shape_of(const simlod::Octree& tree) {
  std::vector<simlod::NodeInfo> nodes;
  tree.for_each_node([&](const simlod::NodeInfo& n) { nodes.push_back(n); });
  std::map<std::uint32_t, std::uint32_t> index;
  std::uint32_t next = 1;
  for (const auto& n : nodes) index[n.id] = n.level == 0 ? 0 : next++;
  ReplayTree r;
  r.children.assign(nodes.size() * 8, kNone);
  r.grid.assign(nodes.size(), kNone);
  std::map<std::uint32_t, const simlod::NodeInfo*> by_id;
  for (const auto& n : nodes) by_id[n.id] = &n;
  for (const auto& n : nodes) {
    const std::uint32_t at = index.at(n.id);
    if (!n.leaf) r.grid[at] = r.grids++;
    for (std::int64_t c : n.children) {
      if (c < 0) continue;
      const simlod::NodeInfo& child = *by_id.at(static_cast<std::uint32_t>(c));
      std::uint32_t octant = 0;
      for (std::uint32_t a = 0; a < 3; ++a) octant |= (child.position[a] & 1u) << a;
      r.children[std::size_t{at} * 8 + octant] = index.at(child.id);
    }
  }
  return r;
}

/// The walks on the host: every brick's words, then cells, bricks and digest.
ReplayResult host_replay(const ReplayTree& tree, const std::vector<QuantPoint>& points) {
  const auto occ = simlod::detail::occupancy_layout(tree.grid_bits, 16000);
  std::vector<std::uint32_t> words(std::size_t{tree.grids} * occ.bricks * 16, 0);
  ReplayResult r;
  for (const QuantPoint& q : points) {
    simlod::bench::occupancy::walk(
        tree.children.data(), tree.grid.data(), q, [&](std::uint32_t g, std::uint32_t level) {
          ++r.visits;
          const std::uint32_t cell = simlod::detail::cell_index(q, level, tree.grid_bits);
          const std::uint32_t b = simlod::detail::brick_bit(cell, occ);
          const std::size_t brick =
              std::size_t{g} * occ.bricks + simlod::detail::brick_of(cell, occ);
          words[brick * 16 + (b >> 5)] |= 1u << (b & 31u);
        });
  }
  for (std::size_t brick = 0; brick < words.size() / 16; ++brick) {
    bool any = false;
    for (std::uint32_t w = 0; w < 16; ++w) {
      const std::uint32_t word = words[brick * 16 + w];
      any |= word != 0;
      r.cells += static_cast<std::uint64_t>(std::popcount(word));
      r.digest += simlod::bench::occupancy::occupancy_digest_term(
          brick / occ.bricks, static_cast<std::uint32_t>(brick % occ.bricks), w, word);
    }
    r.bricks += any ? 1 : 0;
  }
  return r;
}

/// The quantised points of the scene in `order`.
std::vector<QuantPoint> quantised(std::uint64_t n, simlod::bench::Order order) {
  const auto& scene = simlod::bench::scene(n, order);
  const simlod::Bounds cube = simlod::Octree::root_cube(scene.bounds);
  const float scale = simlod::detail::quant_scale(static_cast<float>(cube.max[0] - cube.min[0]));
  std::vector<QuantPoint> q;
  q.reserve(scene.points.size());
  for (const auto& p : scene.points) q.push_back(simlod::detail::quantize(p, scale));
  return q;
}

/// The tree, the points in scan and random order and the host replay, made once.
const Study& study() {
  static std::unique_ptr<Study> s;
  if (s) return *s;
  const std::uint64_t n = simlod::bench::env_points("SIMLOD_BENCH_POINTS", 1'000'000);
  const auto& scene = simlod::bench::scene(n, simlod::bench::Order::Scan);
  simlod::OctreeConfig config;
  config.backend = simlod::Backend::Cuda;
  const simlod::Octree tree = simlod::Octree::build(scene.points, scene.bounds, config);
  s = std::make_unique<Study>();
  s->tree = shape_of(tree);
  s->tree.grid_bits = static_cast<std::uint32_t>(std::countr_zero(tree.config().voxel_grid));
  for (const auto order : {simlod::bench::Order::Scan, simlod::bench::Order::Random}) {
    s->points[static_cast<int>(order)] = quantised(n, order);
  }
  s->expected = host_replay(s->tree, s->points.at(static_cast<int>(simlod::bench::Order::Scan)));
  return *s;
}

void occupancy(benchmark::State& state, IndexKind kind, simlod::bench::Order order) {
  if (simlod::cuda_device_count() == 0) {
    state.SkipWithError(("no CUDA device: " + simlod::cuda_unavailable_reason()).c_str());
    return;
  }
  const Study& s = study();
  const std::vector<QuantPoint>& points = s.points.at(static_cast<int>(order));
  ReplayResult r;
  for (auto _ : state) {
    r = simlod::bench::occupancy::replay(s.tree, points, kBatchPoints, kind);
    state.SetIterationTime((r.visit_ms + r.merge_ms) / 1e3);
  }
  const ReplayResult& e = s.expected;
  if (r.visits != e.visits) {
    state.SkipWithError("the walks visited other nodes than the host's");
    return;
  }
  if (kind != IndexKind::Walk &&
      (r.cells != e.cells || r.bricks != e.bricks || r.digest != e.digest)) {
    state.SkipWithError(("the bricks differ from the host replay: cells " +
                         std::to_string(r.cells) + " / " + std::to_string(e.cells) + ", bricks " +
                         std::to_string(r.bricks) + " / " + std::to_string(e.bricks))
                            .c_str());
    return;
  }
  const auto count = static_cast<double>(points.size());
  state.counters["visit_ms"] = r.visit_ms;
  state.counters["merge_ms"] = r.merge_ms;
  state.counters["max_batch_ms"] = r.max_batch_ms;
  state.counters["Gvisits_per_s"] = static_cast<double>(r.visits) / (r.visit_ms * 1e6);
  state.counters["visits_per_pt"] = static_cast<double>(r.visits) / count;
  state.counters["index_B_per_pt"] = static_cast<double>(r.index_bytes) / count;
  state.counters["bricks_B_per_pt"] = static_cast<double>(r.bricks * 64) / count;
  state.counters["merge_MB"] = static_cast<double>(r.merge_bytes) / 1e6;
  state.counters["bricks"] = static_cast<double>(r.bricks);
  state.counters["grids"] = static_cast<double>(s.tree.grids);
}

using simlod::bench::Order;
SIMLOD_MANUAL_BENCH(3, occupancy, walk, IndexKind::Walk, Order::Scan);
SIMLOD_MANUAL_BENCH(3, occupancy, slot_table, IndexKind::SlotTable, Order::Scan);
SIMLOD_MANUAL_BENCH(3, occupancy, rank_directory, IndexKind::RankDirectory, Order::Scan);
SIMLOD_MANUAL_BENCH(3, occupancy, fenwick, IndexKind::Fenwick, Order::Scan);
SIMLOD_MANUAL_BENCH(3, occupancy, walk_random, IndexKind::Walk, Order::Random);
SIMLOD_MANUAL_BENCH(3, occupancy, slot_table_random, IndexKind::SlotTable, Order::Random);
SIMLOD_MANUAL_BENCH(3, occupancy, rank_directory_random, IndexKind::RankDirectory, Order::Random);
SIMLOD_MANUAL_BENCH(3, occupancy, fenwick_random, IndexKind::Fenwick, Order::Random);

#else

void occupancy(benchmark::State& state) {
  state.SkipWithError("built without CUDA: the occupancy study runs on CUDA only");
}
BENCHMARK(occupancy);

#endif

}  // namespace

BENCHMARK_MAIN();
