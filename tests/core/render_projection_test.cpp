// Renderer basics on the CPU backend: where a sample lands, which of two samples wins, what
// is clipped, depth, background, and the framebuffer's own checks.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "core/render_test_util.hpp"
#include "simlod/error.hpp"

namespace simlod::test {
namespace {

constexpr std::uint32_t kRed = pack_rgba(255, 0, 0), kBlue = pack_rgba(0, 0, 255);
constexpr std::uint32_t kBlack = pack_rgba(0, 0, 0);

TEST(RenderProjection, PointLandsOnThePixelOfTheFormula) {
  const Point p{2.3f, 5.6f, 1.0f, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  // Perspective camera: the pixel from the documented formula, evaluated here in double.
  const View view =
      View::look_at({4.0, -6.0, 9.0}, {4.0, 4.0, 0.0}, {0.0, 0.0, 1.0}, 50.0, 97, 61, 0.5, 100.0);
  const std::array<float, 16> m = view.view_projection();
  double clip[4];
  for (int r = 0; r < 4; ++r) {
    clip[r] = double(m[r]) * p.x + double(m[4 + r]) * p.y + double(m[8 + r]) * p.z + m[12 + r];
  }
  const auto col = static_cast<std::uint32_t>(std::floor((clip[0] / clip[3] + 1) / 2 * 97));
  const auto row = static_cast<std::uint32_t>(std::floor((1 - clip[1] / clip[3]) / 2 * 61));
  Framebuffer fb(97, 61, Backend::Cpu, 2);
  const RenderStats stats = rasterize(tree, view, fb);
  EXPECT_EQ(stats.points, 1u);
  EXPECT_EQ(stats.nodes, 1u);
  const auto image = fb.download();
  EXPECT_EQ(pixel_at(image, 97, col, row), kRed);
  EXPECT_EQ(covered(image, kBlack), 1u);
  const auto depth = fb.download_depth();
  EXPECT_NEAR(depth[row * 97 + col], clip[3], 1e-4 * clip[3]);  // perspective: depth = w
  EXPECT_TRUE(std::isinf(depth[0]));
}

TEST(RenderProjection, OrthographicPixelsAndDepth) {
  // 8 x 8 pixels over [0, 8]^2: the point at (x, y) lands in column floor(x), row 7 - floor(y).
  const std::vector<Point> pts{{0.5f, 0.5f, 1.0f, kRed}, {7.9f, 7.9f, 2.0f, kBlue}};
  Octree tree = leaf_tree(pts);
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
  const auto image = fb.download();
  EXPECT_EQ(pixel_at(image, 8, 0, 7), kRed);
  EXPECT_EQ(pixel_at(image, 8, 7, 0), kBlue);
  EXPECT_EQ(covered(image, kBlack), 2u);
  // Orthographic depth is (z_ndc + 1) / 2 over near 0.5 .. far 200 at eye distance 100 - z.
  const auto depth = fb.download_depth();
  EXPECT_NEAR(depth[7 * 8 + 0], (99.0 - 0.5) / 199.5, 1e-6);
  EXPECT_LT(depth[0 * 8 + 7], depth[7 * 8 + 0]);  // higher point, nearer to the camera
}

TEST(RenderProjection, NearerPointWinsInEitherOrder) {
  const Point low{3.5f, 3.5f, 1.0f, kRed}, high{3.5f, 3.5f, 2.0f, kBlue};
  for (const auto& pts : {std::vector<Point>{low, high}, std::vector<Point>{high, low}}) {
    Octree tree = leaf_tree(pts);
    Framebuffer fb(8, 8, Backend::Cpu);
    rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
    EXPECT_EQ(pixel_at(fb.download(), 8, 3, 4), kBlue);  // the higher point is nearer
  }
}

TEST(RenderProjection, EqualDepthTieGoesToTheSmallerColourValue) {
  const Point a{3.5f, 3.5f, 1.0f, kRed}, b{3.5f, 3.5f, 1.0f, kBlue};
  for (const auto& pts : {std::vector<Point>{a, b}, std::vector<Point>{b, a}}) {
    Octree tree = leaf_tree(pts);
    Framebuffer fb(8, 8, Backend::Cpu);
    rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
    EXPECT_EQ(pixel_at(fb.download(), 8, 3, 4), std::min(kRed, kBlue));
  }
}

TEST(RenderProjection, SamplesOutsideTheViewAreClipped) {
  const std::vector<Point> pts{{1.0f, 1.0f, 1.0f, kRed},   // off the image (x < 2)
                               {5.5f, 5.5f, 7.9f, kBlue},  // inside
                               {5.0f, 6.0f, 0.2f, kRed}};  // beyond the far plane
  Octree tree = leaf_tree(pts);
  // Top view of [2, 8]^2 from z = 100 with depth range 92 .. 99.5: z in (0.5, 8).
  const View view = View::from_matrices(top_down(100.0f), ortho(2, 8, 2, 8, 92.0f, 99.5f), 6, 6);
  Framebuffer fb(6, 6, Backend::Cpu);
  rasterize(tree, view, fb);
  const auto image = fb.download();
  EXPECT_EQ(covered(image, kBlack), 1u);
  EXPECT_EQ(pixel_at(image, 6, 3, 2), kBlue);
}

TEST(RenderProjection, PointsBehindThePerspectiveCameraAreNotDrawn) {
  const std::vector<Point> pts{{4.0f, 1.0f, 4.0f, kRed}, {4.0f, 7.0f, 4.0f, kBlue}};
  Octree tree = leaf_tree(pts);
  // At y = 4 looking along +y: the red point is behind the camera.
  const View view = View::look_at({4, 4, 4}, {4, 8, 4}, {0, 0, 1}, 90.0, 32, 32, 0.1, 50.0);
  Framebuffer fb(32, 32, Backend::Cpu);
  rasterize(tree, view, fb);
  const auto image = fb.download();
  EXPECT_EQ(covered(image, kBlack), 1u);
  EXPECT_EQ(pixel_at(image, 32, 16, 16), kBlue);
}

TEST(RenderProjection, EmptyTreeGivesTheBackground) {
  Octree tree = leaf_tree({});
  View view = top_view(0, 8, 0, 8, 8, 8);
  view.quality = RenderQuality::High;
  view.eye_dome_lighting = true;
  Framebuffer fb(8, 8, Backend::Cpu);
  const RenderStats stats = rasterize(tree, view, fb);
  EXPECT_EQ(stats.samples(), 0u);
  EXPECT_EQ(stats.nodes, 1u);  // the empty root leaf
  EXPECT_EQ(covered(fb.download(), view.background), 0u);
}

TEST(RenderProjection, BackgroundAndResolveAgain) {
  const Point p{3.5f, 3.5f, 1.0f, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  View view = top_view(0, 8, 0, 8, 8, 8);
  view.background = pack_rgba(10, 20, 30, 255);
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, view, fb);
  EXPECT_EQ(covered(fb.download(), view.background), 1u);
  fb.resolve(pack_rgba(1, 2, 3, 4));
  const auto image = fb.download();
  EXPECT_EQ(pixel_at(image, 8, 0, 0), pack_rgba(1, 2, 3, 4));
  EXPECT_EQ(pixel_at(image, 8, 3, 4), kRed);
}

TEST(RenderProjection, SavePngWritesTheImage) {
  const Point p{3.5f, 3.5f, 1.0f, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, top_view(0, 8, 0, 8, 8, 8), fb);
  const auto path = std::filesystem::temp_directory_path() / "simlod_render_save.png";
  fb.save_png(path);
  EXPECT_GT(std::filesystem::file_size(path), 8u);
  std::filesystem::remove(path);
}

TEST(RenderProjection, HighQualityAveragesSamplesNearTheNearestDepth) {
  // Camera at z = 100 (perspective, looking down): depth = 100 - z. Two samples at depth 90
  // and 90.5 (within 1%) blend; one at depth 95 does not.
  const std::vector<Point> pts{{4.0f, 4.0f, 10.0f, pack_rgba(200, 0, 0)},
                               {4.0f, 4.0f, 9.5f, pack_rgba(0, 100, 0)},
                               {4.0f, 4.0f, 5.0f, pack_rgba(0, 0, 255)}};
  Octree tree = leaf_tree(pts, 16.0);
  View view = View::look_at({4, 4, 100}, {4, 4, 0}, {0, 1, 0}, 10.0, 9, 9, 1.0, 200.0);
  view.quality = RenderQuality::High;
  Framebuffer fb(9, 9, Backend::Cpu);
  rasterize(tree, view, fb);
  EXPECT_EQ(pixel_at(fb.download(), 9, 4, 4), pack_rgba(100, 50, 0));
  view.quality = RenderQuality::Fast;
  rasterize(tree, view, fb);
  EXPECT_EQ(pixel_at(fb.download(), 9, 4, 4), pack_rgba(200, 0, 0));
}

TEST(RenderProjection, EyeDomeLightingDarkensPixelsBehindTheirNeighbours) {
  // A flat square at z = 1 with a raised column at its centre: the pixels next to the column
  // lie behind it and get darker; pixels of the flat part far from it keep their colour.
  std::vector<Point> pts;
  for (int y = 0; y < 8; ++y) {
    for (int x = 0; x < 8; ++x) {
      const float z = (x == 4 && y == 4) ? 5.0f : 1.0f;
      pts.push_back({x + 0.5f, y + 0.5f, z, pack_rgba(200, 200, 200)});
    }
  }
  Octree tree = leaf_tree(pts);
  View view = View::look_at({4, 4, 60}, {4, 4, 0}, {0, 1, 0}, 8.0, 8, 8, 1.0, 200.0);
  view.eye_dome_lighting = true;
  Framebuffer fb(8, 8, Backend::Cpu);
  rasterize(tree, view, fb);
  const auto image = fb.download();
  // Find the raised sample's pixel from the depth buffer.
  const auto depth = fb.download_depth();
  std::size_t top = 0;
  for (std::size_t i = 0; i < depth.size(); ++i) top = depth[i] < depth[top] ? i : top;
  const std::uint32_t col = top % 8, row = static_cast<std::uint32_t>(top / 8);
  ASSERT_GT(col, 0u);
  EXPECT_LT(red_of(pixel_at(image, 8, col - 1, row)), 200u);          // behind the column
  EXPECT_EQ(pixel_at(image, 8, col, row), pack_rgba(200, 200, 200));  // nearest: no darkening
  EXPECT_EQ(pixel_at(image, 8, 0, 0), pack_rgba(200, 200, 200));      // flat and far from it
}

TEST(RenderErrors, ViewAndFramebufferMustMatch) {
  const Point p{1, 1, 1, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  Framebuffer fb(8, 8, Backend::Cpu);
  EXPECT_THROW(rasterize(tree, top_view(0, 8, 0, 8, 9, 8), fb), InvalidInput);
  View bad = top_view(0, 8, 0, 8, 8, 8);
  bad.lod_threshold = -1.0f;
  EXPECT_THROW(rasterize(tree, bad, fb), InvalidInput);
  bad = top_view(0, 8, 0, 8, 8, 8);
  bad.view_matrix[3] = std::nanf("");
  EXPECT_THROW(rasterize(tree, bad, fb), InvalidInput);
  bad = top_view(0, 8, 0, 8, 8, 8);
  bad.edl_radius = 0;
  EXPECT_THROW(rasterize(tree, bad, fb), InvalidInput);
  EXPECT_THROW(fb.resolve(kBlack, true, -1.0f), InvalidInput);
  EXPECT_THROW(fb.wrap_device_rgba8(nullptr, 0), InvalidInput);  // CPU framebuffer
}

TEST(RenderErrors, BadCamerasAndSizes) {
  EXPECT_THROW(Framebuffer(0, 8, Backend::Cpu), InvalidInput);
  EXPECT_THROW(Framebuffer(1u << 15, 1u << 15, Backend::Cpu), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 0, 0}, {0, 0, 1}, 60, 8, 8, 1, 10), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 0, 1}, {0, 0, 1}, 60, 8, 8, 1, 10), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 180, 8, 8, 1, 10), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 60, 8, 8, 0, 10), InvalidInput);
  EXPECT_THROW(View::look_at({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 60, 8, 0, 1, 10), InvalidInput);
  EXPECT_THROW(View::overview(Bounds{}, 8, 8), InvalidInput);
  EXPECT_THROW(View::look_at({0, std::nan(""), 0}, {0, 1, 0}, {0, 0, 1}, 60, 8, 8, 1, 10),
               InvalidInput);
  View strong = View::look_at({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 60, 8, 8, 1, 10);
  strong.edl_strength = std::numeric_limits<float>::infinity();
  EXPECT_THROW(strong.validate(), InvalidInput);
}

TEST(RenderErrors, OverflowingViewProjectionIsRejected) {
  const Point p{1, 1, 1, kRed};
  Octree tree = leaf_tree(std::span(&p, 1));
  std::array<float, 16> huge = top_down(100.0f);
  huge[0] = 3e38f;  // finite, but projection * view overflows the float range
  std::array<float, 16> proj = ortho(0, 8, 0, 8, 0.5f, 200.0f);
  proj[0] = 100.0f;
  const View view = View::from_matrices(huge, proj, 8, 8);
  Framebuffer fb(8, 8, Backend::Cpu);
  EXPECT_THROW(rasterize(tree, view, fb), InvalidInput);
}

TEST(RenderErrors, MovedFromFramebufferThrows) {
  Framebuffer fb(8, 8, Backend::Cpu);
  Framebuffer other = std::move(fb);
  EXPECT_EQ(other.width(), 8u);
  EXPECT_THROW((void)fb.width(), InvalidInput);  // NOLINT(bugprone-use-after-move)
}

TEST(RenderErrors, BadSnapshotsAreRejected) {
  Framebuffer fb(8, 8, Backend::Cpu);
  NodeSnapshot empty;
  EXPECT_THROW(rasterize(empty, top_view(0, 8, 0, 8, 8, 8), fb), InvalidInput);
  const Point p{1, 1, 1, kRed};
  NodeSnapshot snap = leaf_tree(std::span(&p, 1)).snapshot();
  NodeSnapshot flat = snap;
  flat.nodes[0].bounds.max = flat.nodes[0].bounds.min;  // root edge 0
  EXPECT_THROW(rasterize(flat, top_view(0, 8, 0, 8, 8, 8), fb), InvalidInput);
  snap.nodes[0].position = {1, 0, 0};  // outside level 0's single cell
  try {
    rasterize(snap, top_view(0, 8, 0, 8, 8, 8), fb);
    FAIL() << "expected InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("node 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simlod::test
