// The CUDA renderer against the CPU renderer: the same tree drawn by both (the CUDA octree and
// its snapshot), CUDA and CPU octrees built from the same batches, every mode, the wrapped
// device buffer, eye-dome lighting on a hand-made plane, and a small run for compute-sanitizer.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/render_test_util.hpp"
#include "gpu/snapshot_compare.hpp"
#include "simlod/error.hpp"
#include "simlod/render.hpp"

#if defined(SIMLOD_TEST_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace simlod::test {
namespace {

constexpr std::uint32_t kWidth = 1280, kHeight = 720;
constexpr std::uint32_t kEdlBackground = pack_rgba(40, 60, 90, 255);
constexpr std::uint32_t kOutline = pack_rgba(0, 0, 0, 255);

/// Empty pixels (depth +inf) drawn as the eye-dome outline.
std::size_t outline_pixels(const std::vector<std::uint8_t>& image,
                           const std::vector<float>& depth) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < depth.size(); ++i) {
    n += std::isinf(depth[i]) &&
         pack_rgba(image[4 * i], image[4 * i + 1], image[4 * i + 2], image[4 * i + 3]) == kOutline;
  }
  return n;
}

struct GpuScene {
  Octree cuda;
  Bounds box;  ///< the scene in octree coordinates
};

GpuScene gpu_scene(std::uint64_t points, synth::Order order, std::size_t batch) {
  const Scene& s = synth_scene(points, order);
  GpuScene g{build(s.bounds, on_backend(OctreeConfig{}, Backend::Cuda), s.points, batch), {}};
  for (const Point& p : s.points) g.box.expand(p.x, p.y, p.z);
  return g;
}

/// The views every comparison runs: overview and close-up at several thresholds, a budget,
/// both qualities, eye-dome lighting.
std::vector<std::pair<std::string, View>> views(const Bounds& box) {
  const View overview = View::overview(box, kWidth, kHeight, 30.0, 45.0);
  const auto c = box.center();
  const auto sz = box.size();
  const View close = View::look_at({c[0], c[1] - 0.12 * sz[0], box.min[2] + 0.8 * sz[2]},
                                   {c[0], c[1] + 0.05 * sz[0], box.min[2] + 0.2 * sz[2]}, {0, 0, 1},
                                   60.0, kWidth, kHeight, 0.1, 3000.0);
  std::vector<std::pair<std::string, View>> out;
  for (const auto& [name, base] : {std::pair{"overview", overview}, std::pair{"closeup", close}}) {
    for (float t : {0.0f, 32.0f, 128.0f}) {
      View v = base;
      v.lod_threshold = t;
      out.emplace_back(std::string(name) + " T=" + std::to_string(int(t)), v);
    }
    View budget = base;
    budget.point_budget = 200'000;
    out.emplace_back(std::string(name) + " budget", budget);
    View hq = base;
    hq.quality = RenderQuality::High;
    out.emplace_back(std::string(name) + " high quality", hq);
  }
  // Eye-dome lighting over a background other than black, so that the outline of black
  // pixels around the samples (sky, gaps between points and voxels) counts in the comparison:
  // the default radius (1.4), a larger one (2.5: neighbours 3 pixels one way and 2 the other),
  // strengths, both qualities, the close-up without LOD (gaps between points everywhere).
  struct Edl {
    const char* name;
    View base;
    float threshold, strength, radius;
    RenderQuality quality;
  };
  for (const Edl& e :
       {Edl{"overview edl", overview, 128.0f, 1.0f, 1.4f, RenderQuality::Fast},
        Edl{"overview edl r=2.5", overview, 32.0f, 0.5f, 2.5f, RenderQuality::Fast},
        Edl{"closeup edl T=0", close, 0.0f, 1.0f, 1.4f, RenderQuality::Fast},
        Edl{"closeup edl r=2.5 high quality", close, 32.0f, 2.0f, 2.5f, RenderQuality::High}}) {
    View edl = e.base;
    edl.lod_threshold = e.threshold;
    edl.eye_dome_lighting = true;
    edl.edl_strength = e.strength;
    edl.edl_radius = e.radius;
    edl.edl_outline = e.radius != 2.5f;  // both with and without the outline
    edl.quality = e.quality;
    edl.background = kEdlBackground;
    out.emplace_back(e.name, edl);
  }
  // Larger points, both qualities, with eye-dome lighting.
  for (const auto quality : {RenderQuality::Fast, RenderQuality::High}) {
    View big = close;
    big.point_size = 3;
    big.quality = quality;
    big.eye_dome_lighting = quality == RenderQuality::Fast;
    big.background = kEdlBackground;  // the outline's black must not be the background
    out.emplace_back(quality == RenderQuality::Fast ? "closeup point size 3 edl"
                                                    : "closeup point size 3 high quality",
                     big);
  }
  // Colour by elevation, over the scene's z range, both qualities.
  for (const auto quality : {RenderQuality::Fast, RenderQuality::High}) {
    View elevation = overview;
    elevation.color = ColorMode::Elevation;
    elevation.elevation_range = {static_cast<float>(box.min[2]), static_cast<float>(box.max[2])};
    elevation.quality = quality;
    out.emplace_back(quality == RenderQuality::High ? "elevation high quality" : "elevation",
                     elevation);
  }
  // Straight down, orthographic (depth = (z/w + 1) / 2), over the whole box.
  const std::array<float, 16> eye{
      1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -static_cast<float>(box.max[2] + 10.0), 1};
  View top =
      View::from_matrices(eye,
                          ortho(static_cast<float>(box.min[0]), static_cast<float>(box.max[0]),
                                static_cast<float>(box.min[1]), static_cast<float>(box.max[1]),
                                1.0f, static_cast<float>(box.size()[2] + 20.0)),
                          kWidth, kHeight);
  top.lod_threshold = 64.0f;
  out.emplace_back("top-down orthographic", top);
  return out;
}

/// Pixels whose channels differ by more than `tolerance`.
std::size_t differing_beyond(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b,
                             int tolerance) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); i += 4) {
    for (int k = 0; k < 4; ++k) {
      if (std::abs(int(a[i + k]) - int(b[i + k])) > tolerance) {
        ++n;
        break;
      }
    }
  }
  return n;
}

void expect_cuda_matches_snapshot(const GpuScene& g) {
  const NodeSnapshot snap = g.cuda.snapshot();
  Framebuffer gpu(kWidth, kHeight, Backend::Cuda), cpu(kWidth, kHeight, Backend::Cpu);
  const std::size_t pixels = std::size_t{kWidth} * kHeight;
  for (const auto& [name, view] : views(g.box)) {
    SCOPED_TRACE(name);
    const RenderStats a = rasterize(g.cuda, view, gpu);
    const RenderStats b = rasterize(snap, view, cpu);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.leaves, b.leaves);
    EXPECT_EQ(a.points, b.points);
    EXPECT_EQ(a.voxels, b.voxels);
    EXPECT_EQ(a.threshold, b.threshold);
    EXPECT_GT(a.samples(), 0u);
    const auto ia = gpu.download(), ib = cpu.download();
    EXPECT_GT(covered(ia, view.background), pixels / 50);
    // The same samples, the same arithmetic and the same tie rule: identical pixels expected;
    // eye-dome lighting uses log2/exp, whose device and host versions may differ in the last
    // bit (one colour step).
    const int tolerance = view.eye_dome_lighting ? 1 : 0;
    EXPECT_LE(differing_beyond(ia, ib, tolerance), pixels / 1000);
    EXPECT_EQ(differing_beyond(ia, ib, tolerance), 0u);
    const auto depth = gpu.download_depth();
    EXPECT_EQ(depth, cpu.download_depth());
    if (view.eye_dome_lighting) {
      // The outline is decided without rounding: the same pixels on both (none without it).
      const std::size_t outline = outline_pixels(ia, depth);
      if (view.edl_outline) {
        EXPECT_GT(outline, 0u);
      } else {
        EXPECT_EQ(outline, 0u);
      }
      EXPECT_EQ(outline, outline_pixels(ib, depth));
    }
  }
}

TEST(GpuRender, CudaMatchesCpuOnTheSameTree_1M_Morton) {
  SIMLOD_REQUIRE_GPU();
  expect_cuda_matches_snapshot(gpu_scene(1'000'000, synth::Order::Morton, 100'000));
}

TEST(GpuRender, CudaMatchesCpuOnTheSameTree_10M_Scan) {
  SIMLOD_REQUIRE_GPU();
  expect_cuda_matches_snapshot(gpu_scene(10'000'000, synth::Order::Scan, 1'000'000));
}

TEST(GpuRender, CudaAndCpuOctreesGiveTheSameDepthAndPoints) {
  SIMLOD_REQUIRE_GPU();
  const Scene& s = synth_scene(2'000'000, synth::Order::Scan);
  const GpuScene g = gpu_scene(2'000'000, synth::Order::Scan, 250'000);
  const Octree cpu_tree =
      build(s.bounds, on_backend(OctreeConfig{}, Backend::Cpu), s.points, 250'000);
  Framebuffer gpu(kWidth, kHeight, Backend::Cuda), cpu(kWidth, kHeight, Backend::Cpu);
  const std::size_t pixels = std::size_t{kWidth} * kHeight;
  for (const auto& [name, view] : views(g.box)) {
    SCOPED_TRACE(name);
    const RenderStats a = rasterize(g.cuda, view, gpu);
    const RenderStats b = rasterize(cpu_tree, view, cpu);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.samples(), b.samples());
    // Same nodes, points and voxel cells: the same depth everywhere. Colours agree wherever a
    // point wins; a voxel's first-come colour may come from another point of its cell.
    const auto da = gpu.download_depth(), db = cpu.download_depth();
    std::size_t depth_diff = 0;
    for (std::size_t i = 0; i < pixels; ++i) depth_diff += da[i] != db[i];
    EXPECT_LE(depth_diff, pixels / 1000);
    if (view.lod_threshold == 0.0f && view.point_budget == 0 && !view.eye_dome_lighting) {
      EXPECT_LE(differing(gpu.download(), cpu.download()), pixels / 1000);
    }
  }
}

TEST(GpuRender, SanitizerSmallScene) {
  SIMLOD_REQUIRE_GPU();
  const GpuScene g = gpu_scene(200'000, synth::Order::Scan, 50'000);
  const NodeSnapshot snap = g.cuda.snapshot();
  Framebuffer gpu(320, 200, Backend::Cuda), cpu(320, 200, Backend::Cpu);
  for (RenderQuality q : {RenderQuality::Fast, RenderQuality::High}) {
    View v = View::overview(g.box, 320, 200);
    v.lod_threshold = 16.0f;
    v.quality = q;
    v.point_budget = 50'000;
    rasterize(g.cuda, v, gpu);
    rasterize(snap, v, cpu);
    EXPECT_EQ(differing(gpu.download(), cpu.download()), 0u);
    // Eye-dome lighting reads neighbours up to 3 pixels away, past the image's edges.
    v.eye_dome_lighting = true;
    v.edl_radius = 2.5f;
    v.background = kEdlBackground;
    rasterize(g.cuda, v, gpu);
    rasterize(snap, v, cpu);
    EXPECT_EQ(differing_beyond(gpu.download(), cpu.download(), 1), 0u);
  }
}

TEST(GpuRender, EyeDomeLightingMatchesCpuOnAHandMadePlane) {
  SIMLOD_REQUIRE_GPU();
  // A 16 x 16 square of samples at z = 1 in a 24 x 24 top view, one raised at its edge, one
  // lowered, one missing (a hole): shading at known depth steps and outlines in and around it.
  std::vector<Point> pts;
  for (int y = 4; y < 20; ++y) {
    for (int x = 4; x < 20; ++x) {
      if (x == 12 && y == 15) continue;
      const float z = (x == 5 && y == 11) ? 1.2f : (x == 15 && y == 8) ? 0.8f : 1.0f;
      pts.push_back({x + 0.5f, y + 0.5f, z, pack_rgba(200, 160, 120)});
    }
  }
  Bounds cube;
  cube.expand(0, 0, 0);
  cube.expand(32, 32, 32);
  Octree cuda_tree = Octree::create(cube, on_backend(OctreeConfig{}, Backend::Cuda));
  cuda_tree.insert(pts);
  cuda_tree.update();
  Octree cpu_tree = leaf_tree(pts, 32.0);
  Framebuffer gpu(24, 24, Backend::Cuda), cpu(24, 24, Backend::Cpu);
  View view = top_view(0, 24, 0, 24, 24, 24);
  view.lod_threshold = 0.0f;
  view.background = kEdlBackground;
  view.eye_dome_lighting = true;
  view.edl_outline = true;
  for (float radius : {1.4f, 2.0f, 2.5f, 3.7f}) {
    SCOPED_TRACE(testing::Message() << "radius " << radius);
    view.edl_radius = radius;
    rasterize(cuda_tree, view, gpu);
    rasterize(cpu_tree, view, cpu);
    const auto ia = gpu.download(), ib = cpu.download();
    const auto depth = cpu.download_depth();
    ASSERT_EQ(gpu.download_depth(), depth);
    EXPECT_EQ(differing_beyond(ia, ib, 1), 0u);
    EXPECT_GT(outline_pixels(ia, depth), 16u * 4u);
    EXPECT_EQ(outline_pixels(ia, depth), outline_pixels(ib, depth));
    // The same samples are shaded (the pit and the raised sample's neighbours) on both.
    std::size_t shaded = 0;
    for (std::size_t i = 0; i < depth.size(); ++i) {
      if (std::isinf(depth[i])) continue;
      shaded += ia[4 * i] != 200;
      EXPECT_EQ(ia[4 * i] == 200, ib[4 * i] == 200) << "pixel " << i;
    }
    EXPECT_GT(shaded, 1u);
  }
}

TEST(GpuRender, EmptyTreeGivesTheBackground) {
  SIMLOD_REQUIRE_GPU();
  Bounds cube;
  cube.expand(0, 0, 0);
  cube.expand(8, 8, 8);
  Octree empty = Octree::create(cube, on_backend(OctreeConfig{}, Backend::Cuda));
  View view = top_view(0, 8, 0, 8, 16, 16);
  view.quality = RenderQuality::High;
  Framebuffer fb(16, 16, Backend::Cuda);
  const RenderStats stats = rasterize(empty, view, fb);
  EXPECT_EQ(stats.samples(), 0u);
  EXPECT_EQ(stats.nodes, 1u);
  EXPECT_EQ(covered(fb.download(), view.background), 0u);
}

TEST(GpuRender, FramebufferMustMatchTheTreeBackend) {
  SIMLOD_REQUIRE_GPU();
  const Point p{1, 1, 1, pack_rgba(255, 0, 0)};
  Octree cpu_tree = leaf_tree(std::span(&p, 1));
  Framebuffer gpu(8, 8, Backend::Cuda);
  EXPECT_THROW(rasterize(cpu_tree, top_view(0, 8, 0, 8, 8, 8), gpu), InvalidInput);
  EXPECT_THROW(rasterize(cpu_tree.snapshot(), top_view(0, 8, 0, 8, 8, 8), gpu), InvalidInput);
  EXPECT_THROW(gpu.wrap_device_rgba8(&gpu, 31), InvalidInput);  // pitch below a row
}

#if defined(SIMLOD_TEST_HAS_CUDA)
TEST(GpuRender, ResolvesIntoAWrappedDeviceBuffer) {
  SIMLOD_REQUIRE_GPU();
  const GpuScene g = gpu_scene(200'000, synth::Order::Morton, 100'000);
  constexpr std::uint32_t w = 301, h = 157;  // odd sizes: rows not multiples of the block
  const View v = View::overview(g.box, w, h);
  Framebuffer fb(w, h, Backend::Cuda);
  rasterize(g.cuda, v, fb);
  const auto own = fb.download();
  const std::size_t pitch = w * 4 + 60;
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, pitch * h), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0x7F, pitch * h), cudaSuccess);
  fb.wrap_device_rgba8(d, pitch);
  rasterize(g.cuda, v, fb);
  std::vector<std::uint8_t> mine(std::size_t{w} * h * 4);
  ASSERT_EQ(cudaMemcpy2D(mine.data(), w * 4, d, pitch, w * 4, h, cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(mine, own);
  EXPECT_EQ(fb.download(), own);
  std::vector<std::uint8_t> padding(60);
  ASSERT_EQ(
      cudaMemcpy(padding.data(), static_cast<std::uint8_t*>(d) + w * 4, 60, cudaMemcpyDeviceToHost),
      cudaSuccess);
  EXPECT_EQ(padding, std::vector<std::uint8_t>(60, 0x7F));  // nothing written past a row
  fb.wrap_device_rgba8(nullptr, 0);
  EXPECT_EQ(fb.download(), own);
  cudaFree(d);
}
#endif

}  // namespace
}  // namespace simlod::test
