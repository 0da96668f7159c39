// simlod-demo --bulk: the CudaLOD way. Every point is read into memory first, then
// Octree::build makes the whole tree in one go, with --sampling's voxel colours (the same as
// the streaming run's). A viewer has nothing to draw until the build is done: the first
// picture is the finished octree.
#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <vector>

#include "common/point_loader.hpp"
#include "common/progress.hpp"
#include "common/sampling_names.hpp"
#include "common/views.hpp"
#include "demo.hpp"

namespace simlod::examples::demo {
namespace {

void print_bulk_summary(const Summary& s, const LoadedPoints& in, Backend backend) {
  const auto points = static_cast<double>(s.points);
  fmt::print("simlod-demo: {} points in {:.2f} s ({:.1f} M points/s), {} backend, bulk build\n",
             s.points, s.seconds, s.seconds > 0 ? points / s.seconds / 1e6 : 0.0,
             to_string(backend));
  fmt::print("  load: {:.2f} s ({:.1f} M points/s) from {}\n", s.load_seconds,
             s.load_seconds > 0 ? points / s.load_seconds / 1e6 : 0.0, in.name);
  fmt::print(
      "  build: {:.2f} ms (split {:.2f} ms, voxelize {:.2f} ms), {:.1f} M points/s, voxel "
      "colours: {}\n",
      s.build.total_ms, s.build.split_ms, s.build.voxelize_ms,
      s.build.total_ms > 0 ? points / s.build.total_ms / 1e3 : 0.0, s.sampling);
  fmt::print("  first picture after {:.1f} ms\n", s.first_frame_ms);
}

}  // namespace

int run_bulk(Options o) {
  OctreeConfig config;
  config.backend = parse_backend(o.backend);
  config.sampling = sampling_of(o.sampling);
  config.point_encoding = point_encoding_of(o);
  // --channels: the attribute of --color goes into the octree; the pictures colour by it.
  const ColorBy by = load_coloring(o.color);
  if (o.channels) {
    if (by == ColorBy::File) throw InvalidInput("--channels needs an attribute in --color");
    if (o.inputs.empty()) {
      throw InvalidInput(
          fmt::format("the synthetic town has no {} to keep as a channel", to_string(by)));
    }
    config.channels = attributes_for(by);
    if (by == ColorBy::Intensity) {
      o.intensity = sample_intensity_range({o.inputs.begin(), o.inputs.end()});
    }
  }
  const synth::Order order = order_of(o);
  // What a viewer sets up when it starts, before anything is loaded (see the streaming run).
  Framebuffer fb(o.width, o.height, resolve_backend(config.backend));

  const auto start = Clock::now();
  std::optional<ProgressBar> bar;  // the total is known once the headers are read
  const LoadProgress progress = [&](std::uint64_t done, std::uint64_t total) {
    if (!bar) bar.emplace("loading", total, progress_mode(o.quiet, o.progress));
    bar->update(done);
  };
  LoadedPoints in =
      o.inputs.empty()
          ? load_points(synth::SceneConfig{.points = o.points, .seed = o.seed, .order = order},
                        progress)
          : load_points({o.inputs.begin(), o.inputs.end()}, progress,
                        ColorByOptions{.by = o.channels ? ColorBy::File : by}, config.channels);
  if (bar) bar->finish();
  Summary s;
  s.bulk = true;
  s.sampling = o.sampling;
  s.points = in.points.size();
  s.load_seconds = ms_since(start) / 1000.0;
  Octree tree = o.channels ? Octree::build(in.points, in.attributes, in.bounds, config)
                           : Octree::build(in.points, in.bounds, config);
  s.seconds = ms_since(start) / 1000.0;
  s.build = tree.stats().build;
  std::vector<Point>().swap(in.points);  // the octree holds its own copy
  in.attributes = {};

  // The cameras frame the data, not the empty top of the cube.
  const Bounds box = relative_box(in.bounds, tree.cube().min);
  const RenderStats r =
      rasterize(tree, make_view(o, o.camera.views.front(), box, in.has_color), fb);
  s.first_frame_ms = ms_since(start);
  s.render_ms_sum = r.total_ms;
  s.renders = 1;
  if (!o.frames_dir.empty()) {  // the one frame a viewer sees change: the finished octree
    prepare_frames_dir(o.frames_dir, o.quiet);
    fb.save_png(std::filesystem::path(o.frames_dir) / "frame-00000.png");
    s.frames_written = 1;
  }

  if (o.compact) {
    const auto t0 = Clock::now();
    tree.compact();
    s.compact_ms = ms_since(t0);
  }
  write_pictures(o, tree, fb, box, in.has_color);
  const OctreeStats t = tree.stats();
  print_bulk_summary(s, in, tree.backend());
  print_octree(o, s, t);
  write_stats(o, s, t, tree.backend());
  return 0;
}

}  // namespace simlod::examples::demo
