// The memory reserve (OctreeConfig::memory_bytes): a backend refuses a batch that does not fit
// with CapacityError and leaves the octree exactly as it was; the facade then inserts the batch
// in halves, and only when a single point does not fit does update() throw, keeping the rest
// of the batch queued.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/dispatch.hpp"
#include "core/octree_check.hpp"
#include "core/octree_impl.hpp"
#include "core/octree_test_util.hpp"
#include "simlod/backend.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

void expect_same_memory(const OctreeStats& a, const OctreeStats& b) {
  EXPECT_EQ(a.chunks_allocated, b.chunks_allocated);
  EXPECT_EQ(a.chunks_pooled, b.chunks_pooled);
  EXPECT_EQ(a.bytes_grids, b.bytes_grids);
  EXPECT_EQ(a.bytes_nodes, b.bytes_nodes);
  EXPECT_EQ(a.bytes_free, b.bytes_free);
  EXPECT_EQ(a.points, b.points);
  EXPECT_EQ(a.voxels, b.voxels);
}

/// A = the first points of a Morton-ordered scene (one region), B = the rest, S = a part of B.
/// With a reserve of exactly what A then S need, the backend refuses B, and S still fits
/// afterwards with no byte to spare: the refused batch left no trace (no memory, no grid bit).
void refuse_and_continue(const OctreeConfig& base) {
  const Scene& scene = synth_scene(60'000, synth::Order::Morton);
  const std::span<const Point> all(scene.points);
  const auto a = all.first(20'000), b = all.subspan(20'000), s = b.first(8'000);
  OctreeConfig c = base;
  c.cpu_threads = 1;  // deterministic first-come colours, so trees compare exactly
  Octree reference = Octree::create(scene.bounds, c);
  insert_all(reference, a, a.size());
  insert_all(reference, s, s.size());
  c.memory_bytes = reference.stats().bytes_reserved;  // without a limit: the bytes held

  // The backend's store itself, without the facade that would split the batch into pieces.
  c.backend = resolve_backend(c.backend);
  const detail::OctreeGeometry geometry = detail::make_geometry(scene.bounds, c);
  detail::TreeStores tree = detail::create_stores(c, geometry);
  auto insert = [&](std::span<const Point> points) {
    UpdateStats u;
    detail::insert_batch(tree, detail::BatchSource::of(points), 0, points.size(), u);
  };
  auto snapshot = [&] {
    NodeSnapshot snap = detail::snapshot(tree);
    snap.cube = geometry.cube;
    return snap;
  };
  insert(a);
  const NodeSnapshot before = snapshot();
  const OctreeStats stats_before = detail::stats(tree);
  try {
    insert(b);
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("batch of 40000 points"), std::string::npos) << what;
    EXPECT_NE(what.find("not inserted"), std::string::npos) << what;
  }
  expect_identical(before, snapshot());
  expect_same_memory(stats_before, detail::stats(tree));

  insert(s);
  const OctreeStats stats = detail::stats(tree);
  EXPECT_EQ(stats.bytes_reserved, c.memory_bytes);
  if (c.point_encoding == PointEncoding::Float32) {  // quantised points are not the input
    std::vector<Point> inserted(a.begin(), a.end());
    inserted.insert(inserted.end(), s.begin(), s.end());
    expect_octree_invariants(snapshot(), inserted, c, &stats);
  }
  expect_same_tree(reference.snapshot(), snapshot(), true);
}

TEST(OctreeCapacity, RefusedForChunksTheTreeIsUnchanged) {
  refuse_and_continue(small_config(1000, 2, 100));  // tiny grids: chunks are the limit
}

TEST(OctreeCapacity, RefusedForGridsTheTreeIsUnchanged) {
  refuse_and_continue(small_config(1000, 128, 100));  // 256 KiB grids: splits are the limit
}

TEST(OctreeCapacity, RefusedWithQuantizedPointsTheTreeIsUnchanged) {
  // The refused batch's points were rounded in its scratch only: the stored ones keep theirs.
  OctreeConfig c = small_config(1000, 2, 100);
  c.point_encoding = PointEncoding::Quantized16;
  refuse_and_continue(c);
}

/// Points in the octree = the prefixes of the given batches that update() reported.
std::vector<Point> prefix_of(std::span<const Point> batch, std::uint64_t n) {
  return std::vector<Point>(batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(n));
}

// A batch larger than the free reserve goes in as pieces up to the last point that fits; the
// rest stays queued, in order, before the later batches, until discard_queued().
TEST(OctreeCapacity, WhatDoesNotFitStaysQueued) {
  const Scene& scene = synth_scene(60'000, synth::Order::Scan);
  OctreeConfig c = small_config(2000, 8, 100);
  c.memory_bytes = 400'000;
  Octree tree = Octree::create(scene.bounds, c);
  const std::span<const Point> all(scene.points);
  const auto big = all.subspan(1000, 40'000);  // 640 KB of points alone
  tree.insert(all.first(1000));
  tree.insert(big);
  tree.insert(all.subspan(41'000, 1000));
  try {
    tree.update();
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    EXPECT_NE(std::string(e.what()).find("of the batch's 40000 points were inserted"),
              std::string::npos)
        << e.what();
  }
  OctreeStats stats = tree.stats();
  ASSERT_GT(stats.points, 1000u) << "pieces of the large batch fit";
  ASSERT_LT(stats.points, 41'000u);
  const std::uint64_t k = stats.points - 1000;
  EXPECT_EQ(stats.batches_queued, 2u);
  EXPECT_EQ(stats.last_update.batches, 1u);
  EXPECT_EQ(stats.last_update.points, stats.points);
  std::vector<Point> inserted = prefix_of(all, 1000);
  const auto in_big = prefix_of(big, k);
  inserted.insert(inserted.end(), in_big.begin(), in_big.end());
  expect_octree_invariants(tree.snapshot(), inserted, c, &stats);

  EXPECT_THROW(tree.update(), CapacityError) << "the rest is tried again, and still full";
  EXPECT_EQ(tree.stats().points, stats.points);
  EXPECT_EQ(tree.discard_queued(), (40'000 - k) + 1000);
  EXPECT_EQ(tree.stats().batches_queued, 0u);
  EXPECT_NO_THROW(tree.update());
  stats = tree.stats();
  expect_octree_invariants(tree.snapshot(), inserted, c, &stats);
}

// Filling the reserve batch by batch: every batch goes in up to some point, the rest is dropped
// by the caller; what is in the tree is exactly those prefixes.
TEST(OctreeCapacity, FillingUpInsertsPrefixesOfBatches) {
  const Scene& scene = synth_scene(100'000, synth::Order::Scan);
  OctreeConfig c = small_config(1500, 16, 250);
  c.memory_bytes = 1'000'000;
  Octree tree = Octree::create(scene.bounds, c);
  std::vector<Point> inserted;
  std::size_t full = 0;
  const std::span<const Point> all(scene.points);
  for (std::size_t i = 0; i < all.size(); i += 5000) {
    const auto batch = all.subspan(i, 5000);
    const std::uint64_t before = tree.stats().points;
    tree.insert(batch);
    try {
      tree.update();
    } catch (const CapacityError&) {
      ++full;
      tree.discard_queued();
    }
    const auto in = prefix_of(batch, tree.stats().points - before);
    inserted.insert(inserted.end(), in.begin(), in.end());
  }
  EXPECT_GT(full, 0u);
  EXPECT_GT(inserted.size(), 0u);
  const OctreeStats stats = tree.stats();
  EXPECT_LE(stats.bytes_reserved - stats.bytes_free, c.memory_bytes);
  expect_octree_invariants(tree.snapshot(), inserted, c, &stats);
}

}  // namespace
}  // namespace simlod::test
