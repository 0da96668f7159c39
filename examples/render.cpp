// simlod-render: loads a point cloud (or a synthetic scene) into an octree and renders it with
// the LOD renderer (simlod::rasterize) to PNG files, one per view, printing what was drawn.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/camera.hpp"
#include "common/point_loader.hpp"
#include "common/progress.hpp"
#include "common/sampling_names.hpp"
#include "common/views.hpp"
#include "simlod/simlod.hpp"

namespace {

using simlod::examples::ProgressBar;

struct Source {
  std::unique_ptr<simlod::PointReader> reader;
  std::unique_ptr<simlod::synth::Generator> generator;
  simlod::Bounds bounds;  ///< of the points as read (reader: minus its origin)
  bool has_color = true;  ///< the points carry colour of their own (the synthetic scene does)
  simlod::ColorByOptions coloring;     ///< by an attribute: its range resolved
  simlod::AttributeMask channels = 0;  ///< read beside the points for the octree's channels
  simlod::PointAttributes attributes;

  std::size_t next(std::span<simlod::Point> out) {
    if (generator) return generator->next(out);
    if (coloring.by == simlod::ColorBy::File && channels == 0) return reader->read(out);
    const std::size_t n = reader->read(out, attributes);
    simlod::color_points(out.first(n), attributes, coloring);
    return n;
  }
};

Source open_source(const std::string& input, std::uint64_t synthetic, std::uint64_t seed,
                   const simlod::ColorByOptions& coloring, simlod::AttributeMask channels = 0) {
  Source s;
  s.coloring = coloring;
  s.channels = channels;
  if (synthetic > 0) {
    if (coloring.by != simlod::ColorBy::File || channels != 0) {
      throw simlod::InvalidInput(fmt::format("the synthetic scene has no {} to colour by",
                                             coloring.by != simlod::ColorBy::File
                                                 ? simlod::to_string(coloring.by)
                                                 : simlod::attribute_names(channels)));
    }
    s.generator = std::make_unique<simlod::synth::Generator>(
        simlod::synth::SceneConfig{.points = synthetic, .seed = seed});
    s.bounds = s.generator->bounds();
  } else {
    simlod::ReaderOptions options;
    options.attributes = simlod::attributes_for(coloring.by) | channels;
    s.reader = simlod::open_reader(input, options);
    const auto& info = s.reader->info();
    s.has_color = info.has_color || coloring.by != simlod::ColorBy::File;
    if (coloring.by == simlod::ColorBy::Intensity && !coloring.intensity_range) {
      s.coloring.intensity_range = simlod::sample_intensity_range({input});
    }
    for (int a = 0; a < 3; ++a) {
      s.bounds.min[a] = info.bounds.min[a] - info.origin[a];
      s.bounds.max[a] = info.bounds.max[a] - info.origin[a];
    }
  }
  return s;
}

struct Built {
  simlod::Octree tree;
  simlod::Bounds bounds;  ///< of the points as read, which the cameras frame
  bool has_color = true;
};

/// Batch by batch, as a viewer that draws while loading would (simlod-demo streams).
Built build_incremental(const std::string& input, std::uint64_t synthetic, std::uint64_t seed,
                        const simlod::OctreeConfig& config, const simlod::ColorByOptions& coloring,
                        ProgressBar::Mode progress) {
  Source source = open_source(input, synthetic, seed, coloring, config.channels);
  const auto origin = simlod::Octree::root_cube(source.bounds).min;
  std::vector<simlod::Point> batch(config.max_batch_points);
  simlod::Octree tree = simlod::Octree::create(source.bounds, config);
  ProgressBar bar("building", source.reader ? source.reader->info().point_count : synthetic,
                  progress);
  std::uint64_t done = 0;
  for (;;) {
    const std::size_t n = source.next(batch);
    if (n == 0) break;  // readers and the generator return their whole count, then 0
    simlod::examples::shift_points(std::span(batch).first(n), {-origin[0], -origin[1], -origin[2]});
    if (config.channels != 0) {
      tree.insert(std::span(batch).first(n), source.attributes);
    } else {
      tree.insert(std::span(batch).first(n));
    }
    tree.update();
    bar.update(done += n);
  }
  bar.finish();
  return {std::move(tree), source.bounds, source.has_color};
}

/// --bulk: every point, then one build.
Built build_bulk(const std::string& input, std::uint64_t synthetic, std::uint64_t seed,
                 const simlod::OctreeConfig& config, const simlod::ColorByOptions& coloring,
                 ProgressBar::Mode progress) {
  if (synthetic > 0 && (coloring.by != simlod::ColorBy::File || config.channels != 0)) {
    throw simlod::InvalidInput(fmt::format("the synthetic scene has no {} to colour by",
                                           coloring.by != simlod::ColorBy::File
                                               ? simlod::to_string(coloring.by)
                                               : simlod::attribute_names(config.channels)));
  }
  std::optional<ProgressBar> bar;  // the total is known once the headers are read
  const simlod::examples::LoadProgress loading = [&](std::uint64_t done, std::uint64_t total) {
    if (!bar) bar.emplace("loading", total, progress);
    bar->update(done);
  };
  simlod::examples::LoadedPoints in =
      synthetic > 0 ? simlod::examples::load_points({.points = synthetic, .seed = seed}, loading)
                    : simlod::examples::load_points({input}, loading, coloring, config.channels);
  if (bar) bar->finish();
  simlod::Octree tree = config.channels != 0
                            ? simlod::Octree::build(in.points, in.attributes, in.bounds, config)
                            : simlod::Octree::build(in.points, in.bounds, config);
  const simlod::BuildStats b = tree.stats().build;
  fmt::print(
      "simlod-render: bulk build of {} points: split {:.2f} ms, voxelize {:.2f} ms, "
      "{:.2f} ms in all\n",
      b.points, b.split_ms, b.voxelize_ms, b.total_ms);
  return {std::move(tree), in.bounds, in.has_color};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Renders a point cloud (LAS, LAZ, SIM, PLY) or a synthetic scene with simlod's "
      "LOD renderer"};
  std::string input, prefix = "render", backend_name = "auto";
  std::uint64_t synthetic = 0, seed = 1, budget = 0;
  std::uint32_t width = 1920, height = 1080;
  float lod = 128.0f;
  bool hq = false, edl = false, bulk = false, progress = false;
  std::uint32_t point_size = 1;
  simlod::examples::CameraOptions camera{.views = {"overview", "closeup"}};
  app.add_option("input", input, "point cloud file (omit with --synthetic)");
  app.add_option("--synthetic", synthetic, "render a synthetic scene of N points instead");
  app.add_option("--seed", seed, "synthetic scene seed")->capture_default_str();
  app.add_option("-o,--output", prefix, "PNG prefix: PREFIX-VIEW.png")->capture_default_str();
  app.add_option("--backend", backend_name, "auto, cpu or cuda")->capture_default_str();
  app.add_option("--width", width)->capture_default_str()->check(CLI::Range(16u, 16384u));
  app.add_option("--height", height)->capture_default_str()->check(CLI::Range(16u, 16384u));
  simlod::examples::add_camera_options(app, camera, /*several=*/true);
  app.add_option("--lod", lod, "LOD threshold in pixels (0: every point)")->capture_default_str();
  app.add_option("--budget", budget, "samples per frame at most (0: no limit)");
  app.add_flag("--hq", hq, "high quality: blend samples near the nearest depth");
  app.add_flag("--edl", edl, "eye-dome lighting");
  app.add_option("--point-size", point_size, "pixels a side of the square each sample covers")
      ->capture_default_str()
      ->check(CLI::Range(1u, simlod::View::kMaxPointSize));
  app.add_flag("--progress", progress, "draw the progress bar even when stderr is no terminal");
  app.add_flag("--bulk", bulk,
               "read every point first, then build the octree in one go (Octree::build) "
               "instead of batch by batch");
  std::string sampling = "first";
  app.add_option("--sampling", sampling,
                 "voxel colours: " + simlod::examples::sampling_names() +
                     " (first-come, a random point of the cell, the mean of its points, or its "
                     "samples weighted by distance); all but first imply --bulk")
      ->capture_default_str();
  std::vector<std::string> colors{"auto"};
  app.add_option("--color", colors,
                 "auto (elevation for data without colour), rgb, elevation, or an attribute the "
                 "points are coloured by as they load: intensity, classification, returns, "
                 "source; a comma list draws one picture per colour (PREFIX-VIEW-COLOR.png)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember(std::vector<std::string>(simlod::examples::kColorNames.begin(),
                                                     simlod::examples::kColorNames.end())));
  bool channels = false;
  app.add_flag("--channels", channels,
               "keep the attributes the --color list needs in the octree (OctreeConfig::"
               "channels) and colour each picture from them, instead of colouring the points "
               "as they load: one load for several attribute colours");
  bool quantized = false;
  app.add_flag("--quantized", quantized,
               "leaves keep their points as 16 bits per axis within the leaf, 10 bytes instead "
               "of 16 (PointEncoding::Quantized16)");
  CLI11_PARSE(app, argc, argv);

  try {
    if (input.empty() == (synthetic == 0)) {
      throw simlod::InvalidInput("give either an input file or --synthetic N");
    }
    simlod::examples::check_camera(camera);  // before anything is loaded
    simlod::OctreeConfig config;
    config.backend = simlod::parse_backend(backend_name);
    config.sampling = simlod::examples::sampling_of(sampling);
    if (quantized) config.point_encoding = simlod::PointEncoding::Quantized16;
    if (config.sampling != simlod::Sampling::FirstCome) {
      bulk = true;  // one build is faster than batches for points that fit in memory
    }
    // Attribute colours: computed as the points load (one at most), or kept as channels.
    std::vector<simlod::ColorBy> by;
    for (const std::string& c : colors) {
      const simlod::ColorBy b = simlod::examples::load_coloring(c);
      if (b != simlod::ColorBy::File) by.push_back(b);
    }
    simlod::ColorByOptions coloring;
    if (channels) {
      if (by.empty()) throw simlod::InvalidInput("--channels needs an attribute in --color");
      for (const simlod::ColorBy b : by) config.channels |= simlod::attributes_for(b);
    } else if (by.size() > 1) {
      throw simlod::InvalidInput(
          "several attribute colours need --channels (without it the points are coloured by "
          "one attribute as they load)");
    } else if (!by.empty()) {
      coloring.by = by[0];
    }
    const ProgressBar::Mode mode = simlod::examples::progress_mode(false, progress);
    Built built = bulk ? build_bulk(input, synthetic, seed, config, coloring, mode)
                       : build_incremental(input, synthetic, seed, config, coloring, mode);
    const simlod::Octree& tree = built.tree;
    const simlod::Bounds box = simlod::examples::relative_box(built.bounds, tree.cube().min);
    const simlod::OctreeStats st = tree.stats();
    fmt::print("simlod-render: {} points, {} nodes, {} backend\n", st.points, st.nodes,
               simlod::to_string(tree.backend()));
    simlod::Framebuffer fb(width, height, tree.backend());
    // Channels: the intensity ramp spans the file's 1st-99th percentile, as when loading.
    std::array<float, 2> intensity{0.0f, 65535.0f};
    if (simlod::has_attribute(config.channels, simlod::Attribute::Intensity)) {
      intensity = simlod::sample_intensity_range({input});
    }
    for (const std::string& name : camera.views) {
      for (const std::string& color : colors) {
        simlod::View view = simlod::examples::camera_view(camera, name, box, width, height);
        view.lod_threshold = lod;
        view.point_budget = budget;
        view.quality = hq ? simlod::RenderQuality::High : simlod::RenderQuality::Fast;
        view.eye_dome_lighting = edl;
        view.point_size = point_size;
        view.background = simlod::pack_rgba(24, 26, 32);
        simlod::examples::apply_color(view, color, built.has_color, box);
        if (channels) simlod::examples::apply_channel_color(view, color, intensity);
        const simlod::RenderStats r = simlod::rasterize(tree, view, fb);
        const std::string path = colors.size() == 1
                                     ? fmt::format("{}-{}.png", prefix, name)
                                     : fmt::format("{}-{}-{}.png", prefix, name, color);
        fb.save_png(path);
        fmt::print("  {}{}{}: {} nodes, {} points + {} voxels, {:.2f} ms -> {}\n", name,
                   colors.size() == 1 ? "" : " ", colors.size() == 1 ? "" : color, r.nodes,
                   r.points, r.voxels, r.total_ms, path);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "simlod-render: error: {}\n", e.what());
    return 1;
  }
}
