// PointEncoding::Quantized16 on the CUDA backend against the CPU backend: batches (the rounding
// at a point's first leaf, spills that keep their stored positions), the bulk builder, a batch
// after a bulk build, channels, Weighted's finalize(), the renderer, and a small scene for
// compute-sanitizer (filter: --gtest_filter=GpuQuantized.Sanitizer*).
#include <gtest/gtest.h>

#include <vector>

#include "gpu/snapshot_compare.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/render.hpp"
#include "simlod/view.hpp"

namespace simlod::test {
namespace {

OctreeConfig quantized(Sampling sampling, std::uint32_t leaf = 5'000, std::uint32_t grid = 64) {
  OctreeConfig c;
  c.point_encoding = PointEncoding::Quantized16;
  c.sampling = sampling;
  c.max_points_per_leaf = leaf;
  c.voxel_grid = grid;
  c.chunk_capacity = 500;
  return c;
}

/// The same batches on both backends; colours compared where they do not depend on the order.
void expect_batches_match(const Scene& s, const OctreeConfig& c, std::size_t batch) {
  Octree cpu = Octree::create(s.bounds, on_backend(c, Backend::Cpu));
  Octree gpu = Octree::create(s.bounds, on_backend(c, Backend::Cuda));
  insert_batches(cpu, s.points, batch);
  insert_batches(gpu, s.points, batch);
  const bool colours = c.sampling != Sampling::FirstCome;
  expect_same_tree(cpu.snapshot(), gpu.snapshot(), colours);
  expect_same_stats(cpu.stats(), gpu.stats());
}

TEST(GpuQuantized, BatchesGiveTheCpuTree) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(400'000, 11);
  for (Sampling sampling : {Sampling::FirstCome, Sampling::Random, Sampling::Average}) {
    SCOPED_TRACE(static_cast<int>(sampling));
    expect_batches_match(s, quantized(sampling), 25'000);
  }
}

TEST(GpuQuantized, ScanOrderDefaultConfigurationGivesTheCpuTree) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(3'000'000, synth::Order::Scan, 12);
  OctreeConfig c;
  c.point_encoding = PointEncoding::Quantized16;
  c.sampling = Sampling::Random;
  expect_batches_match(s, c, 500'000);
  const Octree gpu = build(s.bounds, on_backend(c, Backend::Cuda), s.points, 500'000);
  EXPECT_EQ(gpu.stats().points_per_chunk, 1600u);
}

TEST(GpuQuantized, ChannelsStayBesideTheirPoints) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(200'000, 13);
  OctreeConfig c = quantized(Sampling::Random);
  c.channels = attribute_bit(Attribute::Intensity) | attribute_bit(Attribute::Classification);
  expect_batches_match(s, c, 30'000);
}

TEST(GpuQuantized, BulkBuildAndLaterBatchesGiveTheCpuTree) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(600'000, synth::Order::Scan, 14);
  const std::span<const Point> all(s.points);
  const auto first = all.first(450'000), later = all.subspan(450'000);
  for (Sampling sampling :
       {Sampling::FirstCome, Sampling::Random, Sampling::Average, Sampling::Weighted}) {
    SCOPED_TRACE(static_cast<int>(sampling));
    const OctreeConfig c = quantized(sampling);
    Octree cpu = Octree::build(first, s.bounds, on_backend(c, Backend::Cpu));
    Octree gpu = Octree::build(first, s.bounds, on_backend(c, Backend::Cuda));
    const bool colours = sampling != Sampling::FirstCome;
    expect_same_tree(cpu.snapshot(), gpu.snapshot(), colours);
    expect_same_stats(cpu.stats(), gpu.stats());
    insert_batches(cpu, later, 50'000);
    insert_batches(gpu, later, 50'000);
    cpu.finalize();
    gpu.finalize();  // Weighted: CUDA builds the stored points again, keeping their positions
    expect_same_tree(cpu.snapshot(), gpu.snapshot(), colours);
    expect_same_stats(cpu.stats(), gpu.stats());
  }
}

TEST(GpuQuantized, TheRendererDrawsTheCpuImage) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(1'000'000, synth::Order::Scan, 15);
  const OctreeConfig c = quantized(Sampling::Random, 20'000, 128);
  Octree cpu = Octree::create(s.bounds, on_backend(c, Backend::Cpu));
  Octree gpu = Octree::create(s.bounds, on_backend(c, Backend::Cuda));
  insert_batches(cpu, s.points, 100'000);
  insert_batches(gpu, s.points, 100'000);
  const Bounds box = box_of(s.points);
  Framebuffer fg(640, 400, Backend::Cuda), fc(640, 400, Backend::Cpu);
  for (float threshold : {0.0f, 64.0f}) {
    View v = View::overview(box, 640, 400, 30.0, 45.0);
    v.lod_threshold = threshold;
    const RenderStats a = rasterize(gpu, v, fg);
    const RenderStats b = rasterize(cpu, v, fc);
    EXPECT_EQ(a.points, b.points);
    EXPECT_EQ(a.voxels, b.voxels);
    EXPECT_GT(a.samples(), 0u);
    EXPECT_EQ(fg.download(), fc.download()) << "threshold " << threshold;
    EXPECT_EQ(fg.download_depth(), fc.download_depth());
  }
}

TEST(GpuQuantized, SanitizerSmallScene) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = random_scene(60'000, 16);
  OctreeConfig c = quantized(Sampling::Random, 2'000, 32);
  c.channels = attribute_bit(Attribute::Intensity);
  expect_batches_match(s, c, 10'000);
  const Octree bulk = Octree::build(s.points, made_up_attributes(0, s.points.size()), s.bounds,
                                    on_backend(c, Backend::Cuda));
  EXPECT_EQ(bulk.stats().points, s.points.size());
}

}  // namespace
}  // namespace simlod::test
