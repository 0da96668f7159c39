// The streaming pipeline on the CUDA backend (pinned ring, asynchronous uploads) against the
// same stream on the CPU backend (filtered voxel colours too), plus an end-to-end run that
// renders while loading.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>

#include "gpu/snapshot_compare.hpp"
#include "io/synthetic_file.hpp"
#include "io/temp_dir.hpp"
#include "io/test_data.hpp"
#include "simlod/framebuffer.hpp"
#include "simlod/render.hpp"
#include "simlod/view.hpp"
#include "stream/formats_channels.hpp"
#include "stream/stream_test_util.hpp"

namespace simlod::test {
namespace {

using namespace std::chrono_literals;

StreamConfig stream_on(Backend backend, std::uint32_t batch, std::uint32_t first) {
  StreamConfig c;
  c.octree.backend = backend;
  c.octree.max_points_per_leaf = 20000;
  c.octree.cpu_threads = 0;
  c.batch_points = batch;
  c.first_batch_points = first;
  return c;
}

void expect_streams_match(const std::function<Streamer(const StreamConfig&)>& open,
                          std::uint32_t batch, std::uint32_t first,
                          std::chrono::microseconds budget) {
  Streamer cpu = open(stream_on(Backend::Cpu, batch, first));
  EXPECT_TRUE(stream_to_end(cpu).empty());
  Streamer gpu = open(stream_on(Backend::Cuda, batch, first));
  ASSERT_EQ(gpu.octree().backend(), Backend::Cuda);
  EXPECT_TRUE(stream_to_end(gpu, budget).empty());
  EXPECT_EQ(gpu.progress().points_uploaded, gpu.progress().points_total);
  expect_same_octree(cpu.octree(), gpu.octree());
}

TEST(GpuStream, SyntheticSceneMatchesTheCpuStream) {
  SIMLOD_REQUIRE_GPU();
  const synth::SceneConfig scene{.points = 3'000'000, .seed = 3};
  auto open = [&](const StreamConfig& c) { return Streamer::synthetic(scene, c); };
  expect_streams_match(open, 250'000, 16'384, 0us);  // every ready batch per update
  expect_streams_match(open, 250'000, 16'384, 1us);  // one batch per update
}

// Filtered colours while streaming: Average exact after every batch, Weighted computed by the
// Streamer's finalize() when the last batch is in (on CUDA: the tree built again); every voxel
// colour equals the CPU stream's.
TEST(GpuStream, FilteredColoursMatchTheCpuStream) {
  SIMLOD_REQUIRE_GPU();
  const synth::SceneConfig scene{.points = 1'000'000, .seed = 4};
  for (const Sampling mode : {Sampling::Average, Sampling::Weighted}) {
    SCOPED_TRACE(static_cast<int>(mode));
    StreamConfig c = stream_on(Backend::Cpu, 200'000, 16'384);
    c.octree.sampling = mode;
    Streamer cpu = Streamer::synthetic(scene, c);
    EXPECT_TRUE(stream_to_end(cpu).empty());
    c.octree.backend = Backend::Cuda;
    Streamer gpu = Streamer::synthetic(scene, c);
    EXPECT_TRUE(stream_to_end(gpu).empty());
    ASSERT_EQ(gpu.octree().backend(), Backend::Cuda);
    expect_same_tree(cpu.octree().snapshot(), gpu.octree().snapshot(), /*colours=*/true);
  }
}

TEST(GpuStream, LionFilesMatchTheCpuStream) {
  SIMLOD_REQUIRE_GPU();
  SIMLOD_REQUIRE_TEST_DATA(data);
  for (const char* name : {"lion_takanawa.las", "lion_takanawa.laz"}) {
    SCOPED_TRACE(name);
    if (std::string(name).ends_with(".laz") && !laz_supported()) continue;
    auto open = [&](const StreamConfig& c) { return Streamer::open({data / name}, c); };
    expect_streams_match(open, 100'000, 20'000, 0us);
  }
}

// Attribute channels: the batches of such an octree stay on the host beside their attributes
// and go in through insert_now(batch, attributes); the CUDA octree's channels follow the
// formats/ rule as the CPU's do.
TEST(GpuStream, ChannelsMatchTheCpuStream) {
  SIMLOD_REQUIRE_GPU();
  SIMLOD_REQUIRE_TEST_DATA(data);
  auto open = [&](Backend backend) {
    StreamConfig c = stream_on(backend, 30'000, 5'000);
    c.octree.max_points_per_leaf = 2000;
    c.octree.channels = kChannels;
    Streamer s = Streamer::open({data / "formats" / "f6.las"}, c);
    EXPECT_TRUE(stream_to_end(s).empty());
    return s;
  };
  Streamer cpu = open(Backend::Cpu);
  Streamer gpu = open(Backend::Cuda);
  ASSERT_EQ(gpu.octree().backend(), Backend::Cuda);
  const NodeSnapshot snap = gpu.octree().snapshot();
  EXPECT_EQ(snap.channels, kChannels);
  expect_formats_channels(snap);
  expect_same_tree(cpu.octree().snapshot(), snap, /*colours=*/false);
}

// Colouring by an attribute happens in the loaders, before the pieces go to the device: the
// CUDA stream's points carry the CPU stream's attribute colours.
TEST(GpuStream, AttributeColoursMatchTheCpuStream) {
  SIMLOD_REQUIRE_GPU();
  SIMLOD_REQUIRE_TEST_DATA(data);
  for (const ColorBy by : {ColorBy::Classification, ColorBy::Intensity}) {
    SCOPED_TRACE(to_string(by));
    auto open = [&](Backend backend) {
      StreamConfig c = stream_on(backend, 30'000, 5'000);
      c.color_by.by = by;
      return Streamer::open({data / "formats" / "f6.las"}, c);
    };
    Streamer cpu = open(Backend::Cpu);
    EXPECT_TRUE(stream_to_end(cpu).empty());
    Streamer gpu = open(Backend::Cuda);
    ASSERT_EQ(gpu.octree().backend(), Backend::Cuda);
    EXPECT_TRUE(stream_to_end(gpu).empty());
    expect_same_octree(cpu.octree(), gpu.octree());
    // Leaves hold the points as read: the same colours, point for point.
    auto leaf_points = [](const NodeSnapshot& s) {
      std::vector<std::array<std::uint32_t, 4>> out;
      for (const auto& n : s.nodes) {
        for (const Point& p : n.points) {
          out.push_back({std::bit_cast<std::uint32_t>(p.x), std::bit_cast<std::uint32_t>(p.y),
                         std::bit_cast<std::uint32_t>(p.z), p.rgba});
        }
      }
      std::sort(out.begin(), out.end());
      return out;
    };
    const auto a = leaf_points(cpu.octree().snapshot());
    EXPECT_EQ(a.size(), 100'000u);
    EXPECT_EQ(a, leaf_points(gpu.octree().snapshot()));
  }
}

TEST(GpuStream, ATruncatedFileIsNamedAndTheGoodFilesStay) {
  SIMLOD_REQUIRE_GPU();
  TempDir dir;
  for (int i = 1; i <= 3; ++i) {
    write_synthetic_file(dir / fmt::format("tile_{}.las", i), 50'000, i);
  }
  std::filesystem::resize_file(dir / "tile_2.las",
                               std::filesystem::file_size(dir / "tile_2.las") - 999);
  Streamer streamer = Streamer::open({dir.path()}, stream_on(Backend::Cuda, 20'000, 0));
  const auto errors = stream_to_end(streamer, 1us);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("tile_2.las"), std::string::npos) << errors[0];
  EXPECT_EQ(streamer.octree().stats().points, 100'000u);
}

// A point outside a declared cube: the CPU's loaders and the CUDA device check (DeviceBatch)
// name the same file and point, and the same batches stay in the octree.
TEST(GpuStream, APointOutsideADeclaredCubeIsNamedAsOnTheCpu) {
  SIMLOD_REQUIRE_GPU();
  TempDir dir;
  write_synthetic_file(dir / "a.sim", 30'000, 1);
  Bounds cube = read_info(dir / "a.sim").bounds;
  const double edge = 0.8 * (cube.max[0] - cube.min[0]);
  for (int a = 0; a < 3; ++a) cube.max[a] = cube.min[a] + edge;
  std::vector<std::string> errors[2];
  std::uint64_t points[2] = {0, 0}, kept[2] = {0, 0};
  for (const Backend backend : {Backend::Cpu, Backend::Cuda}) {
    const int k = backend == Backend::Cuda ? 1 : 0;
    StreamConfig config = stream_on(backend, 4'000, 0);
    config.cube = cube;
    Streamer streamer = Streamer::open({dir / "a.sim"}, config);
    errors[k] = stream_to_end(streamer, 1us);
    points[k] = streamer.octree().stats().points;
    ASSERT_EQ(streamer.failures().size(), 1u);
    kept[k] = streamer.failures()[0].points_inserted;
  }
  ASSERT_EQ(errors[1].size(), 1u);
  EXPECT_NE(errors[1][0].find("a.sim': point "), std::string::npos) << errors[1][0];
  EXPECT_EQ(errors[1], errors[0]);
  EXPECT_EQ(points[1], points[0]);
  EXPECT_EQ(kept[1], kept[0]);
}

TEST(GpuStream, RendersWhileLoadingAndCancelStops) {
  SIMLOD_REQUIRE_GPU();
  Streamer streamer =
      Streamer::synthetic({.points = 4'000'000, .seed = 5}, stream_on(Backend::Cuda, 200'000, 0));
  Framebuffer fb(320, 240, Backend::Cuda);
  const Bounds box = streamer.octree().cube();
  Bounds local;
  local.min = {0, 0, 0};
  local.max = box.size();
  const View view = View::overview(local, 320, 240);
  std::uint64_t last_drawn = 0;
  int frames = 0;
  while (!streamer.done() && streamer.progress().points_inserted < 2'000'000) {
    if (streamer.update(2ms).batches == 0) streamer.wait(5ms);
    const RenderStats r = rasterize(streamer.octree(), view, fb);
    last_drawn = r.points + r.voxels;
    ++frames;
  }
  EXPECT_GT(frames, 1);
  EXPECT_GT(last_drawn, 0u);
  const StreamProgress before = streamer.progress();
  streamer.cancel();
  const StreamProgress after = streamer.progress();
  EXPECT_LE(after.points_read, before.points_read + 200'000u);  // one loader, one batch
  EXPECT_EQ(streamer.update(0us).batches, 0u);
  EXPECT_EQ(streamer.octree().stats().points, after.points_inserted);
  EXPECT_LT(after.points_inserted, 4'000'000u);
}

}  // namespace
}  // namespace simlod::test
