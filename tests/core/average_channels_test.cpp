// Attribute channels under Sampling::Average (CPU backend): every voxel against a brute-force
// evaluation over the original points below its cell: intensity and NIR their rounded means,
// classification their mode (ties to the smaller class), every other attribute that of the
// point with the largest Random key (ties: the larger record digest), the colour the mean as
// without channels. Exact in any batching and thread count; build() equals the batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <span>
#include <vector>

#include "core/channel_scenes.hpp"
#include "core/expect_refused.hpp"
#include "simlod/detail/channels.hpp"

namespace simlod::test {
namespace {

constexpr AttributeMask kSome =
    attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification) |
    attribute_bit(Attribute::GpsTime) | attribute_bit(Attribute::ReturnNumber) |
    attribute_bit(Attribute::Nir);

/// What Average with channels keeps of one cell's points.
struct CellTruth {
  detail::ColourSum sum;
  std::uint64_t intensity = 0, nir = 0;
  std::map<std::uint32_t, std::uint64_t> classes;  // class -> points
  std::uint64_t key = 0, digest = 0;               // the largest (key, digest) and its point
  std::size_t winner = 0;
};

using NodeTruth = std::map<std::uint32_t, CellTruth>;  // by cell

/// Point by point, from the root down the snapshot's children: the truth of every inner node's
/// cells.
std::vector<NodeTruth> brute_force(const NodeSnapshot& snap, std::span<const Point> points,
                                   const PointAttributes& all, AttributeMask mask,
                                   const CheckGeometry& g, std::uint32_t seed) {
  const detail::ChannelLayout layout = detail::channel_layout(mask);
  std::vector<std::byte> record(layout.record_bytes);
  std::vector<NodeTruth> truth(snap.nodes.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    detail::pack_records(all, layout, i, 1, record.data());
    const std::uint64_t digest = detail::record_digest(
        reinterpret_cast<const std::uint8_t*>(record.data()), layout.record_bytes);
    const detail::QuantPoint q = detail::quantize(p, g.scale);
    const std::uint64_t key = detail::random_key(q, p.rgba, seed);
    for (std::size_t id = 0; !snap.nodes[id].leaf;) {
      const NodeSnapshot::Node& n = snap.nodes[id];
      CellTruth& c = truth[id][detail::cell_index(q, n.level, g.grid_bits)];
      c.sum.add(p.rgba);
      if (!all.intensity.empty()) c.intensity += all.intensity[i];
      if (!all.nir.empty()) c.nir += all.nir[i];
      if (!all.classification.empty()) ++c.classes[all.classification[i]];
      if (key > c.key || (key == c.key && digest > c.digest)) {
        c.key = key;
        c.digest = digest;
        c.winner = i;
      }
      const std::int32_t child = n.children[detail::child_octant(q, n.level)];
      if (child <= 0) {
        ADD_FAILURE() << "node " << id << " has no child for point " << i;
        return {};
      }
      id = static_cast<std::size_t>(child);
    }
  }
  return truth;
}

/// The record a voxel of truth `t` must hold: the winner's, with the means and the mode.
std::vector<std::byte> expected_record(const CellTruth& t, const PointAttributes& all,
                                       const detail::ChannelLayout& layout) {
  std::vector<std::byte> r(layout.record_bytes);
  detail::pack_records(all, layout, t.winner, 1, r.data());
  std::uint32_t mode = 0;
  std::uint64_t most = 0;
  for (const auto& [cls, n] : t.classes) {  // ascending: the first of the most wins ties
    if (n > most) {
      most = n;
      mode = cls;
    }
  }
  if (layout.has(Attribute::Intensity)) {
    const auto v = static_cast<std::uint16_t>((t.intensity + t.sum.count / 2) / t.sum.count);
    std::memcpy(r.data() + layout.offset_of(Attribute::Intensity), &v, 2);
  }
  if (layout.has(Attribute::Nir)) {
    const auto v = static_cast<std::uint16_t>((t.nir + t.sum.count / 2) / t.sum.count);
    std::memcpy(r.data() + layout.offset_of(Attribute::Nir), &v, 2);
  }
  if (layout.has(Attribute::Classification)) {
    r[layout.offset_of(Attribute::Classification)] = static_cast<std::byte>(mode);
  }
  return r;
}

/// Every voxel of `s` against the brute force, every leaf point against its own attributes
/// (points carry their index in their colour). Returns the voxels checked.
std::size_t expect_average_channels(const NodeSnapshot& s, std::span<const Point> points,
                                    const PointAttributes& all, AttributeMask mask,
                                    const OctreeConfig& config) {
  const bool mean_colours = config.sampling == Sampling::Average;  // Weighted: finalize()'s
  const CheckGeometry g = check_geometry(s, config);
  const std::vector<NodeTruth> truth = brute_force(s, points, all, mask, g, config.sampling_seed);
  if (truth.size() != s.nodes.size()) return 0;
  const detail::ChannelLayout layout = detail::channel_layout(mask);
  std::vector<std::byte> got(layout.record_bytes);
  std::size_t voxels = 0, mixed = 0;
  for (std::size_t id = 0; id < s.nodes.size(); ++id) {
    const NodeSnapshot::Node& n = s.nodes[id];
    if (n.leaf) {
      for (std::size_t j = 0; j < n.points.size(); ++j) {
        expect_same(n.attributes, j, all, index_of(n.points[j].rgba), mask);
      }
      continue;
    }
    EXPECT_EQ(n.voxels.size(), truth[id].size()) << "node " << id;
    for (std::size_t j = 0; j < n.voxels.size(); ++j) {
      const std::uint32_t cell =
          detail::cell_index(detail::quantize(n.voxels[j], g.scale), n.level, g.grid_bits);
      const auto it = truth[id].find(cell);
      if (it == truth[id].end()) {
        ADD_FAILURE() << "node " << id << ": voxel " << j << " in a cell without points";
        continue;
      }
      const CellTruth& t = it->second;
      if (mean_colours) {
        EXPECT_EQ(n.voxels[j].rgba, t.sum.rgba()) << "node " << id << " voxel " << j;
      }
      detail::pack_records(n.attributes, layout, j, 1, got.data());
      EXPECT_EQ(got, expected_record(t, all, layout))
          << "node " << id << " (level " << n.level << ") voxel " << j << ", " << t.sum.count
          << " points, " << t.classes.size() << " classes";
      ++voxels;
      mixed += t.classes.size() > 1 ? 1 : 0;
    }
  }
  EXPECT_GT(mixed, voxels / 10) << "the scene should mix classes in many voxels";
  return voxels;
}

OctreeConfig average_config(AttributeMask mask, unsigned threads = 0,
                            Sampling sampling = Sampling::Average) {
  return channel_config(sampling, mask, threads);
}

TEST(AverageChannels, VoxelsFollowTheRulesInBatches) {
  // Leaves of 1000 points, batches of 7000: leaves split in later batches, so the stored points
  // fold into the new inner nodes with the records of the spill buffer.
  constexpr std::size_t kN = 40'000;
  for (const AttributeMask mask : {kSome, kAllAttributes}) {
    const Built b = build(kN, mask, 7000, 1000, 0, Sampling::Average);
    const NodeSnapshot s = b.tree.snapshot();
    EXPECT_GT(expect_average_channels(s, b.points, b.attributes, mask, average_config(mask)),
              1000u);
    // The channels change no colour: the same tree as without them.
    const Built plain = build(kN, 0, 7000, 1000, 0, Sampling::Average);
    expect_same_tree(plain.tree.snapshot(), s, /*colours=*/true);
    EXPECT_GT(b.tree.stats().bytes_filter, plain.tree.stats().bytes_filter);
  }
}

TEST(AverageChannels, AnyBatchingAndThreadCountGivesTheSameRecords) {
  constexpr std::size_t kN = 30'000;
  const Built streamed = build(kN, kSome, 3000, 500, 0, Sampling::Average);
  const Built whole = build(kN, kSome, kN, 500, 1, Sampling::Average);
  const NodeSnapshot a = streamed.tree.snapshot(), b = whole.tree.snapshot();
  expect_same_tree(a, b, /*colours=*/true);
  EXPECT_GT(expect_same_voxel_records(a, b, kSome), 1000u);
  EXPECT_GT(expect_average_channels(a, streamed.points, streamed.attributes, kSome,
                                    average_config(kSome)),
            1000u);
  EXPECT_GT(
      expect_average_channels(b, whole.points, whole.attributes, kSome, average_config(kSome, 1)),
      1000u);
}

TEST(AverageChannels, ClassesWithoutIntensityAndIntensityWithoutClasses) {
  constexpr std::size_t kN = 20'000;
  for (const AttributeMask mask :
       {attribute_bit(Attribute::Classification), attribute_bit(Attribute::Intensity)}) {
    const Built b = build(kN, mask, 4000, 800, 0, Sampling::Average);
    const NodeSnapshot s = b.tree.snapshot();
    // Without classes no voxel mixes any: check the records directly.
    const CheckGeometry g = check_geometry(s, average_config(mask));
    const auto truth = brute_force(s, b.points, b.attributes, mask, g, 1);
    ASSERT_EQ(truth.size(), s.nodes.size());
    const detail::ChannelLayout layout = detail::channel_layout(mask);
    std::vector<std::byte> got(layout.record_bytes);
    std::size_t voxels = 0;
    for (std::size_t id = 0; id < s.nodes.size(); ++id) {
      const NodeSnapshot::Node& n = s.nodes[id];
      for (std::size_t j = 0; !n.leaf && j < n.voxels.size(); ++j, ++voxels) {
        const std::uint32_t cell =
            detail::cell_index(detail::quantize(n.voxels[j], g.scale), n.level, g.grid_bits);
        detail::pack_records(n.attributes, layout, j, 1, got.data());
        ASSERT_EQ(got, expected_record(truth[id].at(cell), b.attributes, layout))
            << "node " << id << " voxel " << j;
      }
    }
    EXPECT_GT(voxels, 1000u);
  }
}

TEST(AverageChannels, BuildEqualsTheBatches) {
  constexpr std::size_t kN = 25'000;
  const Built streamed = build(kN, kSome, 5000, 700, 0, Sampling::Average);
  const OctreeConfig config = {.backend = Backend::Cpu,
                               .max_points_per_leaf = 700,
                               .chunk_capacity = 100,
                               .sampling = Sampling::Average,
                               .channels = kSome};
  const Octree built =
      Octree::build(streamed.points, streamed.attributes, random_scene(kN, 3).bounds, config);
  const NodeSnapshot a = streamed.tree.snapshot(), b = built.snapshot();
  expect_same_tree(a, b, /*colours=*/true);
  EXPECT_GT(expect_average_channels(b, streamed.points, streamed.attributes, kSome, config), 1000u);
  // And batches after the build keep the rules.
  Octree more = Octree::build(std::span(streamed.points).first(kN / 2),
                              slice_attributes(streamed.attributes, 0, kN / 2, kSome),
                              random_scene(kN, 3).bounds, config);
  more.insert(std::span(streamed.points).subspan(kN / 2),
              slice_attributes(streamed.attributes, kN / 2, kN - kN / 2, kSome));
  more.update();
  const NodeSnapshot c = more.snapshot();
  expect_same_tree(a, c, /*colours=*/true);
  EXPECT_GT(expect_same_voxel_records(a, c, kSome), 1000u);
}

TEST(AverageChannels, WeightedKeepsAveragesRulesForItsChannels) {
  // Weighted colours come from finalize(); the channels follow Average's rules batch by batch,
  // and finalize() gives the voxels their colours without moving them off their records.
  constexpr std::size_t kN = 30'000;
  Built b = build(kN, kSome, 6000, 1000, 0, Sampling::Weighted);
  b.tree.finalize();
  const NodeSnapshot s = b.tree.snapshot();
  EXPECT_GT(expect_average_channels(s, b.points, b.attributes, kSome,
                                    average_config(kSome, 0, Sampling::Weighted)),
            1000u);
  Built plain = build(kN, 0, 6000, 1000, 0, Sampling::Weighted);
  plain.tree.finalize();
  expect_same_tree(plain.tree.snapshot(), s, /*colours=*/true);
  // build() equals the batches, colours and records.
  const Octree built = Octree::build(b.points, b.attributes, random_scene(kN, 3).bounds,
                                     average_config(kSome, 0, Sampling::Weighted));
  EXPECT_GT(expect_same_voxel_records(s, built.snapshot(), kSome), 1000u);
  // More batches make the colours stale again; finalize() mends them, records untouched.
  Octree more =
      Octree::create(random_scene(kN, 3).bounds, average_config(kSome, 0, Sampling::Weighted));
  for (std::size_t at = 0; at < kN; at += 5000) {
    const std::size_t n = std::min<std::size_t>(5000, kN - at);
    more.insert(std::span(b.points).subspan(at, n), slice_attributes(b.attributes, at, n, kSome));
    more.update();
    if (at == 10'000) more.finalize();
  }
  more.finalize();
  EXPECT_GT(expect_same_voxel_records(s, more.snapshot(), kSome), 1000u);
}

TEST(AverageChannels, ClassCountsThatDoNotFitRefuseTheBatchWhole) {
  // Reserves from the whole tree's size down: somewhere the class counts' growth is what does
  // not fit. A refused batch leaves the tree as it was: every voxel exact for the points in.
  constexpr std::size_t kN = 20'000;
  const OctreeConfig config = average_config(kSome);
  const std::uint64_t full =
      build(kN, kSome, 2000, 1000, 0, Sampling::Average).tree.stats().bytes_reserved;
  ASSERT_GT(full, 0u);
  const Scene& scene = random_scene(kN, 3);
  const std::vector<Point> points = indexed(scene.points);
  const PointAttributes all = make_attributes(kN);
  std::size_t class_refusals = 0;
  for (int step = 1; step < 40 && class_refusals < 2; ++step) {
    OctreeConfig c = config;
    c.memory_bytes = full - full * static_cast<std::uint64_t>(step) / 50;
    Octree tree = Octree::create(scene.bounds, c);
    std::string refusal;
    for (std::size_t begin = 0; begin < kN && refusal.empty(); begin += 2000) {
      tree.insert(std::span(points).subspan(begin, 2000),
                  slice_attributes(all, begin, 2000, kSome));
      try {
        (void)tree.update();
      } catch (const CapacityError& e) {
        refusal = e.what();
      }
    }
    if (refusal.find("class counts of the voxel index") == std::string::npos) continue;
    ++class_refusals;
    const std::size_t in = tree.stats().points;
    ASSERT_LT(in, kN);
    EXPECT_GT(
        expect_average_channels(tree.snapshot(), std::span(points).first(in), all, kSome, config),
        100u)
        << "reserve " << c.memory_bytes << ": " << refusal;
  }
  EXPECT_GT(class_refusals, 0u) << "no reserve made the class counts the refused part";
}

TEST(AverageChannels, RefusedWhereNotKept) {
  const Scene& scene = random_scene(100, 3);
  for (const Sampling sampling : {Sampling::Average, Sampling::Weighted}) {
    OctreeConfig c = average_config(kSome, 0, sampling);
    c.voxel_grid = 1024;
    expect_refused([&] { (void)Octree::create(scene.bounds, c); }, "at most 256 cells a side");
    c.channels = attribute_bit(Attribute::Intensity);  // no class counts: any grid
    EXPECT_NO_THROW((void)Octree::create(scene.bounds, c));
  }
}

}  // namespace
}  // namespace simlod::test
