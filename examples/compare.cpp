// simlod-compare: how well the LOD octree's voxels stand for the full-resolution points, per
// voxel colour filter (OctreeConfig::sampling) and octree builder (--builder: Octree::build or
// the incremental create, insert, update and finalize). Every camera is drawn twice, with every
// original point (the reference) and with level of detail, and the two images are compared
// with PSNR and SSIM, as CudaLOD's quality table does.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/compare_builders.hpp"
#include "common/compare_report.hpp"
#include "common/compare_views.hpp"
#include "common/exposure_scene.hpp"
#include "common/image_metrics.hpp"
#include "common/point_loader.hpp"
#include "common/progress.hpp"
#include "common/sampling_names.hpp"
#include "common/views.hpp"
#include "simlod/simlod.hpp"

namespace {

using simlod::examples::Builder;
using simlod::examples::CompareReport;
using simlod::examples::parse_samplings;
using simlod::examples::sampling_names;
using simlod::examples::sampling_of;

/// Every point of the input in octree coordinates (relative to the root cube's minimum), with
/// the bounds of the input as read.
simlod::examples::LoadedPoints load(const std::string& file, std::uint64_t synthetic,
                                    const std::string& scene, std::uint64_t scene_points,
                                    std::uint64_t seed, bool progress) {
  if (scene.empty()) {
    std::optional<simlod::examples::ProgressBar> bar;  // the total is known after the headers
    const simlod::examples::LoadProgress loading = [&](std::uint64_t done, std::uint64_t total) {
      if (!bar) bar.emplace("loading", total, simlod::examples::progress_mode(false, progress));
      bar->update(done);
    };
    simlod::examples::LoadedPoints in =
        synthetic > 0 ? simlod::examples::load_points({.points = synthetic, .seed = seed}, loading)
                      : simlod::examples::load_points({file}, loading);
    if (bar) bar->finish();
    return in;
  }
  simlod::examples::ExposureScene s =
      simlod::examples::exposure_scene({.points = scene_points, .seed = seed});
  simlod::examples::LoadedPoints in;
  const auto origin = simlod::Octree::root_cube(s.bounds).min;
  simlod::examples::shift_points(s.points, {-origin[0], -origin[1], -origin[2]});
  in.points = std::move(s.points);
  in.bounds = s.bounds;
  in.name = fmt::format("exposure scene, seed {}", seed);
  return in;
}

/// The report's columns: every filter with every builder, a filter's builders side by side.
std::vector<std::pair<std::string, Builder>> columns(const std::vector<std::string>& filters,
                                                     const std::vector<Builder>& builders) {
  std::vector<std::pair<std::string, Builder>> out;
  for (const std::string& f : filters) {
    for (const Builder b : builders) out.emplace_back(f, b);
  }
  return out;
}

/// The reference on the left, the LOD image on the right.
std::vector<std::uint8_t> side_by_side(const std::vector<std::uint8_t>& left,
                                       const std::vector<std::uint8_t>& right, std::uint32_t width,
                                       std::uint32_t height) {
  std::vector<std::uint8_t> out(std::size_t{width} * height * 8);
  const std::size_t row = std::size_t{width} * 4;
  for (std::size_t y = 0; y < height; ++y) {
    std::copy_n(left.begin() + y * row, row, out.begin() + 2 * y * row);
    std::copy_n(right.begin() + y * row, row, out.begin() + (2 * y + 1) * row);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Measures how well the LOD octree's voxels stand for the full-resolution points: renders "
      "close-up and zoomed-out views with every point and with level of detail, per voxel "
      "colour filter, and compares them (PSNR, SSIM)"};
  std::string input, scene, backend_name = "auto", samplings = "first,random,average";
  std::string prefix = "compare", json_path, builder_name = "bulk";
  std::uint64_t synthetic = 0, scene_points = 2'000'000, seed = 1;
  std::uint32_t batch = 1'000'000;
  std::uint32_t views = 3, width = 960, height = 540;
  std::uint32_t leaf_points = simlod::OctreeConfig{}.max_points_per_leaf;
  float lod = 64.0f;
  bool no_images = false, progress = false;
  app.add_option("input", input, "point cloud file (LAS, LAZ, PLY, SIM)");
  app.add_option("--synthetic", synthetic, "the synthetic town of N points instead");
  app.add_option("--scene", scene,
                 "a generated test scene instead: exposure (two scans of one surface, the "
                 "second darker, shuffled together)")
      ->check(CLI::IsMember({"exposure"}));
  app.add_option("--points", scene_points, "points of --scene")->capture_default_str();
  app.add_option("--seed", seed, "seed of --synthetic and --scene")->capture_default_str();
  app.add_option("--sampling", samplings,
                 "voxel colour filters to compare, comma-separated: " + sampling_names())
      ->capture_default_str();
  app.add_option("--builder", builder_name,
                 "octree builder: bulk (Octree::build), incremental (Octree::create, then insert "
                 "and update per --batch, then finalize) or both (every filter with each)")
      ->capture_default_str();
  app.add_option("--batch", batch, "points per batch of the incremental builder")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1u << 30));
  app.add_option("--backend", backend_name, "auto, cpu or cuda")->capture_default_str();
  app.add_option("--views", views, "close-ups and as many zoomed-out views")->capture_default_str();
  app.add_option("--width", width)->capture_default_str()->check(CLI::Range(16u, 16384u));
  app.add_option("--height", height)->capture_default_str()->check(CLI::Range(16u, 16384u));
  app.add_option("--leaf-points", leaf_points,
                 "points per leaf at most; smaller leaves give a small cloud the deeper tree of "
                 "a large one")
      ->capture_default_str();
  app.add_option("--lod", lod, "LOD threshold in pixels")->capture_default_str();
  app.add_option("-o,--output", prefix,
                 "PNG prefix: PREFIX-<kind><i>-<sampling>.png (incremental builder: "
                 "<sampling>-incremental)")
      ->capture_default_str();
  app.add_flag("--no-images", no_images, "write no PNGs");
  app.add_flag("--progress", progress, "draw the progress bar even when stderr is no terminal");
  app.add_option("--json", json_path, "also write the results as JSON to FILE");
  CLI11_PARSE(app, argc, argv);

  try {
    const int sources = !input.empty() + (synthetic > 0) + !scene.empty();
    if (sources != 1) {
      throw simlod::InvalidInput("give one of an input file, --synthetic N or --scene exposure");
    }
    if (views == 0) throw simlod::InvalidInput("--views must be at least 1");
    if (!(lod > 0.0f)) throw simlod::InvalidInput("--lod must be above 0 (the reference is 0)");
    CompareReport report;
    const std::vector<std::string> filters = parse_samplings(samplings);
    const std::vector<Builder> builders = simlod::examples::builders_of(builder_name);
    for (const Builder b : builders) {
      report.builders.emplace_back(simlod::examples::builder_name(b));
      if (b == Builder::Incremental) report.batch = batch;
    }
    const simlod::Backend backend = simlod::parse_backend(backend_name);
    const simlod::examples::LoadedPoints in =
        load(input, synthetic, scene, scene_points, seed, progress);
    report.input = in.name;
    report.points = in.points.size();
    report.width = width;
    report.height = height;
    report.lod = lod;
    report.leaf_points = leaf_points;
    const simlod::Bounds root = simlod::Octree::root_cube(in.bounds);
    const simlod::Bounds box = simlod::examples::relative_box(in.bounds, root.min);
    const simlod::Bounds cube = simlod::examples::relative_box(root, root.min);
    std::vector<simlod::examples::CompareView> cameras =
        simlod::examples::closeup_views(in.points, box, views, width, height);
    for (auto& v : simlod::examples::zoomed_out_views(box, cube, lod, views, width, height)) {
      cameras.push_back(std::move(v));
    }
    for (const auto& c : cameras) report.views.push_back({c.kind, c.index, {}});
    std::vector<std::vector<std::uint8_t>> references(cameras.size());
    for (const auto& [filter, builder] : columns(filters, builders)) {
      const std::string mode = simlod::examples::column_name(filter, builder);
      report.modes.push_back(mode);
      simlod::OctreeConfig config;
      config.backend = backend;
      config.sampling = sampling_of(filter);
      config.max_points_per_leaf = leaf_points;
      const simlod::Octree tree =
          simlod::examples::build_octree(in.points, in.bounds, config, builder, batch);
      report.backend = simlod::to_string(tree.backend());
      simlod::Framebuffer fb(width, height, tree.backend());
      for (std::size_t i = 0; i < cameras.size(); ++i) {
        simlod::View view = cameras[i].view;
        view.quality = simlod::RenderQuality::High;
        view.color = simlod::ColorMode::Rgb;
        view.background = report.background;
        // Leaves hold the same points whatever the filter and the builder.
        if (references[i].empty()) {
          view.lod_threshold = 0.0f;  // every original point, no voxels
          simlod::rasterize(tree, view, fb);
          references[i] = fb.download();
        }
        view.lod_threshold = lod;
        simlod::rasterize(tree, view, fb);
        const std::vector<std::uint8_t> image = fb.download();
        const simlod::examples::RgbaImage ref{references[i], width, height};
        const simlod::examples::RgbaImage got{image, width, height};
        report.views[i].scores.push_back({simlod::examples::psnr_rgb(ref, got),
                                          simlod::examples::ssim_rgb(ref, got, report.ssim)});
        if (!no_images) {
          simlod::write_png(
              fmt::format("{}-{}{}-{}.png", prefix, cameras[i].kind, cameras[i].index, mode),
              2 * width, height, side_by_side(references[i], image, width, height));
        }
      }
    }
    simlod::examples::print_table(report);
    if (!json_path.empty()) simlod::examples::write_json(report, json_path);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "simlod-compare: error: {}\n", e.what());
    return 1;
  }
}
