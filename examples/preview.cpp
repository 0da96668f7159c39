// simlod-preview: a quick still picture of a point cloud file or a synthetic scene, rendered
// on the CPU with an oblique orthographic camera and a depth buffer. A sanity check for data
// and for the generator; the real-time LOD renderer is simlod::rasterize.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <vector>

#include "common/camera.hpp"
#include "common/progress.hpp"
#include "simlod/simlod.hpp"

namespace {

struct Camera {
  double yaw, pitch;  // radians
  std::array<double, 3> center;
  double scale;                           // pixels per metre
  std::array<double, 2> shift{0.0, 0.0};  // screen offset of the centre, metres
  std::uint32_t width, height;

  // Screen right, screen up (metres) and distance (smaller is nearer) of a point.
  [[nodiscard]] std::array<double, 3> view(double x, double y, double z) const {
    const double dx = x - center[0], dy = y - center[1], dz = z - center[2];
    const double cy = std::cos(yaw), sy = std::sin(yaw);
    const double rx = cy * dx - sy * dy, ry = sy * dx + cy * dy;  // rotate about z
    const double cp = std::cos(pitch), sp = std::sin(pitch);
    return {rx - shift[0], cp * dz + sp * ry - shift[1], -sp * dz + cp * ry};
  }

  // Scale and shift so that the projected box fills 95% of the image.
  void fit(const simlod::Bounds& box) {
    double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
    for (int c = 0; c < 8; ++c) {
      const auto v = view(c & 1 ? box.max[0] : box.min[0], c & 2 ? box.max[1] : box.min[1],
                          c & 4 ? box.max[2] : box.min[2]);
      for (int a = 0; a < 2; ++a) lo[a] = std::min(lo[a], v[a]), hi[a] = std::max(hi[a], v[a]);
    }
    shift = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])};
    scale = 0.95 *
            std::min(width / std::max(hi[0] - lo[0], 1e-9), height / std::max(hi[1] - lo[1], 1e-9));
  }
};

struct Image {
  std::uint32_t width, height;
  std::vector<float> depth;
  std::vector<std::uint8_t> rgba;
  Image(std::uint32_t w, std::uint32_t h)
      : width(w),
        height(h),
        depth(std::size_t{w} * h, std::numeric_limits<float>::infinity()),
        rgba(std::size_t{w} * h * 4, 0) {}

  /// A square of `size` pixels a side around the point's pixel (for even sizes one more pixel
  /// right and below), as View::point_size draws.
  void splat(const Camera& cam, const simlod::Point& p, int size) {
    const auto [right, up, dist] = cam.view(p.x, p.y, p.z);
    const long px = std::lround(width / 2.0 + right * cam.scale);
    const long py = std::lround(height / 2.0 - up * cam.scale);
    const long back = (size - 1) / 2, ahead = size / 2;
    for (long y = py - back; y <= py + ahead; ++y) {
      for (long x = px - back; x <= px + ahead; ++x) {
        if (x < 0 || y < 0 || x >= long(width) || y >= long(height)) continue;
        const std::size_t i = std::size_t(y) * width + std::size_t(x);
        if (dist >= depth[i]) continue;
        depth[i] = static_cast<float>(dist);
        std::memcpy(&rgba[i * 4], &p.rgba, 4);
        rgba[i * 4 + 3] = 255;
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Renders a still preview of a point cloud (LAS, LAZ, SIM, PLY) or a synthetic scene"};
  std::string input, output = "preview.png";
  std::uint64_t synthetic = 0, seed = 1;
  std::uint32_t width = 1600, height = 1000;
  simlod::examples::CameraOptions camera{.views = {"overview"}};
  int point_size = 1;
  app.add_option("input", input, "point cloud file (omit with --synthetic)");
  app.add_option("-o,--output", output, "PNG to write")->capture_default_str();
  app.add_option("--synthetic", synthetic, "render a synthetic scene of N points instead");
  app.add_option("--seed", seed, "synthetic scene seed")->capture_default_str();
  app.add_option("--width", width)->capture_default_str()->check(CLI::Range(16u, 16384u));
  app.add_option("--height", height)->capture_default_str()->check(CLI::Range(16u, 16384u));
  simlod::examples::add_camera_options(app, camera, /*several=*/false);
  bool progress = false;
  app.add_flag("--progress", progress, "draw the progress bar even when stderr is no terminal");
  app.add_option("--point-size", point_size, "pixels a side of the square each point covers")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  CLI11_PARSE(app, argc, argv);

  try {
    if (input.empty() == (synthetic == 0)) {
      throw simlod::InvalidInput("give either an input file or --synthetic N");
    }
    simlod::examples::check_camera(camera);
    if (camera.distance) {
      throw simlod::InvalidInput(
          "--distance: the preview's camera is orthographic and fits the data");
    }
    std::unique_ptr<simlod::PointReader> reader;
    std::unique_ptr<simlod::synth::Generator> generator;
    simlod::Bounds data;  // of the points as read
    if (synthetic > 0) {
      generator = std::make_unique<simlod::synth::Generator>(
          simlod::synth::SceneConfig{.points = synthetic, .seed = seed});
      data = generator->bounds();
    } else {
      reader = simlod::open_reader(input);
      const auto& info = reader->info();
      for (int a = 0; a < 3; ++a) {
        data.min[a] = info.bounds.min[a] - info.origin[a];
        data.max[a] = info.bounds.max[a] - info.origin[a];
      }
    }
    const simlod::Bounds box = simlod::examples::z_up_box(camera, data);
    const std::string& view = camera.views.front();
    const auto [yaw_deg, pitch_deg] = simlod::examples::camera_angles(camera, view);
    Camera cam{yaw_deg * std::numbers::pi / 180,
               pitch_deg * std::numbers::pi / 180,
               box.center(),
               1.0,
               {0.0, 0.0},
               width,
               height};
    cam.fit(view == "closeup" ? simlod::examples::middle_half(box) : box);
    Image image(width, height);
    std::vector<simlod::Point> batch(1 << 20);
    std::uint64_t total = 0;
    simlod::examples::ProgressBar bar("drawing", generator ? synthetic : reader->info().point_count,
                                      simlod::examples::progress_mode(false, progress));
    for (;;) {
      const std::size_t n = generator ? generator->next(batch) : reader->read(batch);
      if (n == 0) break;
      if (camera.up == "y") {
        for (std::size_t i = 0; i < n; ++i) {
          const auto p = simlod::examples::to_z_up(camera, {batch[i].x, batch[i].y, batch[i].z});
          batch[i].x = static_cast<float>(p[0]);
          batch[i].y = static_cast<float>(p[1]);
          batch[i].z = static_cast<float>(p[2]);
        }
      }
      for (std::size_t i = 0; i < n; ++i) image.splat(cam, batch[i], point_size);
      total += n;
      bar.update(total);
    }
    bar.finish();
    // Opaque background where nothing was drawn.
    for (std::size_t i = 0; i < image.depth.size(); ++i) {
      if (std::isinf(image.depth[i])) {
        image.rgba[i * 4] = 24, image.rgba[i * 4 + 1] = 26, image.rgba[i * 4 + 2] = 32;
        image.rgba[i * 4 + 3] = 255;
      }
    }
    simlod::write_png(output, width, height, image.rgba);
    fmt::print("simlod-preview: {} points -> {} ({}x{})\n", total, output, width, height);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "simlod-preview: error: {}\n", e.what());
    return 1;
  }
}
