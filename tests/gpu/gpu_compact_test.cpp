// Octree::compact() on the CUDA backend against the CPU backend: the same chunks and
// statistics, every sample kept in order, the same pictures before and after, the memory it
// gives back, refusals, and a small scene for compute-sanitizer
// (filter: --gtest_filter=GpuCompact.Sanitizer*).
#include <gtest/gtest.h>

#include <vector>

#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/render.hpp"
#include "simlod/view.hpp"

namespace simlod::test {
namespace {

OctreeConfig config_for(Sampling sampling, PointEncoding encoding, AttributeMask channels = 0) {
  OctreeConfig c;
  c.point_encoding = encoding;
  c.sampling = sampling;
  c.channels = channels;
  c.max_points_per_leaf = 5'000;
  c.voxel_grid = 64;
  c.chunk_capacity = 500;
  return c;
}

/// Both backends from the same batches, compacted into chunks of `capacity`.
void expect_compacted_alike(const Scene& s, const OctreeConfig& c, std::size_t batch,
                            std::uint32_t capacity) {
  Octree cpu = Octree::create(s.bounds, on_backend(c, Backend::Cpu));
  Octree gpu = Octree::create(s.bounds, on_backend(c, Backend::Cuda));
  insert_batches(cpu, s.points, batch);
  insert_batches(gpu, s.points, batch);
  if (c.sampling != Sampling::Weighted) {  // compact() computes Weighted's colours first
    const NodeSnapshot before = gpu.snapshot();
    gpu.compact(capacity);
    expect_same_samples(before, gpu.snapshot());
  } else {
    gpu.compact(capacity);
  }
  cpu.compact(capacity);
  const bool colours = c.sampling != Sampling::FirstCome;
  expect_same_tree(cpu.snapshot(), gpu.snapshot(), colours);
  const OctreeStats a = cpu.stats(), b = gpu.stats();
  expect_same_stats(a, b);
  EXPECT_TRUE(b.compacted);
  EXPECT_EQ(b.bytes_grids, 0u);
  EXPECT_EQ(b.chunks_pooled, 0u);
  EXPECT_EQ(b.chunks_allocated, b.chunks_used);
  EXPECT_EQ(b.bytes_filter, 0u);
  EXPECT_EQ(gpu.config().chunk_capacity, capacity);
  // The arena holds the nodes and chunks (each with its 16-byte link) and nothing else.
  EXPECT_LE(b.bytes_reserved,
            b.bytes_points + b.bytes_voxels + b.bytes_nodes + 16 * b.chunks_used + 4096);
}

TEST(GpuCompact, GivesTheCpuChunksForEverySamplingAndEncoding) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(300'000, 41);
  for (PointEncoding encoding : {PointEncoding::Float32, PointEncoding::Quantized16}) {
    for (Sampling sampling :
         {Sampling::FirstCome, Sampling::Random, Sampling::Average, Sampling::Weighted}) {
      SCOPED_TRACE(static_cast<int>(sampling) * 10 + static_cast<int>(encoding));
      expect_compacted_alike(s, config_for(sampling, encoding), 30'000,
                             compact_chunk_capacity(encoding));
    }
  }
}

TEST(GpuCompact, ChannelsAndOtherCapacities) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(200'000, 42);
  const AttributeMask channels =
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification);
  for (PointEncoding encoding : {PointEncoding::Float32, PointEncoding::Quantized16}) {
    for (std::uint32_t capacity : {8u, 100u, 2'000u}) {
      SCOPED_TRACE(capacity + static_cast<std::uint32_t>(encoding));
      expect_compacted_alike(s, config_for(Sampling::Random, encoding, channels), 25'000, capacity);
    }
  }
}

TEST(GpuCompact, BulkBuiltTreeDefaultConfiguration) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(3'000'000, synth::Order::Scan, 43);
  OctreeConfig c;
  c.sampling = Sampling::Random;
  Octree cpu = Octree::build(s.points, s.bounds, on_backend(c, Backend::Cpu));
  Octree gpu = Octree::build(s.points, s.bounds, on_backend(c, Backend::Cuda));
  const NodeSnapshot before = gpu.snapshot();
  const OctreeStats was = gpu.stats();
  cpu.compact();
  gpu.compact();
  expect_same_samples(before, gpu.snapshot());
  expect_same_tree(cpu.snapshot(), gpu.snapshot(), true);
  expect_same_stats(cpu.stats(), gpu.stats());
  const OctreeStats now = gpu.stats();
  EXPECT_LT(now.bytes_points + now.bytes_voxels + now.bytes_grids,
            was.bytes_points + was.bytes_voxels + was.bytes_grids);
  EXPECT_LT(now.bytes_reserved, was.bytes_reserved);
}

TEST(GpuCompact, DrawsThePictureItDrewBefore) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(1'000'000, synth::Order::Scan, 44);
  for (PointEncoding encoding : {PointEncoding::Float32, PointEncoding::Quantized16}) {
    const OctreeConfig c = config_for(Sampling::Random, encoding);
    Octree gpu = Octree::create(s.bounds, on_backend(c, Backend::Cuda));
    Octree cpu = Octree::create(s.bounds, on_backend(c, Backend::Cpu));
    insert_batches(gpu, s.points, 100'000);
    insert_batches(cpu, s.points, 100'000);
    const Bounds box = box_of(s.points);
    Framebuffer fg(640, 400, Backend::Cuda), fc(640, 400, Backend::Cpu);
    for (float threshold : {0.0f, 64.0f}) {
      View v = View::overview(box, 640, 400, 30.0, 45.0);
      v.lod_threshold = threshold;
      const RenderStats before = rasterize(gpu, v, fg);
      const std::vector<std::uint8_t> image = fg.download();
      if (!gpu.stats().compacted) {
        gpu.compact();
        cpu.compact();
      }
      const RenderStats after = rasterize(gpu, v, fg);
      EXPECT_EQ(before.points, after.points);
      EXPECT_EQ(before.voxels, after.voxels);
      EXPECT_GT(after.samples(), 0u);
      EXPECT_EQ(fg.download(), image) << "threshold " << threshold;
      (void)rasterize(cpu, v, fc);
      EXPECT_EQ(fc.download(), image) << "threshold " << threshold;
    }
  }
}

TEST(GpuCompact, RefusalsLeaveTheTree) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(100'000, 45);
  OctreeConfig c =
      on_backend(config_for(Sampling::FirstCome, PointEncoding::Float32), Backend::Cuda);
  c.memory_bytes = 64 << 20;
  Octree tree = Octree::create(s.bounds, c);
  insert_batches(tree, s.points, 20'000);
  const NodeSnapshot before = tree.snapshot();
  // Each node in a chunk of 10^6 points (16 MB): beyond the 64 MiB reserve.
  EXPECT_THROW(tree.compact(1'000'000), CapacityError);
  EXPECT_FALSE(tree.stats().compacted);
  expect_same_samples(before, tree.snapshot());
  tree.insert(std::span(s.points).first(10));
  EXPECT_THROW(tree.compact(), InvalidInput);  // a batch is queued
  EXPECT_EQ(tree.discard_queued(), 10u);
  tree.compact();
  expect_same_samples(before, tree.snapshot());
  EXPECT_THROW(tree.insert(std::span(s.points).first(10)), InvalidInput);
  EXPECT_THROW((void)tree.insert_now(std::span(s.points).first(10)), InvalidInput);
  DeviceBatch batch(100, 0);
  fill_device_batch(batch, std::span(s.points).first(10));
  EXPECT_THROW((void)tree.insert_now(batch), InvalidInput);
  EXPECT_THROW(tree.prefetch(std::span(s.points).first(10)), InvalidInput);
  expect_same_samples(before, tree.snapshot());
}

// The node reader copies a range of a compacted node's consecutive chunks at once: it returns
// what the snapshot (its own copy of every chunk) holds, ranges across chunk borders included.
TEST(GpuCompact, NodeReaderReadsWhatTheSnapshotHolds) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(150'000, 47);
  const OctreeConfig c =
      config_for(Sampling::Random, PointEncoding::Quantized16, attribute_bit(Attribute::Intensity));
  Octree gpu = Octree::create(s.bounds, on_backend(c, Backend::Cuda));
  insert_batches(gpu, s.points, 30'000);
  gpu.compact(64);
  const NodeSnapshot snap = gpu.snapshot();
  std::uint64_t compared = 0;
  for (std::uint32_t id = 0; id < snap.nodes.size(); ++id) {
    const auto& n = snap.nodes[id];
    const std::vector<Point>& all = n.leaf ? n.points : n.voxels;
    for (const auto& [first, count] : {std::pair<std::uint64_t, std::uint64_t>{0, all.size()},
                                       {37, 300},
                                       {all.size() / 2, 65}}) {
      if (first >= all.size()) continue;
      std::vector<Point> out(count);
      PointAttributes a;
      const std::uint64_t got = gpu.read_node(id, out, first, a);
      ASSERT_EQ(got, std::min<std::uint64_t>(count, all.size() - first)) << "node " << id;
      for (std::uint64_t k = 0; k < got; ++k) {
        ASSERT_TRUE(same_points({out[k]}, {all[first + k]})) << "node " << id << " sample " << k;
        ASSERT_EQ(a.intensity[k], n.attributes.intensity[first + k]) << "node " << id;
      }
      compared += got;
    }
  }
  EXPECT_GT(compared, s.points.size());
}

TEST(GpuCompact, SanitizerSmallScene) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(60'000, 46);
  OctreeConfig c =
      config_for(Sampling::Random, PointEncoding::Quantized16, attribute_bit(Attribute::Intensity));
  c.max_points_per_leaf = 2'000;
  c.voxel_grid = 32;
  expect_compacted_alike(s, c, 10'000, 64);
}

}  // namespace
}  // namespace simlod::test
