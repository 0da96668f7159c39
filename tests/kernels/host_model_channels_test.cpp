// The CUDA backend's attribute channels (records in the chunks, the spill buffer and the voxel
// backlog's sources), run sequentially on the host (host_model.hpp) against the CPU backend.
#include <gtest/gtest.h>

#include <vector>

#include "core/channel_scenes.hpp"
#include "core/octree_impl.hpp"
#include "core/octree_test_util.hpp"
#include "gpu/snapshot_compare.hpp"
#include "kernels/host_model.hpp"
#include "simlod/detail/channels.hpp"

namespace simlod::detail::cuda {
namespace {

TEST(HostModelChannels, RecordsFollowTheirSamplesAsOnTheCpu) {
  constexpr std::size_t kN = 40'000, kBatch = 5'000;
  const test::Scene& scene = test::random_scene(kN, 5);
  const std::vector<Point> points = test::indexed(scene.points);
  const PointAttributes all = test::make_attributes(kN);
  for (const AttributeMask mask :
       {kAllAttributes, attribute_bit(Attribute::Classification) | attribute_bit(Attribute::Nir)}) {
    OctreeConfig config{.backend = Backend::Cpu,
                        .max_points_per_leaf = 800,
                        .voxel_grid = 32,
                        .chunk_capacity = 64,
                        .max_batch_points = static_cast<std::uint32_t>(kBatch),
                        .channels = mask};
    HostModel model(config, make_geometry(scene.bounds, config), std::uint64_t{512} << 20);
    Octree cpu = Octree::create(scene.bounds, config);
    const ChannelLayout layout = channel_layout(mask);
    for (std::size_t at = 0; at < kN; at += kBatch) {
      std::vector<std::byte> records(kBatch * layout.record_bytes);
      pack_records(all, layout, at, kBatch, records.data());
      const PointAttributes part = test::slice_attributes(all, at, kBatch, mask);
      const auto piece = std::span(points).subspan(at, kBatch);
      (void)model.insert_batch(piece, records);
      ASSERT_EQ(model.control().overflow, 0u);
      cpu.insert(piece, part);
      (void)cpu.update();
    }
    const NodeSnapshot snap = model.snapshot();
    EXPECT_EQ(snap.channels, mask);
    test::expect_same_tree(cpu.snapshot(), snap, /*colours=*/false);
    EXPECT_EQ(test::expect_channels_follow_colours(snap, all, mask), kN);
    const OctreeStats m = model.stats(), c = cpu.stats();
    EXPECT_EQ(m.bytes_points, c.bytes_points);
    // Per attribute: the used chunks' slots times its width, for each backend's chunks.
    for (const OctreeStats* s : {&m, &c}) {
      const std::uint64_t chunk_bytes =
          std::uint64_t{s->points_per_chunk} * (16 + detail::channel_layout(mask).record_bytes);
      const std::uint64_t point_chunks = s->bytes_points / chunk_bytes;
      const std::uint64_t slots = point_chunks * s->points_per_chunk +
                                  (s->chunks_used - point_chunks) * s->voxels_per_chunk;
      for (std::size_t a = 0; a < kAttributeCount; ++a) {
        const auto attribute = static_cast<Attribute>(a);
        EXPECT_EQ(s->bytes_channels[a],
                  has_attribute(mask, attribute) ? slots * attribute_width(attribute) : 0u);
      }
    }
  }
}

TEST(HostModelChannels, ARefusedBatchLeavesEveryRecordInPlace) {
  // The device fills up while batches that split leaves go in: refused batches change
  // nothing, smaller ones still fit, and every sample keeps its own record.
  constexpr std::size_t kN = 60'000;
  const test::Scene& scene = test::random_scene(kN, 5);
  const std::vector<Point> points = test::indexed(scene.points);
  const PointAttributes all = test::make_attributes(kN);
  const AttributeMask mask = attribute_bit(Attribute::GpsTime) | attribute_bit(Attribute::UserData);
  OctreeConfig config{.max_points_per_leaf = 2000, .max_batch_points = 30'000, .channels = mask};
  HostModel model(config, make_geometry(scene.bounds, config), std::uint64_t{128} << 20);
  const ChannelLayout layout = channel_layout(mask);
  auto insert = [&](std::size_t at, std::size_t n) {
    std::vector<std::byte> records(n * layout.record_bytes);
    pack_records(all, layout, at, n, records.data());
    return model.insert_batch(std::span(points).subspan(at, n), records);
  };
  for (std::size_t at = 0; at < 20'000; at += 5'000) (void)insert(at, 5'000);
  const NodeSnapshot before = model.snapshot();
  model.set_device_bytes(model.backed() + (std::uint64_t{1} << 18));  // nearly full
  EXPECT_THROW((void)insert(20'000, 30'000), CapacityError);
  model.set_device_bytes(~std::uint64_t{0});
  const NodeSnapshot after = model.snapshot();
  ASSERT_EQ(before.nodes.size(), after.nodes.size());
  for (std::size_t k = 0; k < before.nodes.size(); ++k) {
    EXPECT_EQ(before.nodes[k].attributes.gps_time, after.nodes[k].attributes.gps_time) << k;
  }
  for (std::size_t at = 20'000; at < kN; at += 5'000) (void)insert(at, 5'000);
  EXPECT_EQ(test::expect_channels_follow_colours(model.snapshot(), all, mask), kN);
}

}  // namespace
}  // namespace simlod::detail::cuda
