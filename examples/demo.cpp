// simlod-demo: the main job. Streams a synthetic scene (no arguments) or files and folders
// into an LOD octree while rendering it every frame, as a viewer would: points appear tens of
// milliseconds after loading starts and the picture fills in as the rest streams in.
// Writes PNG frames during loading (--frames), a final overview and close-up, and a summary
// (--stats: the same as JSON). --sampling filters the voxel colours in both runs; --bulk reads
// every point first and builds the octree in one go (demo_bulk.cpp).
#include "demo.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "common/frame_writer.hpp"
#include "common/input_spread.hpp"
#include "common/progress.hpp"
#include "common/sampling_names.hpp"
#include "common/views.hpp"
#include "simlod/simlod.hpp"

namespace {

namespace ex = simlod::examples;
namespace demo = simlod::examples::demo;
using demo::Clock;
using demo::ms_since;
using demo::Options;
using demo::Summary;

void print_summary(const Summary& s, simlod::Backend backend, double budget_ms) {
  fmt::print("simlod-demo: {} points in {:.2f} s ({:.1f} M points/s), {} backend\n", s.points,
             s.seconds, s.seconds > 0 ? static_cast<double>(s.points) / s.seconds / 1e6 : 0.0,
             simlod::to_string(backend));
  if (s.first_frame_ms >= 0) {
    fmt::print("  first picture after {:.1f} ms\n", s.first_frame_ms);
  } else {
    fmt::print("  no picture with points: the input holds none\n");
  }
  fmt::print("  update: {} calls, {:.2f} ms average, {:.2f} ms max, voxel colours: {}\n", s.updates,
             s.updates ? s.update_ms_sum / static_cast<double>(s.updates) : 0.0, s.update_ms_max,
             s.sampling);
  if (s.updates_over_budget > 0) {
    fmt::print(
        "  {} of the updates took longer than the {} ms budget: an update inserts at least one "
        "ready batch whatever its budget, and one batch can take longer than the budget; a "
        "smaller --batch keeps updates nearer to it\n",
        s.updates_over_budget, budget_ms);
  }
  fmt::print("  render: {} frames, {:.2f} ms average\n", s.renders,
             s.renders ? s.render_ms_sum / static_cast<double>(s.renders) : 0.0);
}

/// Errors go to stderr, always (also with -q): what failed, and what of it stays in the view.
void print_failures(const simlod::Streamer& streamer) {
  for (const simlod::StreamFailure& f : streamer.failures()) {
    fmt::print(stderr, "simlod-demo: error: {}\n", f.message);
    if (!f.path.empty()) {
      fmt::print(stderr, "  {} points of '{}' loaded before the error stay in the octree\n",
                 f.points_inserted, f.path.string());
    }
  }
}

int run(Options o) {
  const simlod::Backend backend = simlod::parse_backend(o.backend);
  simlod::StreamConfig config;
  config.octree.backend = backend;
  // Random and Average stay exact batch by batch; the Streamer finalize()s Weighted's colours
  // when the last batch is in.
  config.octree.sampling = ex::sampling_of(o.sampling);
  config.octree.point_encoding = demo::point_encoding_of(o);
  // 1M-point batches (SimLOD) on the GPU; on the CPU a 1M batch takes a few hundred ms, so
  // smaller ones keep each update near the frame budget.
  const simlod::Backend resolved = simlod::resolve_backend(backend);
  config.batch_points = o.batch != 0                        ? o.batch
                        : resolved == simlod::Backend::Cuda ? 1u << 20
                                                            : 1u << 16;
  config.first_batch_points = o.first_batch;
  config.loader_threads = o.loaders;
  config.color_by.by = ex::load_coloring(o.color);
  if (o.channels) {  // the attribute goes into the octree; the frames colour by it
    if (config.color_by.by == simlod::ColorBy::File) {
      throw simlod::InvalidInput("--channels needs an attribute in --color");
    }
    config.octree.channels = simlod::attributes_for(config.color_by.by);
    if (config.color_by.by == simlod::ColorBy::Intensity && !o.inputs.empty()) {
      o.intensity = simlod::sample_intensity_range({o.inputs.begin(), o.inputs.end()});
    }
    config.color_by.by = simlod::ColorBy::File;
  }
  const simlod::synth::Order order = demo::order_of(o);
  // What a viewer sets up when it starts, before anything is loaded: the device (through the
  // framebuffer) and the page-locked buffers of the stream.
  simlod::Framebuffer fb(o.width, o.height, resolved);
  simlod::Streamer::prepare(config);
  ex::FrameWriter writer;
  demo::prepare_frames_dir(o.frames_dir, o.quiet);

  const auto start = Clock::now();
  simlod::Streamer streamer =
      o.inputs.empty() ? simlod::Streamer::synthetic(
                             {.points = o.points, .seed = o.seed, .order = order}, config)
                       : simlod::Streamer::open({o.inputs.begin(), o.inputs.end()}, config);
  if (const auto far = ex::far_apart_warning(streamer.files())) {
    fmt::print(stderr, "simlod-demo: warning: {}\n", *far);
  }
  // The cameras frame the data, not the empty top of the cube.
  const simlod::Bounds box = ex::relative_box(streamer.bounds(), streamer.octree().cube().min);
  // Scans without colour of their own (most airborne LiDAR) are drawn by elevation by default.
  const bool data_has_color = o.inputs.empty() || config.color_by.by != simlod::ColorBy::File ||
                              std::any_of(streamer.files().begin(), streamer.files().end(),
                                          [](const simlod::FileInfo& f) { return f.has_color; });
  const simlod::View view = demo::make_view(o, o.camera.views.front(), box, data_has_color);
  ex::ProgressBar bar("streaming", streamer.progress().points_total,
                      ex::progress_mode(o.quiet, o.progress));

  Summary s;
  s.sampling = o.sampling;
  const auto budget = std::chrono::microseconds(static_cast<std::int64_t>(o.budget_ms * 1000.0));
  const double render_interval_ms = o.fps > 0 ? 1000.0 / o.fps : 0.0;
  auto last_render = start - std::chrono::hours(1);
  auto last_frame_file = start - std::chrono::hours(1);
  for (;;) {
    const bool done = streamer.done();
    simlod::UpdateStats u;
    try {
      u = streamer.update(budget);
    } catch (const simlod::Error& e) {  // a bad file: report it, keep loading the others
      s.errors.emplace_back(e.what());
      if (!o.quiet) fmt::print(stderr, "\n");  // below the progress bar
      fmt::print(stderr, "simlod-demo: {}\n", e.what());
      continue;
    }
    if (u.batches > 0) {
      const double ms = static_cast<double>(u.duration.count()) / 1000.0;
      s.update_ms_sum += ms;
      s.update_ms_max = std::max(s.update_ms_max, ms);
      s.updates += 1;
      if (o.budget_ms > 0 && ms > o.budget_ms) s.updates_over_budget += 1;
    }
    const std::uint64_t inserted = streamer.progress().points_inserted;
    bar.update(inserted);
    const bool first = s.first_frame_ms < 0 && inserted > 0;
    if (first || ms_since(last_render) >= render_interval_ms || done) {
      last_render = Clock::now();
      const simlod::RenderStats r = simlod::rasterize(streamer.octree(), view, fb);
      s.render_ms_sum += r.total_ms;
      s.renders += 1;
      if (first) s.first_frame_ms = ms_since(start);
      if (!o.frames_dir.empty() && inserted > 0 && ms_since(last_frame_file) >= o.frame_ms &&
          writer.idle()) {
        last_frame_file = Clock::now();
        writer.offer(std::filesystem::path(o.frames_dir) /
                         fmt::format("frame-{:05}.png", s.frames_written++),
                     o.width, o.height, fb.download());
      }
    }
    if (done) break;
    if (u.batches == 0) streamer.wait(std::chrono::milliseconds(2));
  }
  s.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  s.points = streamer.progress().points_inserted;
  s.refused = streamer.progress().points_refused;
  bar.finish();
  writer.wait();
  if (o.compact && streamer.done()) {
    const auto t0 = Clock::now();
    streamer.compact();
    s.compact_ms = demo::ms_since(t0);
  }

  demo::write_pictures(o, streamer.octree(), fb, box, data_has_color);
  const simlod::OctreeStats t = streamer.octree().stats();
  print_summary(s, streamer.octree().backend(), o.budget_ms);
  demo::print_octree(o, s, t);
  print_failures(streamer);
  demo::write_stats(o, s, t, streamer.octree().backend());
  return s.errors.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Streams point clouds (or a synthetic scene) into an LOD octree while rendering "
      "it, as a viewer would"};
  Options o;
  app.add_option("inputs", o.inputs,
                 "LAS/LAZ/SIM/PLY files or folders (default: a synthetic "
                 "scene)");
  app.add_option("--points", o.points, "synthetic scene size")->capture_default_str();
  app.add_option("--seed", o.seed, "synthetic scene seed")->capture_default_str();
  app.add_option("--order", o.order, "synthetic point order: scan or morton")
      ->capture_default_str();
  app.add_option("--backend", o.backend, "auto, cpu or cuda")->capture_default_str();
  app.add_option("--budget-ms", o.budget_ms, "update budget per frame (0: everything ready)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10000.0));
  app.add_option("--batch", o.batch, "points per batch (0: 1M on CUDA, 64k on the CPU)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1u << 24));
  app.add_option("--first-batch", o.first_batch, "points of the first batch (quick first picture)")
      ->capture_default_str();
  app.add_option("--loaders", o.loaders, "loader threads (0: all cores)")->capture_default_str();
  app.add_option("--width", o.width)->capture_default_str()->check(CLI::Range(16u, 16384u));
  app.add_option("--height", o.height)->capture_default_str()->check(CLI::Range(16u, 16384u));
  ex::add_camera_options(app, o.camera, /*several=*/true);
  app.add_option("--lod", o.lod, "LOD threshold in pixels (0: every point)")->capture_default_str();
  app.add_flag("--edl", o.edl, "eye-dome lighting");
  app.add_option("--point-size", o.point_size, "pixels a side of the square each sample covers")
      ->capture_default_str()
      ->check(CLI::Range(1u, simlod::View::kMaxPointSize));
  app.add_option("--color", o.color,
                 "auto (elevation for data without colour), rgb, elevation, or an attribute "
                 "the points are coloured by as they load: intensity, classification, "
                 "returns, source")
      ->capture_default_str()
      ->check(
          CLI::IsMember(std::vector<std::string>(ex::kColorNames.begin(), ex::kColorNames.end())));
  app.add_flag("--channels", o.channels,
               "keep the --color attribute in the octree (OctreeConfig::channels) and colour "
               "every frame by it, instead of colouring the points as they load");
  app.add_option("--fps", o.fps, "frames rendered per second at most (0: after every update)")
      ->capture_default_str();
  app.add_option("--frames", o.frames_dir,
                 "write PNG frames during loading into this folder (--bulk: none while "
                 "loading and building, one once the octree is built)");
  app.add_option("--frame-ms", o.frame_ms, "milliseconds between written frames")
      ->capture_default_str();
  app.add_option("-o,--output", o.output,
                 "final pictures, one per --view: OUTPUT-overview.png, ...")
      ->capture_default_str();
  app.add_option("--stats", o.stats_path, "write the summary as JSON to this file");
  app.add_flag("-q,--quiet", o.quiet, "no progress bar");
  app.add_flag("--progress", o.progress, "draw the progress bar even when stderr is no terminal");
  app.add_flag("--bulk", o.bulk,
               "read every point first, then build the octree in one go (Octree::build): "
               "nothing to see until it is built");
  app.add_option("--sampling", o.sampling,
                 "voxel colours: " + ex::sampling_names() +
                     " (first-come, a random point of the cell, the mean of its points, or its "
                     "samples weighted by distance); streaming keeps random and average exact "
                     "after every batch and computes weighted once the last batch is in")
      ->capture_default_str();
  app.add_flag("--quantized", o.quantized,
               "leaves keep their points as 16 bits per axis within the leaf, 10 bytes instead "
               "of 16 (PointEncoding::Quantized16: within half a step of 1/65536 of the leaf "
               "they first went into)");
  app.add_flag("--compact", o.compact,
               "once loaded, finish the octree with Octree::compact(): smaller chunks and no "
               "occupancy grids, so it takes less memory (it takes no more points)");
  CLI11_PARSE(app, argc, argv);
  try {
    ex::check_camera(o.camera);  // before anything is loaded
    return o.bulk ? demo::run_bulk(o) : run(o);
  } catch (const std::exception& e) {
    fmt::print(stderr, "simlod-demo: error: {}\n", e.what());
    return 1;
  }
}
