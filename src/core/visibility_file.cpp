// VisibilityMap::save and load: the map file (docs/file-formats.md, "Visibility maps").
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "core/visibility_impl.hpp"
#include "io/atomic_writer.hpp"
#include "io/file.hpp"
#include "simlod/error.hpp"

namespace simlod {
namespace {

constexpr char kMagic[8] = {'S', 'L', 'V', 'M', 'A', 'P', '\0', '\1'};  // version 1
constexpr std::size_t kLeafBytes = 64;

/// The fixed header (112 bytes), then links_per_level, then the sections.
struct Header {
  char magic[8];
  std::uint32_t height, leaf_points, occluders, depth;
  std::uint64_t points, nodes, leaves, link_entries, matrix_words;
  double origin[3], edge;
  std::uint64_t facing_pairs, visible_pairs;
};
static_assert(sizeof(Header) == 112);

template <class T>
std::span<const std::byte> bytes(const std::vector<T>& v) {
  return std::as_bytes(std::span(v));
}

std::vector<std::byte> leaf_bytes(const std::vector<VisibilityLeaf>& leaves) {
  std::vector<std::byte> out(leaves.size() * kLeafBytes, std::byte{0});
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    std::byte* at = out.data() + i * kLeafBytes;
    const VisibilityLeaf& l = leaves[i];
    std::memcpy(at, &l.node, 4);  // bytes 4-7 stay zero
    std::memcpy(at + 8, l.centroid.data(), 24);
    std::memcpy(at + 32, l.normal.data(), 24);
    std::memcpy(at + 56, &l.delta, 8);
  }
  return out;
}

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& what) {
  throw InvalidInput(fmt::format("'{}' is not a visibility map: {}", path.string(), what));
}

}  // namespace

void VisibilityMap::save(const std::filesystem::path& path) const {
  const detail::cpu::VisTree& t = impl_->tree;
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.height = impl_->config.height;
  h.leaf_points = impl_->config.leaf_points;
  h.occluders = impl_->config.occluders;
  h.depth = t.depth;
  h.points = t.order.size();
  h.nodes = t.nodes.size();
  h.leaves = t.leaves.size();
  h.link_entries = impl_->links.targets.size();
  h.matrix_words = impl_->pairs.bits.size();
  for (int a = 0; a < 3; ++a) h.origin[a] = t.origin[a];
  h.edge = t.edge;
  h.facing_pairs = impl_->stats.facing_pairs;
  h.visible_pairs = impl_->stats.visible_pairs;
  const std::filesystem::path partial = detail::partial_path(path);
  try {
    detail::OutputFile f(partial);
    f.write(detail::bytes_of(h));
    f.write(bytes(impl_->links.per_level));
    f.write(bytes(t.nodes));
    f.write(leaf_bytes(t.leaves));
    f.write(bytes(t.order));
    f.write(bytes(impl_->pairs.bits));
    f.write(bytes(impl_->links.offsets));
    f.write(bytes(impl_->links.targets));
    f.close();
    std::filesystem::rename(partial, path);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
}

VisibilityMap VisibilityMap::load(const std::filesystem::path& path) {
  const detail::InputFile f(path);
  Header h{};
  f.read_exact(0, detail::bytes_of(h), "visibility map header");
  if (std::memcmp(h.magic, kMagic, 6) != 0 || h.magic[6] != '\0') bad(path, "no SLVMAP magic");
  if (h.magic[7] != kMagic[7]) {
    bad(path,
        fmt::format("version {}; this simlod reads version {}", int(h.magic[7]), int(kMagic[7])));
  }
  if (h.height < 1 || h.height > 16 || h.depth > h.height || h.nodes == 0 || h.leaves == 0 ||
      h.points == 0 || h.points >= VisibilityNode::kNone || h.nodes >= VisibilityNode::kNone ||
      h.leaves > h.nodes) {
    bad(path, "its header's counts are out of range");
  }
  if (!(h.edge > 0.0) || !std::isfinite(h.edge) || !std::isfinite(h.origin[0]) ||
      !std::isfinite(h.origin[1]) || !std::isfinite(h.origin[2])) {
    bad(path, fmt::format("its cube (origin {}, {}, {}, edge {}) is not a cube", h.origin[0],
                          h.origin[1], h.origin[2], h.edge));
  }
  const std::uint64_t pairs = detail::pair_count(h.leaves);
  if (h.matrix_words != 0 && h.matrix_words != (pairs + 63) / 64) {
    bad(path, "its leaf matrix has the wrong size");  // 0: none (a blocked build)
  }
  const std::uint64_t levels = std::uint64_t{h.depth} + 1;
  const std::uint64_t expected = sizeof(Header) + 8 * levels + h.nodes * sizeof(VisibilityNode) +
                                 h.leaves * kLeafBytes + 4 * h.points + 8 * h.matrix_words +
                                 8 * (h.nodes + 1) + 4 * h.link_entries;
  if (f.size() != expected) {
    bad(path, fmt::format("it has {} bytes where its header makes {}", f.size(), expected));
  }
  auto impl = std::make_unique<Impl>();
  impl->config = {h.height, h.leaf_points, h.occluders, Backend::Cpu};
  detail::cpu::VisTree& t = impl->tree;
  std::uint64_t at = sizeof(Header);
  auto section = [&](auto& v, std::uint64_t count, const char* what) {
    v.resize(count);
    f.read_exact(at, std::as_writable_bytes(std::span(v)), what);
    at += count * sizeof(v[0]);
  };
  section(impl->links.per_level, levels, "links per level");
  section(t.nodes, h.nodes, "nodes");
  std::vector<std::byte> leaf_data;
  section(leaf_data, h.leaves * kLeafBytes, "leaves");
  section(t.order, h.points, "point order");
  section(impl->pairs.bits, h.matrix_words, "leaf matrix");
  section(impl->links.offsets, h.nodes + 1, "link offsets");
  section(impl->links.targets, h.link_entries, "links");
  // Every index in range, so that queries never read outside the arrays.
  const std::uint64_t node_offset = sizeof(Header) + 8 * levels;
  for (std::uint64_t i = 0; i < h.nodes; ++i) {
    const VisibilityNode& n = t.nodes[i];
    const bool leaf = n.leaf != VisibilityNode::kNone;
    if ((leaf ? n.leaf >= h.leaves || n.children != 0
              : n.first_child >= h.nodes || n.children > 8 || n.children == 0 ||
                    n.first_child + n.children > h.nodes || n.first_child <= i) ||
        std::uint64_t{n.first_point} + n.points > h.points ||
        (i == 0 ? n.parent != VisibilityNode::kNone : n.parent >= i)) {
      bad(path, fmt::format("node {} (offset {}) points outside the map", i,
                            node_offset + i * sizeof(VisibilityNode)));
    }
  }
  t.leaves.resize(h.leaves);
  t.geometry.resize(h.leaves);
  for (std::uint64_t i = 0; i < h.leaves; ++i) {
    const std::byte* d = leaf_data.data() + i * kLeafBytes;
    VisibilityLeaf& l = t.leaves[i];
    std::memcpy(&l.node, d, 4);
    std::memcpy(l.centroid.data(), d + 8, 24);
    std::memcpy(l.normal.data(), d + 32, 24);
    std::memcpy(&l.delta, d + 56, 8);
    if (l.node >= h.nodes || t.nodes[l.node].leaf != i) {
      bad(path, fmt::format("leaf {} names node {}, which is not it", i, l.node));
    }
    t.geometry[i] = {{l.centroid[0], l.centroid[1], l.centroid[2]},
                     {l.normal[0], l.normal[1], l.normal[2]},
                     l.delta};
  }
  for (const std::uint32_t p : t.order) {
    if (p >= h.points) bad(path, fmt::format("the point order names point {} of {}", p, h.points));
  }
  const auto& o = impl->links.offsets;
  if (o[0] != 0 || o[h.nodes] != h.link_entries) bad(path, "its link offsets do not add up");
  for (std::uint64_t i = 0; i < h.nodes; ++i) {
    if (o[i] > o[i + 1]) bad(path, fmt::format("the link offsets fall at node {}", i));
  }
  for (const std::uint32_t target : impl->links.targets) {
    if (target >= h.nodes) bad(path, fmt::format("a link names node {} of {}", target, h.nodes));
  }
  for (int a = 0; a < 3; ++a) t.origin[a] = h.origin[a];
  t.edge = h.edge;
  t.depth = h.depth;
  t.point_leaf.assign(h.points, 0);
  for (std::uint32_t l = 0; l < h.leaves; ++l) {
    const VisibilityNode& n = t.nodes[t.leaves[l].node];
    for (std::uint32_t k = 0; k < n.points; ++k) t.point_leaf[t.order[n.first_point + k]] = l;
  }
  detail::cpu::make_walk(t);
  VisibilityStats& s = impl->stats;
  s.points = h.points;
  s.nodes = h.nodes;
  s.leaves = h.leaves;
  s.depth = h.depth;
  s.leaf_pairs = pairs;
  s.facing_pairs = h.facing_pairs;
  s.visible_pairs = h.visible_pairs;
  s.links_per_level = impl->links.per_level;
  s.links = h.link_entries / 2;
  s.bytes = f.size();
  return VisibilityMap(std::move(impl));
}

}  // namespace simlod
