// The visibility map's octree: points sorted by their Morton code at the height limit, nodes
// split breadth first while they hold more than leaf_points points, then the leaves' geometry
// and the spheres bottom-up.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/cpu/visibility/visibility.hpp"
#include "simlod/detail/morton.hpp"
#include "simlod/detail/visibility_tree.hpp"
#include "simlod/detail/visibility_walk.hpp"

namespace simlod::detail::cpu {

void point_bounds(std::span<const Point> points, double lo[3], double hi[3]) {
  for (int a = 0; a < 3; ++a) {
    lo[a] = std::numeric_limits<double>::infinity();
    hi[a] = -std::numeric_limits<double>::infinity();
  }
  for (const Point& p : points) {
    const double c[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
  }
}

void set_cube(VisTree& t, const double lo[3], const double hi[3]) {
  t.edge = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  if (!(t.edge > 0.0)) t.edge = 1.0;  // every point on one spot
  for (int a = 0; a < 3; ++a) t.origin[a] = lo[a];
}

VisTree build_vis_tree(std::span<const Point> points, std::span<const Normal> normals,
                       const VisibilityConfig& config) {
  VisTree t;
  const std::uint32_t h = config.height;
  const std::size_t n = points.size();
  double lo[3], hi[3];
  point_bounds(points, lo, hi);
  set_cube(t, lo, hi);

  // Morton codes of the cells at depth h; points sorted by (code, index).
  const std::uint32_t cells = 1u << h;
  std::vector<std::uint64_t> code(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double c[3] = {points[i].x, points[i].y, points[i].z};
    std::uint32_t q[3];
    for (int a = 0; a < 3; ++a) q[a] = vis_cell(c[a], t.origin[a], t.edge, cells);
    code[i] = morton_3d(q[0], q[1], q[2]);
  }
  t.order.resize(n);
  std::iota(t.order.begin(), t.order.end(), 0u);
  std::sort(t.order.begin(), t.order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return code[a] != code[b] ? code[a] < code[b] : a < b;
  });

  // Breadth first: node i's children are appended when node i is reached.
  t.nodes.push_back({});
  t.nodes[0].points = static_cast<std::uint32_t>(n);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    VisibilityNode node = t.nodes[i];
    node_centre(node, t.origin, t.edge);
    if (node.points > config.leaf_points && node.depth < h) {
      const std::uint32_t shift = 3 * (h - node.depth - 1);
      node.first_child = static_cast<std::uint32_t>(t.nodes.size());
      std::uint32_t at = node.first_point;
      const std::uint32_t end = node.first_point + node.points;
      while (at < end) {
        const auto octant = static_cast<std::uint32_t>((code[t.order[at]] >> shift) & 7u);
        std::uint32_t next = at;
        while (next < end && ((code[t.order[next]] >> shift) & 7u) == octant) ++next;
        VisibilityNode child;
        child.depth = node.depth + 1;
        child.cell = {2 * node.cell[0] + (octant & 1u), 2 * node.cell[1] + ((octant >> 1) & 1u),
                      2 * node.cell[2] + ((octant >> 2) & 1u)};
        child.parent = static_cast<std::uint32_t>(i);
        child.first_point = at;
        child.points = next - at;
        t.nodes.push_back(child);
        ++node.children;
        at = next;
      }
    } else {
      node.leaf = static_cast<std::uint32_t>(t.leaves.size());
      const std::uint32_t* ids = t.order.data() + node.first_point;
      const LeafGeometry g = leaf_geometry(points.data(), normals.data(), ids, node.points);
      t.geometry.push_back(g);
      VisibilityLeaf leaf;
      leaf.node = static_cast<std::uint32_t>(i);
      leaf.centroid = {g.centroid.x, g.centroid.y, g.centroid.z};
      leaf.normal = {g.normal.x, g.normal.y, g.normal.z};
      leaf.delta = g.delta;
      t.leaves.push_back(leaf);
      node.radius = leaf_radius(points.data(), ids, node.points,
                                {node.centre[0], node.centre[1], node.centre[2]});
      t.depth = std::max(t.depth, node.depth);
    }
    t.nodes[i] = node;
  }
  // Inner spheres bottom-up: children come after their parent.
  for (std::size_t i = t.nodes.size(); i-- > 0;) {
    VisibilityNode& node = t.nodes[i];
    if (node.leaf == VisibilityNode::kNone) node.radius = inner_radius(t.nodes.data(), node);
  }
  t.point_leaf.assign(n, 0);
  for (std::uint32_t l = 0; l < t.leaves.size(); ++l) {
    const VisibilityNode& node = t.nodes[t.leaves[l].node];
    for (std::uint32_t k = 0; k < node.points; ++k) t.point_leaf[t.order[node.first_point + k]] = l;
  }
  make_walk(t);
  return t;
}

void make_walk(VisTree& tree) {
  const std::size_t count = tree.nodes.size();
  const WalkFrame frame = tree.frame();
  // Boxes bottom-up (children come after their parent): a leaf's disk_box, an inner node's
  // the union of its children's that a segment can meet.
  std::vector<WalkBox> boxes(count);
  std::vector<char> empty(count, 1);
  for (std::size_t i = count; i-- > 0;) {
    const VisibilityNode& n = tree.nodes[i];
    WalkBox& b = boxes[i];
    if (n.leaf != VisibilityNode::kNone) {
      b = disk_box(tree.geometry[n.leaf], frame);
      empty[i] = b.lo[0] == kNowhere ? 1 : 0;
      continue;
    }
    for (std::uint32_t k = 0; k < n.children; ++k) {
      const std::uint32_t c = n.first_child + k;
      if (empty[c]) continue;
      for (int a = 0; a < 3; ++a) {
        b.lo[a] = empty[i] ? boxes[c].lo[a] : std::min(b.lo[a], boxes[c].lo[a]);
        b.hi[a] = empty[i] ? boxes[c].hi[a] : std::max(b.hi[a], boxes[c].hi[a]);
      }
      empty[i] = 0;
    }
    if (empty[i]) {
      for (int a = 0; a < 3; ++a) b.lo[a] = b.hi[a] = kNowhere;
    }
  }
  tree.walk.resize(count);
  tree.spheres.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const VisibilityNode& n = tree.nodes[i];
    const bool leaf = n.leaf != VisibilityNode::kNone;
    tree.walk[i] = make_walk_node(boxes[i], leaf ? n.leaf : n.first_child, leaf ? 0 : n.children);
    tree.spheres[i] = {{n.centre[0], n.centre[1], n.centre[2]}, n.radius};
  }
}

std::uint32_t count_occluders(const VisTree& tree, const Vec3d& p, const Vec3d& d,
                              std::uint32_t skip_a, std::uint32_t skip_b, std::uint32_t limit,
                              std::uint32_t& hint) {
  return detail::count_occluders(tree.walk_tree(), p, d, skip_a, skip_b, limit, hint);
}

}  // namespace simlod::detail::cpu
