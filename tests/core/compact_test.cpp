// Octree::compact() on the CPU backend: every sample stays, in order, with its attributes;
// the chunk counts follow the new capacity exactly; grids, index and pool are gone; the
// pictures do not change; the finished tree refuses points; bad calls leave the tree as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/octree_check.hpp"
#include "core/octree_test_util.hpp"
#include "core/render_test_util.hpp"
#include "simlod/detail/channels.hpp"
#include "simlod/error.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/octree.hpp"
#include "simlod/render.hpp"
#include "simlod/view.hpp"

namespace simlod::test {
namespace {

OctreeConfig config_for(Sampling sampling, PointEncoding encoding, AttributeMask channels = 0) {
  OctreeConfig c = small_config(3'000, 32, 500);
  c.sampling = sampling;
  c.point_encoding = encoding;
  c.channels = channels;
  c.cpu_threads = 1;  // first-come colours are then the same in both trees
  return c;
}

/// The statistics of a compacted tree against its snapshot, counted by hand.
void expect_compact_stats(const Octree& tree, const NodeSnapshot& snap, std::uint32_t capacity) {
  const OctreeStats s = tree.stats();
  EXPECT_TRUE(s.compacted);
  EXPECT_EQ(tree.config().chunk_capacity, capacity);
  EXPECT_EQ(s.bytes_grids, 0u);
  EXPECT_EQ(s.bricks, 0u);
  EXPECT_EQ(s.chunks_bricks, 0u);
  EXPECT_EQ(s.chunks_pooled, 0u);
  EXPECT_EQ(s.bytes_filter, 0u);
  if (tree.config().point_encoding == PointEncoding::Float32) {
    EXPECT_EQ(s.points_per_chunk, capacity);
  }
  std::uint64_t leaf_chunks = 0, voxel_chunks = 0;
  for (const auto& n : snap.nodes) {
    const std::uint64_t samples = n.leaf ? n.points.size() : n.voxels.size();
    const std::uint64_t cap = n.leaf ? s.points_per_chunk : s.voxels_per_chunk;
    (n.leaf ? leaf_chunks : voxel_chunks) += (samples + cap - 1) / cap;
  }
  EXPECT_EQ(s.chunks_used, leaf_chunks + voxel_chunks);
  EXPECT_EQ(s.chunks_allocated, leaf_chunks + voxel_chunks);
  const std::uint64_t record = detail::channel_layout(tree.config().channels).record_bytes;
  const std::uint64_t chunk_bytes = std::uint64_t{capacity} * (16 + record);
  EXPECT_EQ(s.bytes_points, leaf_chunks * chunk_bytes);
  EXPECT_EQ(s.bytes_voxels, voxel_chunks * chunk_bytes);
}

TEST(Compact, KeepsEverySampleInOrderForEverySamplingAndEncoding) {
  const Scene& s = random_scene(60'000, 31);
  for (PointEncoding encoding : {PointEncoding::Float32, PointEncoding::Quantized16}) {
    for (Sampling sampling :
         {Sampling::FirstCome, Sampling::Random, Sampling::Average, Sampling::Weighted}) {
      SCOPED_TRACE(static_cast<int>(sampling) * 10 + static_cast<int>(encoding));
      Octree tree = Octree::create(s.bounds, config_for(sampling, encoding));
      insert_batches(tree, s.points, 7'000);
      tree.finalize();
      const NodeSnapshot before = tree.snapshot();
      const OctreeStats was = tree.stats();
      EXPECT_GT(was.bytes_grids, 0u);
      tree.compact(64);
      const NodeSnapshot after = tree.snapshot();
      expect_same_samples(before, after);
      expect_compact_stats(tree, after, 64);
      const OctreeStats now = tree.stats();
      EXPECT_EQ(now.points, was.points);
      EXPECT_EQ(now.voxels, was.voxels);
      EXPECT_EQ(now.nodes, was.nodes);
      EXPECT_EQ(now.inner_nodes, was.inner_nodes);
      EXPECT_EQ(now.depth, was.depth);
      EXPECT_LT(now.bytes_points + now.bytes_voxels, was.bytes_points + was.bytes_voxels);
    }
  }
}

TEST(Compact, KeepsChannelsBesideTheirSamples) {
  const Scene& s = random_scene(50'000, 32);
  const AttributeMask channels =
      attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification);
  for (PointEncoding encoding : {PointEncoding::Float32, PointEncoding::Quantized16}) {
    for (Sampling sampling : {Sampling::Random, Sampling::Average}) {
      SCOPED_TRACE(static_cast<int>(sampling) * 10 + static_cast<int>(encoding));
      Octree tree = Octree::create(s.bounds, config_for(sampling, encoding, channels));
      insert_batches(tree, s.points, 9'000);
      const NodeSnapshot before = tree.snapshot();
      tree.compact(40);
      const NodeSnapshot after = tree.snapshot();
      expect_same_samples(before, after);
      expect_compact_stats(tree, after, 40);
      // The node reader returns the same records.
      std::vector<Point> out(100);
      PointAttributes a;
      const std::uint64_t n = tree.read_node(0, out, 3, a);
      ASSERT_EQ(n, std::min<std::uint64_t>(100, after.nodes[0].voxels.size() - 3));
      for (std::uint64_t k = 0; k < n; ++k) {
        EXPECT_EQ(a.intensity[k], after.nodes[0].attributes.intensity[3 + k]);
      }
    }
  }
}

TEST(Compact, WeightedColoursAreComputedFirst) {
  const Scene& s = random_scene(40'000, 33);
  const OctreeConfig c = config_for(Sampling::Weighted, PointEncoding::Float32);
  Octree finalized = Octree::create(s.bounds, c);
  Octree compacted = Octree::create(s.bounds, c);
  insert_batches(finalized, s.points, 8'000);
  insert_batches(compacted, s.points, 8'000);
  finalized.finalize();
  compacted.compact();
  expect_same_samples(finalized.snapshot(), compacted.snapshot());
  EXPECT_GT(compacted.stats().finalize.total_ms, 0.0);
}

TEST(Compact, BulkBuiltTreeAndSecondCompaction) {
  const Scene& s = synth_scene(80'000, synth::Order::Scan, 34);
  Octree tree =
      Octree::build(s.points, s.bounds, config_for(Sampling::Random, PointEncoding::Quantized16));
  const NodeSnapshot before = tree.snapshot();
  tree.compact();
  expect_same_samples(before, tree.snapshot());
  expect_compact_stats(tree, tree.snapshot(), kCompactChunkCapacityQuantized);
  tree.compact(8);  // again, into other chunks
  expect_same_samples(before, tree.snapshot());
  expect_compact_stats(tree, tree.snapshot(), 8);
}

// compact() without a capacity picks the encoding's: 256 for Float32 points; 320 for quantised
// ones, whose chunks then hold 512 points (two whole rounds of the CUDA renderer's blocks).
TEST(Compact, TheDefaultCapacityFollowsTheEncoding) {
  const Scene& s = random_scene(30'000, 38);
  for (PointEncoding encoding : {PointEncoding::Float32, PointEncoding::Quantized16}) {
    Octree tree = Octree::create(s.bounds, config_for(Sampling::FirstCome, encoding));
    insert_batches(tree, s.points, 10'000);
    tree.compact();
    const bool quantized = encoding == PointEncoding::Quantized16;
    EXPECT_EQ(tree.config().chunk_capacity, compact_chunk_capacity(encoding));
    EXPECT_EQ(tree.config().chunk_capacity, quantized ? 320u : 256u);
    EXPECT_EQ(tree.stats().points_per_chunk, quantized ? 512u : 256u);
    expect_compact_stats(tree, tree.snapshot(), compact_chunk_capacity(encoding));
  }
}

TEST(Compact, NodeReaderKeepsIdsAndRecords) {
  const Scene& s = random_scene(30'000, 35);
  Octree tree = Octree::create(s.bounds, config_for(Sampling::FirstCome, PointEncoding::Float32));
  insert_batches(tree, s.points, 5'000);
  std::vector<NodeInfo> before, after;
  tree.for_each_node([&](const NodeInfo& n) { before.push_back(n); });
  std::vector<std::vector<Point>> samples;
  for (const NodeInfo& n : before) {
    std::vector<Point> v(n.samples);
    EXPECT_EQ(tree.read_node(n.id, v), n.samples);
    samples.push_back(std::move(v));
  }
  tree.compact(100);
  tree.for_each_node([&](const NodeInfo& n) { after.push_back(n); });
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(before[i].id, after[i].id);
    EXPECT_EQ(before[i].samples, after[i].samples);
    EXPECT_EQ(before[i].leaf, after[i].leaf);
    std::vector<Point> v(after[i].samples);
    EXPECT_EQ(tree.read_node(after[i].id, v), after[i].samples);
    EXPECT_TRUE(same_points(v, samples[i])) << "node " << i;
  }
}

TEST(Compact, DrawsThePictureItDrewBefore) {
  const Scene& s = synth_scene(100'000, synth::Order::Scan, 36);
  for (PointEncoding encoding : {PointEncoding::Float32, PointEncoding::Quantized16}) {
    Octree tree = Octree::create(s.bounds, config_for(Sampling::Random, encoding));
    insert_batches(tree, s.points, 10'000);
    const Bounds box = box_of(s.points);
    std::vector<std::vector<std::uint8_t>> images;
    std::vector<RenderStats> stats;
    for (int pass = 0; pass < 2; ++pass) {
      for (float threshold : {0.0f, 32.0f}) {
        View v = View::overview(box, 200, 150, 30.0, 45.0);
        v.lod_threshold = threshold;
        Framebuffer fb(200, 150, Backend::Cpu, 2);
        stats.push_back(rasterize(tree, v, fb));
        images.push_back(fb.download());
      }
      if (pass == 0) tree.compact();
    }
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(differing(images[k], images[k + 2]), 0u) << "view " << k;
      EXPECT_EQ(stats[k].points, stats[k + 2].points);
      EXPECT_EQ(stats[k].voxels, stats[k + 2].voxels);
      EXPECT_GT(covered(images[k], pack_rgba(0, 0, 0, 255)), 0u);
    }
  }
}

TEST(Compact, TheFinishedTreeRefusesPoints) {
  const Scene& s = random_scene(20'000, 37);
  Octree tree = Octree::create(s.bounds, config_for(Sampling::FirstCome, PointEncoding::Float32));
  insert_batches(tree, s.points, 5'000);
  tree.compact();
  const NodeSnapshot before = tree.snapshot();
  const std::span<const Point> some = std::span(s.points).first(10);
  auto refused = [](auto&& call) {
    try {
      call();
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("compact()"), std::string::npos) << e.what();
      return true;
    }
    return false;
  };
  EXPECT_TRUE(refused([&] { tree.insert(some); }));
  EXPECT_TRUE(refused([&] { (void)tree.insert_now(some); }));
  EXPECT_TRUE(refused([&] { tree.prefetch(some); }));
  EXPECT_EQ(tree.stats().batches_queued, 0u);
  EXPECT_EQ(tree.update().points, 0u);
  tree.finalize();  // nothing to compute
  expect_same_samples(before, tree.snapshot());
  EXPECT_EQ(tree.stats().points, s.points.size());
}

TEST(Compact, RefusedCallsLeaveTheTreeAsItWas) {
  const Scene& s = random_scene(20'000, 38);
  OctreeConfig c = config_for(Sampling::Random, PointEncoding::Float32);
  Octree tree = Octree::create(s.bounds, c);
  insert_batches(tree, s.points, 5'000);
  const NodeSnapshot before = tree.snapshot();
  const OctreeStats was = tree.stats();
  auto unchanged = [&] {
    expect_same_samples(before, tree.snapshot());
    const OctreeStats now = tree.stats();
    EXPECT_FALSE(now.compacted);
    EXPECT_EQ(now.bytes_grids, was.bytes_grids);
    EXPECT_EQ(now.chunks_used, was.chunks_used);
    EXPECT_EQ(tree.config().chunk_capacity, c.chunk_capacity);
  };
  // A capacity create() refuses.
  EXPECT_THROW(tree.compact(0), InvalidInput);
  EXPECT_THROW(tree.compact(7), InvalidInput);
  unchanged();
  // Queued batches.
  tree.insert(std::span(s.points).first(100));
  try {
    tree.compact();
    ADD_FAILURE() << "compact() with a queued batch";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("queued"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tree.discard_queued(), 100u);
  unchanged();
  // Still a normal tree: it takes batches.
  tree.insert(std::span(s.points).first(100));
  EXPECT_EQ(tree.update().points, 100u);
}

TEST(Compact, MemoryBytesTooSmallForTheNewChunksLeavesTheTree) {
  const Scene& s = random_scene(20'000, 39);
  OctreeConfig c = config_for(Sampling::FirstCome, PointEncoding::Float32);
  c.memory_bytes = 16 << 20;
  Octree tree = Octree::create(s.bounds, c);
  insert_batches(tree, s.points, 5'000);
  const NodeSnapshot before = tree.snapshot();
  // Every node in one chunk of 200,000 points (3.2 MB): far beyond the 16 MiB for its nodes.
  try {
    tree.compact(200'000);
    ADD_FAILURE() << "compact() beyond memory_bytes";
  } catch (const CapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("memory_bytes"), std::string::npos) << e.what();
  }
  expect_same_samples(before, tree.snapshot());
  EXPECT_FALSE(tree.stats().compacted);
  tree.compact();  // the default fits
  expect_same_samples(before, tree.snapshot());
}

}  // namespace
}  // namespace simlod::test
