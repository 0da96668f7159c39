// Attribute channels of the octree (OctreeConfig::channels): the record layout, leaves that keep
// their points' attributes through splits, voxels that take the attributes of the sample whose
// colour they took, memory per channel, the colour modes that read them, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "core/channel_scenes.hpp"
#include "core/channels.hpp"
#include "core/expect_refused.hpp"
#include "core/octree_test_util.hpp"
#include "core/render_math.hpp"
#include "simlod/coloring.hpp"
#include "simlod/error.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/render.hpp"
#include "simlod/view.hpp"

namespace simlod::test {
namespace {

TEST(OctreeChannels, RecordLayoutAlignsEveryField) {
  const detail::ChannelLayout two = detail::channel_layout(
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification));
  EXPECT_EQ(two.record_bytes, 4u);
  EXPECT_EQ(two.offset_of(Attribute::Intensity), 0u);
  EXPECT_EQ(two.offset_of(Attribute::Classification), 2u);
  EXPECT_FALSE(two.has(Attribute::GpsTime));
  const detail::ChannelLayout all = detail::channel_layout(kAllAttributes);
  EXPECT_EQ(all.record_bytes, 32u) << "8 + 4 + 3 * 2 + 7 * 1 = 25 bytes, padded to 8";
  std::set<std::uint32_t> used;
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    const auto a = static_cast<Attribute>(i);
    const std::uint32_t at = all.offset_of(a), w = detail::attribute_width(a);
    EXPECT_EQ(at % w, 0u) << to_string(a) << " is aligned";
    for (std::uint32_t k = 0; k < w; ++k) EXPECT_TRUE(used.insert(at + k).second) << to_string(a);
  }
  EXPECT_EQ(detail::channel_layout(0).record_bytes, 0u);
  EXPECT_EQ(detail::channel_layout(attribute_bit(Attribute::UserData)).record_bytes, 4u);
}

TEST(OctreeChannels, PackAndUnpackRoundTrip) {
  const PointAttributes a = make_attributes(50);
  const detail::ChannelLayout layout = detail::channel_layout(kAllAttributes);
  std::vector<std::byte> records(40 * layout.record_bytes);
  detail::pack_records(a, layout, 10, 40, records.data());
  PointAttributes back;
  detail::unpack_records(records.data(), 40, layout, back);
  for (std::size_t i = 0; i < 40; ++i) {
    EXPECT_EQ(back.intensity[i], a.intensity[10 + i]);
    EXPECT_EQ(back.gps_time[i], a.gps_time[10 + i]);
    EXPECT_EQ(back.scan_angle[i], a.scan_angle[10 + i]);
    EXPECT_EQ(back.nir[i], a.nir[10 + i]);
    EXPECT_EQ(back.classification[i], a.classification[10 + i]);
  }
}

TEST(OctreeChannels, LeavesKeepTheirPointsAttributesAndVoxelsTheirColourSources) {
  // Leaves of 1000 points, batches of 7000: leaves split in later batches, so stored points
  // and their records move through the spill buffer.
  constexpr std::size_t kN = 60'000;
  Built b = build(kN, kAllAttributes, 7000);
  const NodeSnapshot s = b.tree.snapshot();
  EXPECT_EQ(s.channels, kAllAttributes);
  std::vector<int> seen(kN, 0);
  std::size_t inner = 0;
  for (std::size_t k = 0; k < s.nodes.size(); ++k) {
    const auto& node = s.nodes[k];
    const auto& samples = node.leaf ? node.points : node.voxels;
    ASSERT_EQ(node.attributes.size_of(Attribute::GpsTime), samples.size()) << "node " << k;
    ASSERT_EQ(node.attributes.size_of(Attribute::Nir), samples.size()) << "node " << k;
    for (std::size_t j = 0; j < samples.size(); ++j) {
      const std::size_t i = index_of(samples[j].rgba);
      ASSERT_LT(i, kN);
      expect_same(node.attributes, j, b.attributes, i, kAllAttributes);
      if (node.leaf) {
        ++seen[i];
        EXPECT_EQ(samples[j].x, b.points[i].x);
        EXPECT_EQ(samples[j].z, b.points[i].z);
        continue;
      }
      // The voxel's source lies in the voxel's cell: within half a cell of its centre.
      const double cell = (node.bounds.max[0] - node.bounds.min[0]) / 128.0;
      EXPECT_LE(std::abs(samples[j].x - b.points[i].x), 0.5 * cell * (1 + 1e-4));
      EXPECT_LE(std::abs(samples[j].y - b.points[i].y), 0.5 * cell * (1 + 1e-4));
    }
    inner += node.leaf ? 0 : 1;
  }
  EXPECT_GT(inner, 8u) << "the tree split";
  for (std::size_t i = 0; i < kN; ++i) ASSERT_EQ(seen[i], 1) << "point " << i << " stored once";
}

TEST(OctreeChannels, NodeReaderGivesTheChannels) {
  const AttributeMask mask =
      attribute_bit(Attribute::GpsTime) | attribute_bit(Attribute::ReturnNumber);
  const Built b = build(20'000, mask, 5000);
  expect_reader_matches_snapshot(b.tree, b.tree.snapshot(), mask);
  // Without channels the arrays come back empty.
  const Built plain = build(2'000, 0, 1000);
  std::vector<Point> out(10);
  PointAttributes a;
  a.intensity.assign(3, 1);
  EXPECT_EQ(plain.tree.read_node(0, out, 0, a), 10u);
  EXPECT_EQ(a.present(), 0u);
}

TEST(OctreeChannels, InsertNowEqualsInsertAndUpdate) {
  constexpr std::size_t kN = 20'000;
  const AttributeMask mask =
      attribute_bit(Attribute::Classification) | attribute_bit(Attribute::PointSourceId);
  Built queued = build(kN, mask, 4000, 1000, 1);
  Octree now = Octree::create(random_scene(kN, 3).bounds, {.backend = Backend::Cpu,
                                                           .max_points_per_leaf = 1000,
                                                           .chunk_capacity = 100,
                                                           .cpu_threads = 1,
                                                           .channels = mask});
  for (std::size_t begin = 0; begin < kN; begin += 4000) {
    PointAttributes part;
    part.classification.assign(queued.attributes.classification.begin() + begin,
                               queued.attributes.classification.begin() + begin + 4000);
    part.point_source_id.assign(queued.attributes.point_source_id.begin() + begin,
                                queued.attributes.point_source_id.begin() + begin + 4000);
    (void)now.insert_now(std::span(queued.points).subspan(begin, 4000), part);
  }
  const NodeSnapshot a = queued.tree.snapshot(), b = now.snapshot();
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t k = 0; k < a.nodes.size(); ++k) {
    const auto& x = a.nodes[k];
    const auto& y = b.nodes[k];
    ASSERT_EQ(x.points.size(), y.points.size()) << k;
    ASSERT_EQ(x.voxels.size(), y.voxels.size()) << k;
    EXPECT_EQ(x.attributes.classification, y.attributes.classification) << k;
    EXPECT_EQ(x.attributes.point_source_id, y.attributes.point_source_id) << k;
  }
}

TEST(OctreeChannels, MemoryPerChannel) {
  const AttributeMask mask =
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification);
  Built with = build(20'000, mask, 5000);
  Built without = build(20'000, 0, 5000);
  const OctreeStats a = with.tree.stats(), b = without.tree.stats();
  // A record of 4 bytes (intensity 2, class 1, padding 1) beside each 16-byte point: the
  // leaves take the same chunks, of 20 bytes per point.
  EXPECT_EQ(a.bytes_points, b.bytes_points * 20 / 16);
  const std::uint64_t point_chunks = a.bytes_points / (100 * 20);
  const std::uint64_t voxel_chunks = a.chunks_used - point_chunks;
  EXPECT_EQ(a.bytes_voxels, voxel_chunks * 100 * 20);
  // Chunks of compact voxels hold fewer voxels when a record goes beside each.
  EXPECT_LE(a.voxels_per_chunk, b.voxels_per_chunk);
  const std::uint64_t slots = point_chunks * a.points_per_chunk + voxel_chunks * a.voxels_per_chunk;
  EXPECT_EQ(a.bytes_channels[static_cast<std::size_t>(Attribute::Intensity)], slots * 2);
  EXPECT_EQ(a.bytes_channels[static_cast<std::size_t>(Attribute::Classification)], slots * 1);
  EXPECT_EQ(a.bytes_channels[static_cast<std::size_t>(Attribute::GpsTime)], 0u);
  for (const std::uint64_t bytes : b.bytes_channels) EXPECT_EQ(bytes, 0u);
}

/// Renders `tree` from above at 64 x 64 (the scene's bounds), in `mode`.
std::vector<std::uint8_t> render(const Octree& tree, ColorMode mode, const Bounds& box,
                                 std::array<float, 2> intensity = {0.0f, 65535.0f}) {
  View view = View::overview(box, 64, 64, 30.0, 60.0);
  view.color = mode;
  view.intensity_range = intensity;
  Framebuffer fb(64, 64, Backend::Cpu);
  rasterize(tree, view, fb);
  return fb.download();
}

TEST(OctreeChannels, ColourModesEqualColouringWhileLoading) {
  // One worker: first-come voxels come from the same points in both octrees.
  constexpr std::size_t kN = 30'000;
  const AttributeMask mask =
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification) |
      attribute_bit(Attribute::ReturnNumber) | attribute_bit(Attribute::NumberOfReturns) |
      attribute_bit(Attribute::PointSourceId);
  Built with = build(kN, mask, 6000, 1000, 1);
  Bounds box;
  for (const Point& p : with.points) box.expand(p.x, p.y, p.z);
  const std::array<float, 2> range{1000.0f, 60000.0f};
  const std::pair<ColorMode, ColorBy> modes[] = {
      {ColorMode::Intensity, ColorBy::Intensity},
      {ColorMode::Classification, ColorBy::Classification},
      {ColorMode::Returns, ColorBy::Returns},
      {ColorMode::PointSourceId, ColorBy::PointSourceId}};
  for (const auto& [mode, by] : modes) {
    std::vector<Point> coloured = with.points;
    color_points(coloured, with.attributes, {.by = by, .intensity_range = range});
    Octree plain = Octree::create(random_scene(kN, 3).bounds, {.backend = Backend::Cpu,
                                                               .max_points_per_leaf = 1000,
                                                               .chunk_capacity = 100,
                                                               .cpu_threads = 1});
    for (std::size_t begin = 0; begin < kN; begin += 6000) {
      plain.insert(std::span(coloured).subspan(begin, std::min<std::size_t>(6000, kN - begin)));
      plain.update();
    }
    const auto a = render(with.tree, mode, box, range);
    std::size_t drawn = 0;
    for (std::size_t px = 0; px + 3 < a.size(); px += 4)
      drawn += (a[px] | a[px + 1] | a[px + 2]) != 0;
    EXPECT_GT(drawn, 64u * 64u / 4) << "the scene fills the frame";
    EXPECT_EQ(a, render(plain, ColorMode::Rgb, box)) << "mode " << static_cast<int>(mode);
    // The snapshot draws the same.
    View view = View::overview(box, 64, 64, 30.0, 60.0);
    view.color = mode;
    view.intensity_range = range;
    Framebuffer fb(64, 64, Backend::Cpu);
    rasterize(with.tree.snapshot(), view, fb);
    EXPECT_EQ(fb.download(), a);
  }
  // The file's colours are still there: RGB mode draws the index colours.
  EXPECT_NE(render(with.tree, ColorMode::Rgb, box), render(with.tree, ColorMode::Returns, box));
}

TEST(OctreeChannels, IntensityGammaComesInSteps) {
  detail::RenderParams p{};
  p.color_mode = detail::kColorIntensity;
  p.intensity_low = 100.0f;
  p.intensity_span = 100.0f;
  for (std::uint32_t k = 0; k < 256; ++k) p.grey[k] = static_cast<std::uint8_t>(255 - k);
  std::uint8_t record[4] = {};
  const std::uint16_t v = 150;  // t = 0.5, 127.5 rounds to 128
  std::memcpy(record, &v, 2);
  EXPECT_EQ(detail::sample_color(p, 0.0f, pack_rgba(1, 2, 3, 77), record),
            pack_rgba(127, 127, 127, 77));
}

TEST(OctreeChannels, BadRequestsAreRefused) {
  const Scene& scene = random_scene(2000, 3);
  const AttributeMask mask = attribute_bit(Attribute::Classification);
  auto config = [&] { return OctreeConfig{.backend = Backend::Cpu, .channels = mask}; };
  Octree tree = Octree::create(scene.bounds, config());
  expect_refused([&] { tree.insert(scene.points); }, "insert(points, attributes)");
  PointAttributes a;
  expect_refused([&] { tree.insert(scene.points, a); }, "classification");
  a.classification.assign(scene.points.size() - 1, 2);
  expect_refused([&] { tree.insert(scene.points, a); }, "1999 values");
  EXPECT_EQ(tree.stats().batches_queued, 0u);
  expect_refused([&] { (void)tree.insert_now(scene.points); }, "insert_now");
  a.classification.assign(scene.points.size(), 2);
  std::vector<Point> bad = scene.points;
  bad[7].x = std::nanf("");
  expect_refused([&] { tree.insert(bad, a); }, "point 7");
  tree.insert(scene.points, a);
  tree.update();
  EXPECT_EQ(tree.stats().points, scene.points.size());

  OctreeConfig c = config();
  c.sampling = Sampling::Weighted;
  c.voxel_grid = 512;
  expect_refused([&] { (void)Octree::create(scene.bounds, c); }, "at most 256 cells a side");
  c = config();
  c.channels = 1u << 20;
  expect_refused([&] { (void)Octree::create(scene.bounds, c); }, "no attribute");
  expect_refused([&] { (void)Octree::build(scene.points, scene.bounds, config()); },
                 "build(points, attributes, cube, config)");
  a.classification.assign(scene.points.size() - 1, 2);
  expect_refused([&] { (void)Octree::build(scene.points, a, scene.bounds, config()); },
                 "1999 values");
  a.classification.assign(scene.points.size(), 2);
  expect_refused([&] { (void)Octree::build(bad, a, scene.bounds, config()); }, "point 7");

  // Colour modes need their channels.
  Framebuffer fb(16, 16, Backend::Cpu);
  View view = View::overview(scene.bounds, 16, 16);
  view.color = ColorMode::Intensity;
  expect_refused([&] { rasterize(tree, view, fb); }, "channel intensity");
  view.color = ColorMode::Classification;
  EXPECT_NO_THROW(rasterize(tree, view, fb));
  view.intensity_range = {5.0f, 5.0f};
  view.color = ColorMode::Intensity;
  expect_refused([&] { rasterize(tree, view, fb); }, "intensity_range");
  view.intensity_range = {0.0f, 1.0f};
  view.intensity_gamma = 0.0f;
  expect_refused([&] { rasterize(tree, view, fb); }, "intensity_gamma");
  view.color = static_cast<ColorMode>(99);
  expect_refused([&] { rasterize(tree, view, fb); }, "unknown color mode value 99");
  // A snapshot whose channel arrays are shorter than its samples.
  NodeSnapshot s = tree.snapshot();
  std::size_t k = 0;
  while (s.nodes[k].points.empty() && s.nodes[k].voxels.empty()) ++k;
  s.nodes[k].attributes.classification.pop_back();
  view = View::overview(scene.bounds, 16, 16);
  view.color = ColorMode::Classification;
  expect_refused([&] { rasterize(s, view, fb); }, "values of its channel");
}

TEST(OctreeChannels, ABatchThatDoesNotFitLeavesEveryRecordInPlace) {
  // A reserve that runs out mid-stream: refused batches change nothing, and every stored
  // sample still carries its own attributes.
  constexpr std::size_t kN = 20'000;
  const Scene& scene = random_scene(kN, 3);
  const AttributeMask mask =
      attribute_bit(Attribute::GpsTime) | attribute_bit(Attribute::Intensity);
  Octree tree = Octree::create(scene.bounds, {.backend = Backend::Cpu,
                                              .max_points_per_leaf = 500,
                                              .chunk_capacity = 100,
                                              .memory_bytes = 2'000'000,
                                              .channels = mask});
  const std::vector<Point> points = indexed(scene.points);
  const PointAttributes all = make_attributes(kN);
  bool refused = false;
  for (std::size_t begin = 0; begin < kN; begin += 2000) {
    PointAttributes part;
    part.intensity.assign(all.intensity.begin() + begin, all.intensity.begin() + begin + 2000);
    part.gps_time.assign(all.gps_time.begin() + begin, all.gps_time.begin() + begin + 2000);
    tree.insert(std::span(points).subspan(begin, 2000), part);
    try {
      tree.update();
    } catch (const CapacityError&) {
      refused = true;
      tree.discard_queued();
    }
  }
  EXPECT_TRUE(refused) << "the reserve ran out";
  const std::uint64_t stored = expect_channels_follow_colours(tree.snapshot(), all, mask);
  EXPECT_EQ(stored, tree.stats().points);
  EXPECT_GT(stored, 0u);
}

}  // namespace
}  // namespace simlod::test
