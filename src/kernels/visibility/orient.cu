// estimate_normals' propagated orientation on CUDA, with the CPU's rules
// (simlod/detail/normal_orientation.hpp) and so its result bit for bit:
// - the graph's edges (one per pair of neighbours) sorted by (weight, slot): a CUB select of the
//   edge slots, then a stable CUB radix sort by weight;
// - the minimum spanning forest by Boruvka's rounds: each part takes its cheapest outgoing edge
//   (an atomicMin of the edge's rank), parts hook along them, pointer jumping relabels. With a
//   strict order of the edges this is the forest Kruskal's algorithm finds on the CPU;
// - each part's seed by two atomicMin passes (the key, then the lowest index of that key);
// - the forest rooted at the seeds: an Euler tour of its arcs (sorted by a CUB radix sort), cut
//   at each seed and ranked by pointer jumping; an arc is a parent's when it comes before its
//   twin;
// - each normal's sign as a function of the sign of the nearest normal above it, composed up to
//   the seed by pointer jumping.
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <string>
#include <utility>

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/cuda_resources.cuh"
#include "kernels/common/launch.hpp"
#include "kernels/visibility/orient.cuh"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

constexpr unsigned kBlock = 256;
constexpr std::uint64_t kMaxBlocks = 8192;
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

#define SIMLOD_GRID_LOOP(i, count)                                                          \
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < (count); \
       i += std::uint64_t{gridDim.x} * blockDim.x)

unsigned grid(std::uint64_t items) { return blocks_for(items, kBlock, kMaxBlocks); }

__global__ void edge_flags_kernel(const std::uint32_t* __restrict__ knn, std::uint64_t slots,
                                  std::uint32_t k, std::uint8_t* __restrict__ flags) {
  SIMLOD_GRID_LOOP(s, slots) { flags[s] = is_edge_slot(knn, k, s) ? 1 : 0; }
}

__global__ void weight_kernel(const std::uint32_t* __restrict__ knn,
                              const Normal* __restrict__ normals,
                              const std::uint64_t* __restrict__ slots, std::uint64_t edges,
                              std::uint32_t k, std::uint64_t* __restrict__ keys) {
  SIMLOD_GRID_LOOP(e, edges) {
    const std::uint64_t s = slots[e];
    keys[e] = edge_weight_key(normals[s / k], normals[knn[s]]);
  }
}

__global__ void ends_kernel(const std::uint32_t* __restrict__ knn,
                            const std::uint64_t* __restrict__ slots, std::uint64_t edges,
                            std::uint32_t k, uint2* __restrict__ ends) {
  SIMLOD_GRID_LOOP(e, edges) {
    const std::uint64_t s = slots[e];
    ends[e] = make_uint2(static_cast<std::uint32_t>(s / k), knn[s]);
  }
}

__global__ void iota_kernel(std::uint32_t* __restrict__ v, std::uint64_t n) {
  SIMLOD_GRID_LOOP(i, n) { v[i] = static_cast<std::uint32_t>(i); }
}

/// Each part's cheapest outgoing edge: the lowest rank of an edge between two parts.
__global__ void cheapest_kernel(const uint2* __restrict__ ends, std::uint64_t edges,
                                const std::uint32_t* __restrict__ part,
                                std::uint32_t* __restrict__ best) {
  SIMLOD_GRID_LOOP(e, edges) {
    const std::uint32_t a = part[ends[e].x], b = part[ends[e].y];
    if (a != b) {
      atomicMin(best + a, static_cast<std::uint32_t>(e));
      atomicMin(best + b, static_cast<std::uint32_t>(e));
    }
  }
}

/// A part (its root) with an outgoing edge takes it into the forest and hooks to the part at
/// its other end, except the lower root of two parts that chose the same edge.
__global__ void hook_kernel(const uint2* __restrict__ ends, const std::uint32_t* __restrict__ part,
                            const std::uint32_t* __restrict__ best, std::uint64_t n,
                            std::uint32_t* __restrict__ next, std::uint8_t* __restrict__ in_tree,
                            std::uint32_t* __restrict__ hooked) {
  SIMLOD_GRID_LOOP(v, n) {
    const std::uint32_t p = part[v];
    std::uint32_t to = p;
    if (p == v && best[v] != kNone) {
      const std::uint32_t e = best[v];
      in_tree[e] = 1;
      const std::uint32_t a = part[ends[e].x], b = part[ends[e].y];
      const std::uint32_t other = a == v ? b : a;
      if (!(best[other] == e && v < other)) to = other;
      *hooked = 1;
    }
    next[v] = to;
  }
}

__global__ void jump_kernel(std::uint32_t* __restrict__ up, std::uint64_t n,
                            std::uint32_t* __restrict__ changed) {
  SIMLOD_GRID_LOOP(v, n) {
    const std::uint32_t u = up[v], uu = up[u];
    if (uu != u) {
      up[v] = uu;
      *changed = 1;
    }
  }
}

__global__ void seed_key_kernel(const Point* __restrict__ points, std::uint64_t n, SeedRule rule,
                                const std::uint32_t* __restrict__ part,
                                unsigned long long* __restrict__ best) {
  SIMLOD_GRID_LOOP(v, n) { atomicMin(best + part[v], seed_key(rule, points[v])); }
}

__global__ void seed_kernel(const Point* __restrict__ points, std::uint64_t n, SeedRule rule,
                            const std::uint32_t* __restrict__ part,
                            const unsigned long long* __restrict__ best,
                            std::uint32_t* __restrict__ seed) {
  SIMLOD_GRID_LOOP(v, n) {
    if (seed_key(rule, points[v]) == best[part[v]]) {
      atomicMin(seed + part[v], static_cast<std::uint32_t>(v));
    }
  }
}

__global__ void arcs_kernel(const uint2* __restrict__ ends, const std::uint32_t* __restrict__ tree,
                            std::uint64_t count, std::uint64_t* __restrict__ arcs) {
  SIMLOD_GRID_LOOP(t, count) {
    const uint2 e = ends[tree[t]];
    arcs[2 * t] = std::uint64_t{e.x} << 32 | e.y;
    arcs[2 * t + 1] = std::uint64_t{e.y} << 32 | e.x;
  }
}

/// first[v], last[v]: the range of v's arcs in the sorted arcs.
__global__ void range_kernel(const std::uint64_t* __restrict__ arcs, std::uint64_t count,
                             std::uint32_t* __restrict__ first, std::uint32_t* __restrict__ last) {
  SIMLOD_GRID_LOOP(a, count) {
    const auto from = static_cast<std::uint32_t>(arcs[a] >> 32);
    if (a == 0 || (arcs[a - 1] >> 32) != from) first[from] = static_cast<std::uint32_t>(a);
    if (a + 1 == count || (arcs[a + 1] >> 32) != from) last[from] = static_cast<std::uint32_t>(a);
  }
}

/// The Euler tour: after arc u -> v comes the arc after v -> u among v's arcs (cyclically), but
/// the tour ends where it would return to the first arc of a seed. rank: 1, or 0 at an end.
__global__ void tour_kernel(const std::uint64_t* __restrict__ arcs, std::uint64_t count,
                            const std::uint32_t* __restrict__ first,
                            const std::uint32_t* __restrict__ last,
                            const std::uint32_t* __restrict__ part,
                            const std::uint32_t* __restrict__ seed,
                            std::uint32_t* __restrict__ twin, std::uint32_t* __restrict__ next,
                            std::uint32_t* __restrict__ rank) {
  SIMLOD_GRID_LOOP(a, count) {
    const auto u = static_cast<std::uint32_t>(arcs[a] >> 32);
    const auto v = static_cast<std::uint32_t>(arcs[a]);
    const std::uint64_t want = std::uint64_t{v} << 32 | u;
    std::uint32_t lo = first[v], hi = last[v];
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (arcs[mid] < want) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    twin[a] = lo;
    std::uint32_t after = lo == last[v] ? first[v] : lo + 1;
    if (lo == last[v] && seed[part[v]] == v) after = kNone;
    next[a] = after;
    rank[a] = after == kNone ? 0 : 1;
  }
}

/// One round of list ranking: each arc's distance to its tour's end, by pointer jumping.
__global__ void rank_kernel(const std::uint32_t* __restrict__ next,
                            const std::uint32_t* __restrict__ rank, std::uint64_t count,
                            std::uint32_t* __restrict__ next_out,
                            std::uint32_t* __restrict__ rank_out) {
  SIMLOD_GRID_LOOP(a, count) {
    const std::uint32_t x = next[a];
    if (x == kNone) {
      next_out[a] = kNone;
      rank_out[a] = rank[a];
    } else {
      next_out[a] = next[x];
      rank_out[a] = rank[a] + rank[x];
    }
  }
}

/// An arc that comes before its twin on the tour (farther from the end) goes down the tree.
__global__ void parent_kernel(const std::uint64_t* __restrict__ arcs, std::uint64_t count,
                              const std::uint32_t* __restrict__ twin,
                              const std::uint32_t* __restrict__ rank,
                              std::uint32_t* __restrict__ parent) {
  SIMLOD_GRID_LOOP(a, count) {
    if (rank[a] > rank[twin[a]]) {
      parent[static_cast<std::uint32_t>(arcs[a])] = static_cast<std::uint32_t>(arcs[a] >> 32);
    }
  }
}

__device__ bool is_seed(const std::uint32_t* part, const std::uint32_t* seed, std::uint32_t v) {
  return seed[part[v]] == v;
}

/// above[v]: v's nearest strict ancestor with a normal or that is a seed (the seed: itself).
__global__ void above_kernel(const Normal* __restrict__ normals, std::uint64_t n,
                             const std::uint32_t* __restrict__ part,
                             const std::uint32_t* __restrict__ seed,
                             std::uint32_t* __restrict__ above,
                             std::uint32_t* __restrict__ changed) {
  SIMLOD_GRID_LOOP(v, n) {
    const std::uint32_t a = above[v];
    if (!is_zero(normals[a]) || is_seed(part, seed, a)) continue;
    above[v] = above[a];
    *changed = 1;
  }
}

__global__ void rule_kernel(const Point* __restrict__ points, const Normal* __restrict__ normals,
                            std::uint64_t n, SeedRule seed_rule,
                            const std::uint32_t* __restrict__ part,
                            const std::uint32_t* __restrict__ seed,
                            const std::uint32_t* __restrict__ above, char2* __restrict__ rule) {
  SIMLOD_GRID_LOOP(v, n) {
    SignRule r;
    if (is_seed(part, seed, static_cast<std::uint32_t>(v))) {
      r = {0, seed_flips(seed_rule, points[v], normals[v]) ? -1 : 1};
    } else if (!is_zero(normals[v])) {
      r = follow_rule(normals[v], normals[above[v]]);
    }
    rule[v] = make_char2(static_cast<char>(r.mul), static_cast<char>(r.add));
  }
}

/// One round of composing each rule with the rule above it.
__global__ void compose_kernel(const char2* __restrict__ rule,
                               const std::uint32_t* __restrict__ above, std::uint64_t n,
                               char2* __restrict__ rule_out, std::uint32_t* __restrict__ above_out,
                               std::uint32_t* __restrict__ changed) {
  SIMLOD_GRID_LOOP(v, n) {
    const char2 r = rule[v];
    const std::uint32_t a = above[v];
    if (r.x == 0) {
      rule_out[v] = r;
      above_out[v] = a;
      continue;
    }
    const char2 q = rule[a];
    const SignRule c = compose({r.x, r.y}, {q.x, q.y});
    rule_out[v] = make_char2(static_cast<char>(c.mul), static_cast<char>(c.add));
    above_out[v] = above[a];
    *changed = 1;
  }
}

__global__ void flip_kernel(Normal* __restrict__ normals, std::uint64_t n,
                            const char2* __restrict__ rule) {
  SIMLOD_GRID_LOOP(v, n) {
    if (rule[v].y < 0) {
      const Normal m = normals[v];
      normals[v] = {-m.x, -m.y, -m.z};
    }
  }
}

template <class T>
T* as(DeviceMemory& m) {
  return static_cast<T*>(m.get());
}

/// A device flag's value after the work queued before it, then reset to 0.
std::uint32_t take_flag(std::uint32_t* flag) {
  std::uint32_t v = 0;
  SIMLOD_CUDA_CHECK(cudaMemcpy(&v, flag, 4, cudaMemcpyDeviceToHost));
  SIMLOD_CUDA_CHECK(cudaMemset(flag, 0, 4));
  return v;
}

/// Pointer jumping of `up` until every entry names a root.
void flatten(std::uint32_t* up, std::uint64_t n, std::uint32_t* flag) {
  do {
    jump_kernel<<<grid(n), kBlock>>>(up, n, flag);
    SIMLOD_CUDA_CHECK_LAUNCH("orient jump_kernel");
  } while (take_flag(flag) != 0);
}

/// Room for a CUB call's temporary storage (grown as needed).
struct Scratch {
  DeviceMemory memory;
  std::size_t bytes = 0;
  void* need(std::size_t b) {
    if (b > bytes) {
      memory = make_device(b, "the orientation's sorting space");
      bytes = b;
    }
    return memory.get();
  }
};

}  // namespace

void orient_normals(const Point* points, const std::uint32_t* knn, std::uint64_t n, std::uint32_t k,
                    const SeedRule& rule, Normal* normals) {
  const std::uint64_t slots = n * k;
  if (slots >= (std::uint64_t{1} << 31) || 2 * n >= kNone) {
    throw CapacityError("estimate_normals: " + std::to_string(n) + " points of " +
                        std::to_string(k) +
                        " neighbours are beyond the CUDA orientation's 2^31 neighbour entries");
  }
  Scratch scratch;
  std::size_t bytes = 0;
  DeviceMemory flag_mem = make_device(8, "the orientation's flags");
  auto* flag = as<std::uint32_t>(flag_mem);
  auto* count = flag + 1;
  SIMLOD_CUDA_CHECK(cudaMemset(flag, 0, 8));

  // The edges, by (weight, slot).
  DeviceMemory flags = make_device(slots, "the orientation's edge flags");
  edge_flags_kernel<<<grid(slots), kBlock>>>(knn, slots, k, as<std::uint8_t>(flags));
  SIMLOD_CUDA_CHECK_LAUNCH("orient edge_flags_kernel");
  DeviceMemory slot_mem = make_device(2 * slots * 8, "the orientation's edges");
  auto* slot_a = as<std::uint64_t>(slot_mem);
  const thrust::counting_iterator<std::uint64_t> all(0);
  SIMLOD_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, all, as<std::uint8_t>(flags), slot_a,
                                               count, static_cast<int>(slots)));
  SIMLOD_CUDA_CHECK(cub::DeviceSelect::Flagged(scratch.need(bytes), bytes, all,
                                               as<std::uint8_t>(flags), slot_a, count,
                                               static_cast<int>(slots)));
  flags = {};
  std::uint32_t edges = 0;
  SIMLOD_CUDA_CHECK(cudaMemcpy(&edges, count, 4, cudaMemcpyDeviceToHost));
  DeviceMemory key_mem = make_device(2 * std::uint64_t{edges} * 8 + 8, "the edges' weights");
  auto* key_a = as<std::uint64_t>(key_mem);
  weight_kernel<<<grid(edges), kBlock>>>(knn, normals, slot_a, edges, k, key_a);
  SIMLOD_CUDA_CHECK_LAUNCH("orient weight_kernel");
  cub::DoubleBuffer<std::uint64_t> keys(key_a, key_a + edges);
  cub::DoubleBuffer<std::uint64_t> sorted(slot_a, slot_a + edges);
  SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, sorted, edges));
  SIMLOD_CUDA_CHECK(
      cub::DeviceRadixSort::SortPairs(scratch.need(bytes), bytes, keys, sorted, edges));
  DeviceMemory ends_mem = make_device(std::uint64_t{edges} * 8 + 8, "the edges' ends");
  auto* ends = as<uint2>(ends_mem);
  ends_kernel<<<grid(edges), kBlock>>>(knn, sorted.Current(), edges, k, ends);
  SIMLOD_CUDA_CHECK_LAUNCH("orient ends_kernel");
  key_mem = {};
  slot_mem = {};

  // Boruvka's rounds.
  DeviceMemory part_mem = make_device(n * 4, "the points' parts");
  DeviceMemory next_mem = make_device(n * 4, "the parts' hooks");
  DeviceMemory best_mem = make_device(n * 8, "the parts' cheapest edges");
  DeviceMemory in_tree_mem = make_device(std::uint64_t{edges} + 1, "the forest's edges");
  auto* part = as<std::uint32_t>(part_mem);
  auto* next = as<std::uint32_t>(next_mem);
  auto* best = as<std::uint32_t>(best_mem);
  SIMLOD_CUDA_CHECK(cudaMemset(in_tree_mem.get(), 0, std::uint64_t{edges} + 1));
  iota_kernel<<<grid(n), kBlock>>>(part, n);
  SIMLOD_CUDA_CHECK_LAUNCH("orient iota_kernel");
  for (;;) {
    SIMLOD_CUDA_CHECK(cudaMemset(best, 0xFF, n * 4));
    cheapest_kernel<<<grid(edges), kBlock>>>(ends, edges, part, best);
    SIMLOD_CUDA_CHECK_LAUNCH("orient cheapest_kernel");
    hook_kernel<<<grid(n), kBlock>>>(ends, part, best, n, next, as<std::uint8_t>(in_tree_mem),
                                     flag);
    SIMLOD_CUDA_CHECK_LAUNCH("orient hook_kernel");
    if (take_flag(flag) == 0) break;
    std::swap(part, next);
    flatten(part, n, flag);
  }

  // Each part's seed.
  auto* best_key = as<unsigned long long>(best_mem);
  DeviceMemory seed_mem = make_device(n * 4, "the parts' seeds");
  auto* seed = as<std::uint32_t>(seed_mem);
  SIMLOD_CUDA_CHECK(cudaMemset(best_key, 0xFF, n * 8));
  SIMLOD_CUDA_CHECK(cudaMemset(seed, 0xFF, n * 4));
  seed_key_kernel<<<grid(n), kBlock>>>(points, n, rule, part, best_key);
  SIMLOD_CUDA_CHECK_LAUNCH("orient seed_key_kernel");
  seed_kernel<<<grid(n), kBlock>>>(points, n, rule, part, best_key, seed);
  SIMLOD_CUDA_CHECK_LAUNCH("orient seed_kernel");

  // The forest's arcs, sorted, and their tour.
  DeviceMemory tree_mem = make_device(n * 4, "the forest's edge list");
  SIMLOD_CUDA_CHECK(cub::DeviceSelect::Flagged(
      nullptr, bytes, thrust::counting_iterator<std::uint32_t>(0), as<std::uint8_t>(in_tree_mem),
      as<std::uint32_t>(tree_mem), count, static_cast<int>(edges)));
  SIMLOD_CUDA_CHECK(cub::DeviceSelect::Flagged(
      scratch.need(bytes), bytes, thrust::counting_iterator<std::uint32_t>(0),
      as<std::uint8_t>(in_tree_mem), as<std::uint32_t>(tree_mem), count, static_cast<int>(edges)));
  std::uint32_t tree_edges = 0;
  SIMLOD_CUDA_CHECK(cudaMemcpy(&tree_edges, count, 4, cudaMemcpyDeviceToHost));
  const std::uint64_t arcs = 2 * std::uint64_t{tree_edges};
  DeviceMemory arc_mem = make_device(2 * arcs * 8 + 8, "the forest's arcs");
  auto* arc_a = as<std::uint64_t>(arc_mem);
  arcs_kernel<<<grid(tree_edges), kBlock>>>(ends, as<std::uint32_t>(tree_mem), tree_edges, arc_a);
  SIMLOD_CUDA_CHECK_LAUNCH("orient arcs_kernel");
  cub::DoubleBuffer<std::uint64_t> arc_keys(arc_a, arc_a + arcs);
  SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, arc_keys, arcs));
  SIMLOD_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(scratch.need(bytes), bytes, arc_keys, arcs));
  const std::uint64_t* arc = arc_keys.Current();
  in_tree_mem = {};
  tree_mem = {};
  ends_mem = {};
  DeviceMemory range_mem = make_device(2 * n * 4, "the points' arcs");
  auto* first = as<std::uint32_t>(range_mem);
  auto* last = first + n;
  range_kernel<<<grid(arcs), kBlock>>>(arc, arcs, first, last);
  SIMLOD_CUDA_CHECK_LAUNCH("orient range_kernel");
  DeviceMemory tour_mem = make_device(5 * arcs * 4 + 4, "the tour");
  auto* twin = as<std::uint32_t>(tour_mem);
  std::uint32_t* link[2] = {twin + arcs, twin + 2 * arcs};
  std::uint32_t* rank[2] = {twin + 3 * arcs, twin + 4 * arcs};
  tour_kernel<<<grid(arcs), kBlock>>>(arc, arcs, first, last, part, seed, twin, link[0], rank[0]);
  SIMLOD_CUDA_CHECK_LAUNCH("orient tour_kernel");
  int at = 0;
  for (std::uint64_t reach = 1; reach < arcs; reach *= 2, at ^= 1) {
    rank_kernel<<<grid(arcs), kBlock>>>(link[at], rank[at], arcs, link[at ^ 1], rank[at ^ 1]);
    SIMLOD_CUDA_CHECK_LAUNCH("orient rank_kernel");
  }
  auto* parent = next;
  iota_kernel<<<grid(n), kBlock>>>(parent, n);
  SIMLOD_CUDA_CHECK_LAUNCH("orient iota_kernel");
  parent_kernel<<<grid(arcs), kBlock>>>(arc, arcs, twin, rank[at], parent);
  SIMLOD_CUDA_CHECK_LAUNCH("orient parent_kernel");
  tour_mem = {};
  arc_mem = {};
  range_mem = {};

  // The signs.
  auto* above = parent;
  do {
    above_kernel<<<grid(n), kBlock>>>(normals, n, part, seed, above, flag);
    SIMLOD_CUDA_CHECK_LAUNCH("orient above_kernel");
  } while (take_flag(flag) != 0);
  DeviceMemory rule_mem = make_device(2 * n * 2, "the normals' sign rules");
  char2* rules[2] = {as<char2>(rule_mem), as<char2>(rule_mem) + n};
  std::uint32_t* aboves[2] = {above, as<std::uint32_t>(best_mem)};
  rule_kernel<<<grid(n), kBlock>>>(points, normals, n, rule, part, seed, above, rules[0]);
  SIMLOD_CUDA_CHECK_LAUNCH("orient rule_kernel");
  at = 0;
  for (;;) {
    compose_kernel<<<grid(n), kBlock>>>(rules[at], aboves[at], n, rules[at ^ 1], aboves[at ^ 1],
                                        flag);
    SIMLOD_CUDA_CHECK_LAUNCH("orient compose_kernel");
    at ^= 1;
    if (take_flag(flag) == 0) break;
  }
  flip_kernel<<<grid(n), kBlock>>>(normals, n, rules[at]);
  SIMLOD_CUDA_CHECK_LAUNCH("orient flip_kernel");
  SIMLOD_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace simlod::detail::cuda
