// VisibilityMap: the facade, the checks and the queries over the CPU executor
// (core/cpu/visibility/).
#include "simlod/visibility.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "core/cpu/visibility/blocks.hpp"
#include "core/cpu/visibility/visibility.hpp"
#include "core/stopwatch.hpp"
#include "core/visibility_impl.hpp"
#include "kernels/visibility/visibility_entry.hpp"
#include "simlod/error.hpp"

namespace simlod {

namespace {

void check(std::span<const Point> points, std::span<const Normal> normals,
           const VisibilityConfig& config) {
  if (config.height < 1 || config.height > 16) {
    throw InvalidInput(fmt::format("VisibilityMap: height {}; it takes 1 to 16", config.height));
  }
  if (config.leaf_points < 1) throw InvalidInput("VisibilityMap: leaf_points must be at least 1");
  if (config.occluders < 1) throw InvalidInput("VisibilityMap: occluders must be at least 1");
  if (config.matrix_bytes < 1) throw InvalidInput("VisibilityMap: matrix_bytes must be at least 1");
  if (points.empty()) throw InvalidInput("VisibilityMap: no points");
  if (points.size() >= VisibilityNode::kNone) {
    throw InvalidInput(fmt::format("VisibilityMap: {} points; at most 2^32 - 2", points.size()));
  }
  if (normals.size() != points.size()) {
    throw InvalidInput(
        fmt::format("VisibilityMap: {} normals for {} points", normals.size(), points.size()));
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) {
      throw InvalidInput(
          fmt::format("VisibilityMap: point {} has a non-finite coordinate "
                      "({}, {}, {})",
                      i, p.x, p.y, p.z));
    }
    const Normal& n = normals[i];
    if (!std::isfinite(n.x) || !std::isfinite(n.y) || !std::isfinite(n.z)) {
      throw InvalidInput(
          fmt::format("VisibilityMap: the normal of point {} is not finite "
                      "({}, {}, {})",
                      i, n.x, n.y, n.z));
    }
  }
}

void check_leaf(const detail::cpu::VisTree& t, std::uint32_t leaf, const char* what) {
  if (leaf >= t.leaves.size()) {
    throw InvalidInput(
        fmt::format("VisibilityMap::{}: leaf {} of {}", what, leaf, t.leaves.size()));
  }
}

}  // namespace

VisibilityMap::VisibilityMap(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VisibilityMap::VisibilityMap(VisibilityMap&&) noexcept = default;
VisibilityMap& VisibilityMap::operator=(VisibilityMap&&) noexcept = default;
VisibilityMap::~VisibilityMap() = default;

VisibilityMap VisibilityMap::build(std::span<const Point> points, std::span<const Normal> normals,
                                   const VisibilityConfig& config) {
  const detail::Stopwatch total;
  check(points, normals, config);
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  VisibilityStats& s = impl->stats;
  s.backend = resolve_backend(config.backend);
  detail::Stopwatch watch;
#if SIMLOD_HAS_CUDA
  impl->tree = s.backend == Backend::Cuda ? detail::cuda::build_vis_tree(points, normals, config)
                                          : detail::cpu::build_vis_tree(points, normals, config);
#else
  impl->tree = detail::cpu::build_vis_tree(points, normals, config);
#endif
  s.octree_ms = watch.ms();
  const std::uint64_t leaves = impl->tree.leaves.size();
  s.points = points.size();
  s.nodes = impl->tree.nodes.size();
  s.leaves = leaves;
  s.depth = impl->tree.depth;
  s.leaf_pairs = detail::pair_count(leaves);
  const bool blocked = (s.leaf_pairs + 7) / 8 > config.matrix_bytes;
  const std::uint64_t budget_bits = std::min<std::uint64_t>(config.matrix_bytes, 1ull << 60) * 8;
  if (blocked) {
    detail::cpu::BlockedMap map;
    if (s.backend == Backend::Cuda) {
#if SIMLOD_HAS_CUDA
      map = detail::cuda::build_blocked(impl->tree, config.occluders, budget_bits, s.pairs_ms,
                                        s.links_ms);
#endif
    } else {
      watch.restart();
      map = detail::cpu::build_blocked(impl->tree, config.occluders, budget_bits);
      s.pairs_ms = watch.ms();  // the pairs and the links together
    }
    impl->pairs.facing = map.facing;
    impl->pairs.visible = map.visible;
    impl->links = std::move(map.links);
  } else if (s.backend == Backend::Cuda) {
#if SIMLOD_HAS_CUDA
    auto map = detail::cuda::pairs_and_links(impl->tree, config.occluders, s.pairs_ms, s.links_ms);
    impl->pairs = std::move(map.pairs);
    impl->links = std::move(map.links);
#endif
  } else {
    watch.restart();
    impl->pairs = detail::cpu::leaf_pairs(impl->tree, config.occluders);
    s.pairs_ms = watch.ms();
    watch.restart();
    impl->links = detail::cpu::build_links(impl->tree, impl->pairs);
    s.links_ms = watch.ms();
  }
  s.facing_pairs = impl->pairs.facing;
  s.visible_pairs = impl->pairs.visible;
  s.links_per_level = impl->links.per_level;
  s.links = impl->links.targets.size() / 2;
  const auto& t = impl->tree;
  s.bytes = t.nodes.size() * sizeof(VisibilityNode) + t.leaves.size() * sizeof(VisibilityLeaf) +
            t.geometry.size() * sizeof(detail::LeafGeometry) + 4 * t.order.size() +
            4 * t.point_leaf.size() + 8 * impl->pairs.bits.size() + 8 * impl->links.offsets.size() +
            4 * impl->links.targets.size();
  s.total_ms = total.ms();
  return VisibilityMap(std::move(impl));
}

const VisibilityStats& VisibilityMap::stats() const { return impl_->stats; }
const VisibilityConfig& VisibilityMap::config() const { return impl_->config; }
std::span<const VisibilityNode> VisibilityMap::nodes() const { return impl_->tree.nodes; }
std::span<const VisibilityLeaf> VisibilityMap::leaves() const { return impl_->tree.leaves; }
std::span<const std::uint32_t> VisibilityMap::point_order() const { return impl_->tree.order; }

std::uint32_t VisibilityMap::leaf_of_point(std::uint32_t i) const {
  if (i >= impl_->tree.point_leaf.size()) {
    throw InvalidInput(fmt::format("VisibilityMap::leaf_of_point: point {} of {}", i,
                                   impl_->tree.point_leaf.size()));
  }
  return impl_->tree.point_leaf[i];
}

bool VisibilityMap::visible(std::uint32_t a, std::uint32_t b) const {
  check_leaf(impl_->tree, a, "visible");
  check_leaf(impl_->tree, b, "visible");
  if (a == b) return false;
  const auto& t = impl_->tree;
  if (!impl_->pairs.bits.empty()) {
    const std::uint64_t lo = std::min(a, b), hi = std::max(a, b);
    return detail::cpu::bit_at(impl_->pairs.bits, detail::pair_index(lo, hi, t.leaves.size()));
  }
  // No matrix (a blocked build): the pair is visible when one link joins the two leaves'
  // entries of some level (each leaf's ancestor of that depth, or the leaf itself above it).
  std::array<std::uint32_t, 17> path_a{}, path_b{};
  auto path = [&](std::uint32_t leaf, std::array<std::uint32_t, 17>& out) {
    std::uint32_t n = t.leaves[leaf].node;
    const std::uint32_t depth = t.nodes[n].depth;
    for (std::uint32_t d = depth + 1; d-- > 0; n = t.nodes[n].parent) out[d] = n;
    return depth;
  };
  const std::uint32_t da = path(a, path_a), db = path(b, path_b);
  for (std::uint32_t l = 0; l <= t.depth; ++l) {
    const std::uint32_t x = path_a[std::min(l, da)], y = path_b[std::min(l, db)];
    if (x == y) continue;
    const auto list = links(x);
    if (std::binary_search(list.begin(), list.end(), y)) return true;
  }
  return false;
}

std::span<const std::uint32_t> VisibilityMap::links(std::uint32_t node) const {
  const auto& l = impl_->links;
  if (node + 1 >= l.offsets.size()) {
    throw InvalidInput(
        fmt::format("VisibilityMap::links: node {} of {}", node, l.offsets.size() - 1));
  }
  return std::span(l.targets).subspan(l.offsets[node], l.offsets[node + 1] - l.offsets[node]);
}

std::vector<std::uint32_t> VisibilityMap::visible_from(const std::array<double, 3>& eye) const {
  const detail::cpu::VisTree& t = impl_->tree;
  // The leaf whose cube holds the eye, if any.
  std::uint32_t at = VisibilityNode::kNone;
  bool inside = true;
  for (int a = 0; a < 3; ++a) {
    inside = inside && eye[a] >= t.origin[a] && eye[a] <= t.origin[a] + t.edge;
  }
  if (inside) {
    std::uint32_t n = 0;
    while (t.nodes[n].leaf == VisibilityNode::kNone) {
      const VisibilityNode& node = t.nodes[n];
      std::array<std::uint32_t, 3> cell{};
      for (int a = 0; a < 3; ++a) cell[a] = 2 * node.cell[a] + (eye[a] >= node.centre[a] ? 1 : 0);
      std::uint32_t next = VisibilityNode::kNone;
      for (std::uint32_t k = 0; k < node.children; ++k) {
        if (t.nodes[node.first_child + k].cell == cell) next = node.first_child + k;
      }
      if (next == VisibilityNode::kNone) break;  // an empty octant: free space
      n = next;
    }
    if (t.nodes[n].leaf != VisibilityNode::kNone) at = t.nodes[n].leaf;
  }
  std::vector<std::uint32_t> out;
  const auto leaves = static_cast<std::uint32_t>(t.leaves.size());
  if (at != VisibilityNode::kNone) {
    for (std::uint32_t q = 0; q < leaves; ++q) {
      if (q != at && visible(at, q)) out.push_back(q);
    }
    return out;
  }
  const detail::Vec3d p{eye[0], eye[1], eye[2]};
  std::uint32_t hint = detail::kNoHint;  // the last occluder of a segment from the eye
  for (std::uint32_t q = 0; q < leaves; ++q) {
    const detail::LeafGeometry& g = t.geometry[q];
    const detail::Vec3d d = detail::sub(g.centroid, p);
    if (!(-detail::dot(g.normal, d) > 0.0)) continue;  // q faces the eye
    if (detail::cpu::count_occluders(t, p, d, q, VisibilityNode::kNone, impl_->config.occluders,
                                     hint) < impl_->config.occluders) {
      out.push_back(q);
    }
  }
  return out;
}

std::vector<std::uint8_t> VisibilityMap::visible_points(const std::array<double, 3>& eye) const {
  const detail::cpu::VisTree& t = impl_->tree;
  std::vector<std::uint8_t> mask(t.point_leaf.size(), 0);
  for (const std::uint32_t leaf : visible_from(eye)) {
    const VisibilityNode& node = t.nodes[t.leaves[leaf].node];
    for (std::uint32_t k = 0; k < node.points; ++k) mask[t.order[node.first_point + k]] = 1;
  }
  return mask;
}

}  // namespace simlod
