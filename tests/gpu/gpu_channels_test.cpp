// Attribute channels on CUDA: the records follow their samples through uploads, splits and the
// voxel backlog as on the CPU backend (first-come and Random voxels, ties included; Average's
// means, modes and winners), the
// statistics agree, and the attribute colour modes draw the CUDA octree as the CPU renderer
// draws its snapshot.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/channel_scenes.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/render.hpp"
#include "simlod/view.hpp"

namespace simlod::test {
namespace {

struct ChannelScene {
  std::vector<Point> points;
  PointAttributes attributes;
  Bounds bounds;  ///< file coordinates
  Bounds box;     ///< octree coordinates
};

ChannelScene channel_scene(std::size_t n) {
  const Scene& scene = random_scene(n, 7);
  ChannelScene s{indexed(scene.points), make_attributes(n), scene.bounds, {}};
  for (const Point& p : s.points) s.box.expand(p.x, p.y, p.z);
  return s;
}

/// tied_points(): `copies` points of one colour at each position, attributes of their own.
ChannelScene tied_scene(std::size_t positions, std::size_t copies) {
  ChannelScene s{tied_points(positions, copies),
                 make_attributes(positions * copies),
                 random_scene(positions, 11).bounds,
                 {}};
  for (const Point& p : s.points) s.box.expand(p.x, p.y, p.z);
  return s;
}

/// The channel config of the tests on `backend`.
OctreeConfig build_config(Backend backend, Sampling sampling, AttributeMask mask) {
  return {.backend = backend,
          .max_points_per_leaf = 5000,
          .chunk_capacity = 500,
          .sampling = sampling,
          .channels = mask};
}

/// Builds the scene on `backend` in batches (every other one through insert_now).
Octree build(const ChannelScene& s, Backend backend, AttributeMask mask, std::size_t batch,
             Sampling sampling = Sampling::FirstCome) {
  OctreeConfig config = build_config(backend, sampling, mask);
  config.max_batch_points = 1u << 18;
  Octree tree = Octree::create(s.bounds, config);
  for (std::size_t at = 0, k = 0; at < s.points.size(); at += batch, ++k) {
    const std::size_t n = std::min(batch, s.points.size() - at);
    const PointAttributes part = slice_attributes(s.attributes, at, n, mask);
    const auto piece = std::span(s.points).subspan(at, n);
    if (k % 2 == 0) {
      tree.insert(piece, part);
      (void)tree.update();
    } else {
      (void)tree.insert_now(piece, part);
    }
  }
  return tree;
}

TEST(GpuChannels, RecordsFollowTheirSamplesAsOnTheCpu) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = channel_scene(2'000'000);
  for (const AttributeMask mask : {kAllAttributes, attribute_bit(Attribute::Intensity) |
                                                       attribute_bit(Attribute::Classification)}) {
    const Octree gpu = build(s, Backend::Cuda, mask, 300'000);
    const Octree cpu = build(s, Backend::Cpu, mask, 300'000);
    const NodeSnapshot snap = gpu.snapshot();
    EXPECT_EQ(snap.channels, mask);
    expect_same_tree(cpu.snapshot(), snap, /*colours=*/false);
    EXPECT_EQ(expect_channels_follow_colours(snap, s.attributes, mask), s.points.size());
    EXPECT_EQ(gpu.stats().bytes_channels, cpu.stats().bytes_channels);
    EXPECT_EQ(gpu.stats().bytes_points, cpu.stats().bytes_points);
  }
}

TEST(GpuChannels, RandomVoxelsTakeTheirWinnersRecordsAsOnTheCpu) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = channel_scene(1'000'000);
  const Octree gpu = build(s, Backend::Cuda, kAllAttributes, 150'000, Sampling::Random);
  const Octree cpu = build(s, Backend::Cpu, kAllAttributes, 150'000, Sampling::Random);
  const NodeSnapshot snap = gpu.snapshot();
  expect_same_tree(cpu.snapshot(), snap, /*colours=*/true);
  EXPECT_EQ(expect_channels_follow_colours(snap, s.attributes, kAllAttributes), s.points.size());
}

TEST(GpuChannels, RandomTiesGoToTheLargestRecordDigestAsOnTheCpu) {
  SIMLOD_REQUIRE_GPU();
  // Four points of one key side by side: the lanes of a warp combine them, and the coarse
  // voxels' locks see many warps.
  const ChannelScene s = tied_scene(150'000, 4);
  const AttributeMask mask =
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::PointSourceId);
  const Octree gpu = build(s, Backend::Cuda, mask, 200'000, Sampling::Random);
  const Octree cpu = build(s, Backend::Cpu, mask, 200'000, Sampling::Random);
  const NodeSnapshot snap = gpu.snapshot();
  expect_same_tree(cpu.snapshot(), snap, /*colours=*/true);
  EXPECT_GT(expect_ties_go_to_largest_digest(snap, s.attributes, mask, 4), 10'000u);
}

TEST(GpuChannels, AverageVoxelsTakeMeansModesAndWinnersAsOnTheCpu) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = channel_scene(1'000'000);
  // Every attribute, and classification alone (class counts without a mean).
  for (const AttributeMask mask : {kAllAttributes, attribute_bit(Attribute::Classification)}) {
    const Octree gpu = build(s, Backend::Cuda, mask, 150'000, Sampling::Average);
    const Octree cpu = build(s, Backend::Cpu, mask, 150'000, Sampling::Average);
    const NodeSnapshot snap = gpu.snapshot(), want = cpu.snapshot();
    expect_same_tree(want, snap, /*colours=*/true);
    EXPECT_GT(expect_same_voxel_records(want, snap, mask), 100'000u);
    EXPECT_GT(gpu.stats().bytes_filter, 0u);
  }
  // A build with Average's channels (incremental underneath) gives the same tree.
  const AttributeMask mask =
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification);
  const OctreeConfig c = build_config(Backend::Cuda, Sampling::Average, mask);
  const PointAttributes part = slice_attributes(s.attributes, 0, s.points.size(), mask);
  const Octree gpu = Octree::build(s.points, part, s.bounds, c);
  const Octree cpu = Octree::build(s.points, part, s.bounds, on_backend(c, Backend::Cpu));
  EXPECT_GT(expect_same_voxel_records(cpu.snapshot(), gpu.snapshot(), mask), 100'000u);
}

TEST(GpuChannels, WeightedColoursAndAveragesChannelsAsOnTheCpu) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = channel_scene(800'000);
  const AttributeMask mask = attribute_bit(Attribute::Intensity) |
                             attribute_bit(Attribute::Classification) |
                             attribute_bit(Attribute::GpsTime);
  Octree gpu = build(s, Backend::Cuda, mask, 150'000, Sampling::Weighted);
  Octree cpu = build(s, Backend::Cpu, mask, 150'000, Sampling::Weighted);
  gpu.finalize();  // the weighted colours, into the voxels beside their records
  cpu.finalize();
  EXPECT_GT(expect_same_voxel_records(cpu.snapshot(), gpu.snapshot(), mask), 50'000u);
  // The colours are those of the tree without channels.
  Octree plain = build(s, Backend::Cuda, 0, 150'000, Sampling::Weighted);
  plain.finalize();
  expect_same_tree(plain.snapshot(), gpu.snapshot(), /*colours=*/true);
  // build() finalizes by itself.
  const PointAttributes part = slice_attributes(s.attributes, 0, s.points.size(), mask);
  const Octree built = Octree::build(s.points, part, s.bounds,
                                     build_config(Backend::Cuda, Sampling::Weighted, mask));
  EXPECT_GT(expect_same_voxel_records(cpu.snapshot(), built.snapshot(), mask), 50'000u);
}

TEST(GpuChannels, BulkBuildWithChannelsGivesTheCpuBuildsTree) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = channel_scene(600'000);
  const AttributeMask mask = attribute_bit(Attribute::Intensity) |
                             attribute_bit(Attribute::Classification) |
                             attribute_bit(Attribute::GpsTime);
  const std::size_t first = 450'000;  // built; the rest goes in as batches afterwards
  const PointAttributes built = slice_attributes(s.attributes, 0, first, mask);
  const auto points = std::span(s.points).first(first);
  for (const Sampling sampling : {Sampling::FirstCome, Sampling::Random}) {
    SCOPED_TRACE(sampling == Sampling::Random ? "Random" : "FirstCome");
    Octree gpu =
        Octree::build(points, built, s.bounds, build_config(Backend::Cuda, sampling, mask));
    Octree cpu = Octree::build(points, built, s.bounds, build_config(Backend::Cpu, sampling, mask));
    EXPECT_GT(gpu.stats().build.split_ms, 0.0);  // the bulk kernels built it
    const bool random = sampling == Sampling::Random;
    NodeSnapshot snap = gpu.snapshot();
    expect_same_tree(cpu.snapshot(), snap, /*colours=*/random);
    EXPECT_EQ(expect_channels_follow_colours(snap, s.attributes, mask), first);
    if (random) {
      EXPECT_GT(expect_same_voxel_records(cpu.snapshot(), snap, mask), 50'000u);
    }
    EXPECT_EQ(gpu.stats().bytes_channels, cpu.stats().bytes_channels);
    // Batches after the build (Random: the voxel index made from the records the build wrote).
    for (std::size_t at = first; at < s.points.size(); at += 50'000) {
      const PointAttributes part = slice_attributes(s.attributes, at, 50'000, mask);
      const auto piece = std::span(s.points).subspan(at, 50'000);
      (void)gpu.insert_now(piece, part);
      (void)cpu.insert_now(piece, part);
    }
    snap = gpu.snapshot();
    expect_same_tree(cpu.snapshot(), snap, /*colours=*/random);
    EXPECT_EQ(expect_channels_follow_colours(snap, s.attributes, mask), s.points.size());
    if (random) {
      EXPECT_GT(expect_same_voxel_records(cpu.snapshot(), snap, mask), 50'000u);
    }
  }
}

TEST(GpuChannels, BulkRandomTiesGoToTheLargestRecordDigestAsOnTheCpu) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = tied_scene(150'000, 4);
  const AttributeMask mask =
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::PointSourceId);
  const PointAttributes part = slice_attributes(s.attributes, 0, s.points.size(), mask);
  const Octree gpu =
      Octree::build(s.points, part, s.bounds, build_config(Backend::Cuda, Sampling::Random, mask));
  const Octree cpu =
      Octree::build(s.points, part, s.bounds, build_config(Backend::Cpu, Sampling::Random, mask));
  const NodeSnapshot snap = gpu.snapshot();
  EXPECT_GT(expect_same_voxel_records(cpu.snapshot(), snap, mask), 10'000u);
  EXPECT_GT(expect_ties_go_to_largest_digest(snap, s.attributes, mask, 4), 10'000u);
}

TEST(GpuChannels, NodeReaderGivesTheChannels) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = channel_scene(200'000);
  const AttributeMask mask = attribute_bit(Attribute::GpsTime) | attribute_bit(Attribute::Nir) |
                             attribute_bit(Attribute::Classification);
  const Octree gpu = build(s, Backend::Cuda, mask, 50'000);
  expect_reader_matches_snapshot(gpu, gpu.snapshot(), mask, 700);
}

TEST(GpuChannels, ColourModesDrawAsTheCpuDrawsTheSnapshot) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = channel_scene(1'000'000);
  const AttributeMask mask = kAllAttributes;
  const Octree gpu = build(s, Backend::Cuda, mask, 250'000);
  const NodeSnapshot snap = gpu.snapshot();
  for (const ColorMode mode : {ColorMode::Intensity, ColorMode::Classification, ColorMode::Returns,
                               ColorMode::PointSourceId}) {
    for (const float threshold : {0.0f, 128.0f}) {
      View view = View::overview(s.box, 640, 360, 30.0, 50.0);
      view.color = mode;
      view.lod_threshold = threshold;
      view.intensity_range = {2000.0f, 60000.0f};
      view.intensity_gamma = 0.7f;
      Framebuffer a(640, 360, Backend::Cuda), b(640, 360, Backend::Cpu);
      rasterize(gpu, view, a);
      rasterize(snap, view, b);
      EXPECT_EQ(a.download(), b.download())
          << "mode " << static_cast<int>(mode) << ", threshold " << threshold;
    }
  }
  View view = View::overview(s.box, 64, 64);
  view.color = ColorMode::Classification;
  const Octree plain = build(s, Backend::Cuda, 0, 500'000);
  Framebuffer fb(64, 64, Backend::Cuda);
  EXPECT_THROW(rasterize(plain, view, fb), InvalidInput);
}

TEST(GpuChannels, SanitizerSmallScene) {
  SIMLOD_REQUIRE_GPU();
  const ChannelScene s = channel_scene(60'000);
  const AttributeMask mask = attribute_bit(Attribute::GpsTime) | attribute_bit(Attribute::Nir);
  const Octree gpu = build(s, Backend::Cuda, mask, 20'000);
  EXPECT_EQ(expect_channels_follow_colours(gpu.snapshot(), s.attributes, mask), s.points.size());
  // Average's channels: class counts that grow while batches go in.
  const AttributeMask average = mask | attribute_bit(Attribute::Classification);
  const Octree avg = build(s, Backend::Cuda, average, 20'000, Sampling::Average);
  const Octree avg_cpu = build(s, Backend::Cpu, average, 20'000, Sampling::Average);
  EXPECT_GT(expect_same_voxel_records(avg_cpu.snapshot(), avg.snapshot(), average), 1000u);
  // Weighted's colours come into the voxels beside their records.
  Octree weighted = build(s, Backend::Cuda, average, 20'000, Sampling::Weighted);
  weighted.finalize();
  Octree weighted_cpu = build(s, Backend::Cpu, average, 20'000, Sampling::Weighted);
  weighted_cpu.finalize();
  EXPECT_GT(expect_same_voxel_records(weighted_cpu.snapshot(), weighted.snapshot(), average),
            1000u);
  // The bulk builder's records: first-come and Random.
  const PointAttributes part = slice_attributes(s.attributes, 0, s.points.size(), mask);
  for (const Sampling sampling : {Sampling::FirstCome, Sampling::Random}) {
    const Octree bulk =
        Octree::build(s.points, part, s.bounds, build_config(Backend::Cuda, sampling, mask));
    EXPECT_EQ(expect_channels_follow_colours(bulk.snapshot(), s.attributes, mask), s.points.size());
  }
  View view = View::overview(s.box, 64, 64);
  view.color = ColorMode::Intensity;
  Framebuffer fb(64, 64, Backend::Cuda);
  EXPECT_THROW(rasterize(gpu, view, fb), InvalidInput);  // no intensity channel
  // A DeviceBatch carries points only: refused, nothing inserted.
  Octree tree = Octree::create(s.bounds, {.backend = Backend::Cuda, .channels = mask});
  DeviceBatch batch(1000);
  fill_device_batch(batch, std::span(s.points).first(1000));
  EXPECT_THROW((void)tree.insert_now(batch), InvalidInput);
  EXPECT_EQ(tree.stats().points, 0u);
  try {
    (void)Octree::build(batch, s.bounds, {.backend = Backend::Cuda, .channels = mask});
    ADD_FAILURE() << "build(DeviceBatch) with channels was not refused";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("a DeviceBatch carries points only"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace simlod::test
