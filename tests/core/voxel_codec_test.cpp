// Compact voxels (detail/voxel_codec.hpp): the chunk layout and the round trip of cell and colour.
#include "simlod/detail/voxel_codec.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/octree_test_util.hpp"
#include "simlod/octree.hpp"

namespace simlod {
namespace {

using detail::VoxelLayout;

bool fits(std::uint64_t n, std::uint64_t bytes, std::uint32_t record_bytes, std::uint32_t each) {
  return (n * each + 15) / 16 * 16 + n * record_bytes <= bytes;
}

TEST(VoxelCodec, ALayoutIsTheLargestThatFits) {
  for (const std::uint32_t grid_bits : {1u, 7u, 8u, 9u, 10u}) {
    const std::uint32_t each = detail::voxel_bytes(grid_bits);
    for (const std::uint32_t cap : {1u, 2u, 3u, 7u, 50u, 100u, 1000u, 4096u}) {
      for (const std::uint32_t record_bytes : {0u, 4u, 8u, 12u, 20u}) {
        const std::uint64_t bytes = std::uint64_t{cap} * (16 + record_bytes);
        const VoxelLayout l = detail::voxel_layout(bytes, record_bytes, grid_bits);
        SCOPED_TRACE(testing::Message() << "grid_bits " << grid_bits << ", capacity " << cap
                                        << ", record bytes " << record_bytes);
        ASSERT_GE(l.capacity, cap) << "a chunk of voxels holds at least as many as of points";
        ASSERT_TRUE(fits(l.capacity, bytes, record_bytes, each));
        EXPECT_EQ(l.records_offset % 16, 0u);
        EXPECT_EQ(l.high_bytes, each - 4);
        EXPECT_FALSE(fits(l.capacity + 1, bytes, record_bytes, each));
      }
    }
  }
  // The default: 1000 points of 16 bytes, 2,666 voxels of 6 bytes.
  EXPECT_EQ(detail::voxel_layout(16000, 0, 7).capacity, 2666u);
  EXPECT_EQ(detail::voxel_layout(16000, 0, 7).records_offset, 16000u);
  EXPECT_EQ(detail::voxel_layout(20000, 4, 7).capacity, 2000u);
}

TEST(VoxelCodec, CellsAndColoursComeBackAtEveryGridSize) {
  for (const std::uint32_t grid_bits : {1u, 7u, 8u, 9u, 10u}) {
    const VoxelLayout l = detail::voxel_layout(1000 * 16, 0, grid_bits);
    std::vector<std::byte> chunk(1000 * 16, std::byte{0xa5});
    const std::uint32_t cells = 1u << (3 * grid_bits);
    auto cell_of = [&](std::uint32_t slot) {
      return static_cast<std::uint32_t>((std::uint64_t{slot} * 2654435761u + slot) % cells);
    };
    for (std::uint32_t s = 0; s < l.capacity; ++s) {
      const std::uint32_t cell = s == 0 ? cells - 1 : s == 1 ? 0 : cell_of(s);
      detail::put_voxel(chunk.data(), l, s, cell, 0x12000000u | (s * 40503u & 0xffffffu));
    }
    for (std::uint32_t s = 0; s < l.capacity; ++s) {
      const std::uint32_t cell = s == 0 ? cells - 1 : s == 1 ? 0 : cell_of(s);
      ASSERT_EQ(detail::voxel_cell(chunk.data(), l, s), cell) << "grid_bits " << grid_bits;
      const std::uint32_t word = *detail::voxel_word(chunk.data(), s);
      ASSERT_EQ(detail::voxel_rgba(word), 0xff000000u | (s * 40503u & 0xffffffu))
          << "alpha reads 255, RGB as written";
    }
    // A colour set in place keeps the cell.
    detail::set_voxel_colour(detail::voxel_word(chunk.data(), 0), 0x00abcdefu);
    EXPECT_EQ(detail::voxel_cell(chunk.data(), l, 0), cells - 1);
    EXPECT_EQ(detail::voxel_rgba(*detail::voxel_word(chunk.data(), 0)), 0xffabcdefu);
  }
}

TEST(VoxelCodec, AVoxelPointIsItsCellCentre) {
  // Node (level 1, position (1, 0, 1)) of a cube of edge 8, grid 4: cells of 1 unit.
  const std::uint32_t g = 2;
  const std::uint32_t cell = 3 | (1u << g) | (2u << (2 * g));
  const Point p = detail::voxel_point(1, 1, 0, 1, cell, 0xff010203u, g, 8.0f);
  EXPECT_FLOAT_EQ(p.x, 4.0f + 3.5f);
  EXPECT_FLOAT_EQ(p.y, 1.5f);
  EXPECT_FLOAT_EQ(p.z, 4.0f + 2.5f);
  EXPECT_EQ(p.rgba, 0xff010203u);
}

TEST(VoxelCodec, TheTreeHoldsItsVoxelsInSixBytesEach) {
  const test::Scene& s = test::synth_scene(400'000, synth::Order::Scan);
  OctreeConfig c;
  c.backend = Backend::Cpu;
  c.max_points_per_leaf = 5000;
  c.chunk_capacity = 500;
  Octree tree = Octree::create(s.bounds, c);
  tree.insert(s.points);
  (void)tree.update();
  const OctreeStats st = tree.stats();
  ASSERT_GT(st.inner_nodes, 8u);
  EXPECT_EQ(st.points_per_chunk, 500u);
  EXPECT_EQ(st.voxels_per_chunk, 8000u / 6);
  // Voxel chunks of 8,000 bytes, all full but each inner node's last one.
  const std::uint64_t chunks = st.bytes_voxels / 8000;
  EXPECT_EQ(st.bytes_voxels % 8000, 0u);
  EXPECT_GE(chunks * st.voxels_per_chunk, st.voxels);
  EXPECT_LT(chunks * st.voxels_per_chunk, st.voxels + st.inner_nodes * st.voxels_per_chunk);
  EXPECT_LT(st.bytes_voxels, st.voxels * 6 + st.inner_nodes * 8000);
}

}  // namespace
}  // namespace simlod
