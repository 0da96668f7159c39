// The CUDA backend's memory reserve: a batch is granted what it really needs; one that does not
// fit goes in as pieces (each all or nothing), and only a full reserve stops points (queued).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

TEST(GpuCapacity, ReserveTooSmallForTheTablesIsRefusedAtCreate) {
  SIMLOD_REQUIRE_GPU();
  OctreeConfig c;
  c.backend = Backend::Cuda;
  c.memory_bytes = 1u << 20;  // the batch buffers alone need 24 MiB
  Bounds b;
  b.expand(0, 0, 0);
  b.expand(1, 1, 1);
  try {
    (void)Octree::create(b, c);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("memory_bytes"), std::string::npos) << e.what();
  }
}

// A reserve too small for a large batch at once: it goes in as pieces, and the tree is the one
// the CPU builds from the same points; the same from a DeviceBatch, whose pieces are offsets
// into device memory. Which reserve makes pieces depends on the memory bound, so reserves are
// tried from small to large until one takes every point, at least one of them in pieces.
TEST(GpuCapacity, LargeBatchGoesInPiecesWhenTheReserveIsShort) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(1'000'000, synth::Order::Morton);
  const std::span<const Point> all(scene.points);
  OctreeConfig c;
  c.backend = Backend::Cuda;
  const Octree cpu = build(scene.bounds, on_backend(c, Backend::Cpu), all, 10'000);
  std::uint64_t pieces = 0;
  for (std::uint64_t mib = 48; mib <= 160 && pieces == 0; mib += 8) {
    SCOPED_TRACE(mib);
    c.memory_bytes = mib << 20;
    Octree tree = Octree::create(scene.bounds, c);
    insert_all(tree, all.first(50'000), 10'000);
    tree.insert(all.subspan(50'000));
    UpdateStats u;
    try {
      u = tree.update();
    } catch (const CapacityError&) {
      continue;  // too small for all points
    }
    EXPECT_EQ(u.points, 950'000u);
    expect_same_octree(cpu, tree);
    const OctreeStats stats = tree.stats();
    expect_octree_invariants(tree.snapshot(), all, c, &stats);

    Octree from_device = Octree::create(scene.bounds, c);
    insert_all(from_device, all.first(50'000), 10'000);
    DeviceBatch b(950'000, c.device);
    fill_device_batch(b, all.subspan(50'000));
    UpdateStats d;
    ASSERT_NO_THROW(d = from_device.insert_now(b));
    EXPECT_EQ(d.points, 950'000u);
    EXPECT_EQ(d.pieces, u.pieces);
    expect_same_octree(cpu, from_device);
    pieces = u.pieces;
  }
  EXPECT_EQ(pieces, 1u) << "no reserve from 48 to 160 MiB took the batch in pieces";
}

// A reserve too small for all points: update() inserts up to the last point that fits, throws
// CapacityError and keeps the rest queued; the tree is the CPU's tree of the inserted points.
TEST(GpuCapacity, WhatDoesNotFitStaysQueued) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(1'000'000, synth::Order::Scan);
  const std::span<const Point> all(scene.points);
  OctreeConfig c;
  c.backend = Backend::Cuda;
  c.memory_bytes = std::uint64_t{48} << 20;
  Octree tree = Octree::create(scene.bounds, c);
  tree.insert(all);
  EXPECT_THROW(tree.update(), CapacityError);
  const OctreeStats stats = tree.stats();
  ASSERT_GT(stats.points, 0u);
  ASSERT_LT(stats.points, all.size());
  EXPECT_EQ(stats.batches_queued, 1u);
  EXPECT_EQ(tree.discard_queued(), all.size() - stats.points);
  const auto inserted = all.first(stats.points);
  expect_octree_invariants(tree.snapshot(), inserted, c, &stats);

  // From a DeviceBatch: CapacityError names the points that went in, the batch's first ones.
  Octree from_device = Octree::create(scene.bounds, c);
  DeviceBatch b(all.size(), c.device);
  fill_device_batch(b, all);
  try {
    (void)from_device.insert_now(b);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    const OctreeStats s = from_device.stats();
    EXPECT_EQ(e.points_inserted(), s.points);
    EXPECT_EQ(s.points, stats.points);
    expect_octree_invariants(from_device.snapshot(), all.first(s.points), c, &s);
  }
}

// Many leaves just under the limit, then one batch over all of them (what random order does):
// the batch fits in what it really needs, on both backends, with the same tree.
TEST(GpuCapacity, OneBatchOverManyFullLeaves) {
  SIMLOD_REQUIRE_GPU();
  const FullLeaves f = full_leaves();
  OctreeConfig c = small_config(1000, 32, 100);
  c.backend = Backend::Cuda;
  c.memory_bytes = std::uint64_t{160} << 20;
  Octree tree = Octree::create(f.bounds, c);
  Octree cpu = Octree::create(f.bounds, on_backend(c, Backend::Cpu));
  for (const auto* part : {&f.first, &f.second}) {
    tree.insert(*part);
    cpu.insert(*part);
    const UpdateStats u = tree.update();
    EXPECT_EQ(u.pieces, 0u);
    EXPECT_EQ(u.split_rounds, cpu.update().split_rounds);
  }
  expect_same_octree(cpu, tree);
}

TEST(GpuCapacity, MemoryBackedAtCreateNeverGrows) {
  SIMLOD_REQUIRE_GPU();
  const Scene& scene = synth_scene(2'000'000, synth::Order::Scan);
  OctreeConfig c = small_config(5000, 64, 1000);
  c.backend = Backend::Cuda;
  c.memory_bytes = std::uint64_t{1} << 30;
  c.back_memory_at_create = true;
  const Octree tree = build(scene.bounds, c, scene.points, 250'000);
  EXPECT_LE(tree.stats().memory_grow_steps, 2u) << "the fixed tables and the rest, at create()";
  c.back_memory_at_create = false;
  const Octree growing = build(scene.bounds, c, scene.points, 250'000);
  expect_same_octree(build(scene.bounds, on_backend(c, Backend::Cpu), scene.points, 250'000), tree);
  expect_same_stats(growing.stats(), tree.stats());
}

}  // namespace
}  // namespace simlod::test
