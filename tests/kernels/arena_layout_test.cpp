// Arena layout of the CUDA backend and the incremental builder's fixed scratch beside it (host
// arithmetic, no device needed).
#include "kernels/tree/arena_layout.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/octree_impl.hpp"
#include "kernels/tree/device_layout.hpp"
#include "kernels/tuning.hpp"
#include "kernels/update/scratch_layout.hpp"
#include "simlod/error.hpp"

namespace simlod::detail::cuda {
namespace {

Bounds unit_cube() {
  Bounds b;
  b.expand(0, 0, 0);
  b.expand(1, 1, 1);
  return b;
}

TEST(ArenaLayout, SizesOfChunksAndGrids) {
  EXPECT_EQ(chunk_bytes_for(1000), 16'016u);
  EXPECT_EQ(chunk_bytes_for(1), 32u);
  EXPECT_EQ(grid_bytes_for(7), 262'144u);  // 128^3 bits
  EXPECT_EQ(grid_bytes_for(4), 512u);
  EXPECT_EQ(grid_bytes_for(2), 32u);  // 64 bits, rounded up to 8 words (a voxel index group)
  EXPECT_EQ(grid_bytes_for(1), 32u);
  // Every grid holds its cells in whole groups of 8 words: the bulk filters number the voxels
  // of all levels' grids, one range of the arena, in such groups.
  for (std::uint32_t g = 1; g <= 10; ++g) {
    SCOPED_TRACE(g);
    EXPECT_EQ(grid_bytes_for(g) % 32, 0u);
    EXPECT_GE(grid_bytes_for(g) * 8, std::uint64_t{1} << (3 * g));
  }
}

TEST(ArenaLayout, VoxelChunksFitBeforeTheTrailerAndMatchTheCpuStore) {
  const AttributeMask masks[] = {0, attribute_bit(Attribute::Intensity),
                                 attribute_bit(Attribute::Intensity) |
                                     attribute_bit(Attribute::Classification) |
                                     attribute_bit(Attribute::GpsTime)};
  for (const std::uint32_t cap : {8u, 9u, 50u, 1000u}) {
    for (const std::uint32_t grid : {2u, 128u, 512u}) {
      for (const AttributeMask mask : masks) {
        OctreeConfig c;
        c.chunk_capacity = cap;
        c.voxel_grid = grid;
        c.channels = mask;
        const OctreeGeometry g = make_geometry(unit_cube(), c);
        const ArenaLayout a = plan_arena(std::uint64_t{1} << 30, c, g);
        SCOPED_TRACE(testing::Message() << "capacity " << cap << ", grid " << grid);
        // The CPU store's chunks: capacity * (16 + record bytes), the same voxels per chunk.
        EXPECT_EQ(a.voxels.capacity, voxel_layout(std::uint64_t{cap} * (16 + a.record_bytes),
                                                  a.record_bytes, g.grid_bits)
                                         .capacity);
        EXPECT_GE(a.voxels.capacity, cap);
        // Words, high parts and records end before the 16-byte trailer (the next id).
        const std::uint64_t end = std::uint64_t{a.voxels.capacity} * (4 + a.voxels.high_bytes);
        EXPECT_LE(end, a.voxels.records_offset);
        EXPECT_LE(a.voxels.records_offset + std::uint64_t{a.voxels.capacity} * a.record_bytes,
                  a.chunk_bytes - 16);
        EXPECT_LE(a.points.records_offset + std::uint64_t{cap} * a.record_bytes,
                  a.chunk_bytes - 16);
      }
    }
  }
}

TEST(ArenaLayout, RegionsAreOrderedAlignedAndDisjoint) {
  const OctreeConfig c;
  const std::uint64_t reserve = std::uint64_t{64} << 30;
  const ArenaLayout a = plan_arena(reserve, c, make_geometry(unit_cube(), c));
  struct Region {
    std::uint64_t at, bytes;
  };
  const std::uint64_t n = a.max_nodes;
  const std::vector<Region> regions{{0, sizeof(Control)},
                                    {a.nodes, n * sizeof(DeviceNode)},
                                    {a.links, n * sizeof(NodeLink)},
                                    {a.pool, std::uint64_t{a.max_chunks} * 4},
                                    {a.dynamic_begin, 0}};
  for (std::size_t i = 1; i < regions.size(); ++i) {
    EXPECT_EQ(regions[i].at % kArenaAlign, 0u) << "region " << i;
    EXPECT_GE(regions[i].at, regions[i - 1].at + regions[i - 1].bytes) << "region " << i;
  }
  EXPECT_EQ(a.dynamic_end % kArenaAlign, 0u);
  EXPECT_LE(a.dynamic_end, a.total_bytes);
  EXPECT_LE(a.total_bytes + a.scratch_bytes, reserve) << "arena and scratch share the reserve";
  EXPECT_GT(a.total_bytes + a.scratch_bytes + kArenaAlign, reserve) << "and use all of it";
  EXPECT_EQ(a.max_batch, c.max_batch_points);
  EXPECT_EQ((a.max_nodes - 1) % 8, 0u) << "the root plus whole splits";
  EXPECT_EQ(a.max_splits, (a.max_nodes - 1) / 8);
  // The node table holds as many splits as dense 128^3 grids would fit.
  EXPECT_GE(std::uint64_t{a.max_splits} * a.dense_grid_bytes, a.dynamic_end - a.dynamic_begin);
  EXPECT_EQ(a.occupancy.table_bytes, 16384u) << "slot tables of 4,096 bricks";
  // Fixed tables with the scratch: batch buffers (24 MiB) plus well under 1% for the rest.
  EXPECT_LT(a.fixed_bytes() + a.scratch_bytes, (std::uint64_t{25} << 20) + reserve / 100);
  EXPECT_EQ(a.scratch_bytes, scratch_budget(a.max_nodes, a.max_splits, a.max_batch));
}

TEST(ArenaLayout, TinyGridsCapTheNodeTable) {
  OctreeConfig c;
  c.voxel_grid = 2;
  const std::uint64_t total = std::uint64_t{1} << 30;
  const ArenaLayout a = plan_arena(total, c, make_geometry(unit_cube(), c));
  EXPECT_LE(std::uint64_t{a.max_nodes} * kNodeTableBytes,
            static_cast<std::uint64_t>(kMaxNodeTableShare * static_cast<double>(total)));
  EXPECT_LT(a.dynamic_begin, a.dynamic_end);
}

TEST(ArenaLayout, TooSmallForTheTablesIsACapacityError) {
  const OctreeConfig c;
  try {
    (void)plan_arena(std::uint64_t{16} << 20, c, make_geometry(unit_cube(), c));
    FAIL() << "expected CapacityError";
  } catch (const CapacityError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("16777216 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("max_batch_points"), std::string::npos) << what;
    EXPECT_NE(what.find("builder scratch"), std::string::npos) << what;
  }
  OctreeConfig small = c;
  small.max_batch_points = 1000;
  EXPECT_NO_THROW((void)plan_arena(std::uint64_t{16} << 20, small, make_geometry(unit_cube(), c)));
}

void expect_regions_fit(const ArenaLayout& a) {
  const ScratchLayout s = plan_scratch(a);
  struct Region {
    std::uint64_t at, bytes;
  };
  const std::uint64_t n = a.max_nodes;
  const std::vector<Region> regions{{s.new_counts, n * 4},
                                    {s.ordinal_base, n * 4},
                                    {s.old_tail, n * 4},
                                    {s.touched, std::uint64_t{s.max_touched} * 4},
                                    {s.splits, std::uint64_t{a.max_splits} * sizeof(SplitEntry)},
                                    {s.batch, std::uint64_t{a.max_batch} * 16},
                                    {s.batch_slots, std::uint64_t{a.max_batch} * 8},
                                    {s.total_bytes, 0}};
  EXPECT_EQ(regions[0].at, 0u);
  for (std::size_t i = 1; i < regions.size(); ++i) {
    EXPECT_EQ(regions[i].at % kArenaAlign, 0u) << "region " << i;
    EXPECT_GE(regions[i].at, regions[i - 1].at + regions[i - 1].bytes) << "region " << i;
  }
  EXPECT_EQ(s.max_touched, a.max_nodes + a.max_splits) << "a split leaf may be listed twice";
  EXPECT_LE(s.total_bytes, a.scratch_bytes) << "the arena's plan set aside enough";
}

TEST(ScratchLayout, RegionsAreOrderedAlignedAndWithinTheBudget) {
  const OctreeConfig c;
  expect_regions_fit(plan_arena(std::uint64_t{64} << 30, c, make_geometry(unit_cube(), c)));
  expect_regions_fit(plan_arena(std::uint64_t{64} << 20, c, make_geometry(unit_cube(), c)));
  OctreeConfig odd = c;  // sizes that are no multiple of the alignment
  odd.max_batch_points = 1001;
  odd.voxel_grid = 2;
  expect_regions_fit(
      plan_arena((std::uint64_t{1} << 30) + 12345, odd, make_geometry(unit_cube(), odd)));
}

}  // namespace
}  // namespace simlod::detail::cuda
