// simlod-demo's parts shared by its two runs: streaming while rendering (demo.cpp) and loading
// everything first, then one bulk build (demo_bulk.cpp).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/camera.hpp"
#include "simlod/simlod.hpp"

namespace simlod::examples::demo {

using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> inputs;
  std::uint64_t points = 100'000'000, seed = 1;
  std::string order = "scan", backend = "auto", frames_dir, stats_path, output = "out/demo";
  double budget_ms = 10.0, frame_ms = 500.0, fps = 60.0, lod = 128.0;
  std::uint32_t batch = 0, first_batch = 1u << 14, width = 1280, height = 720;
  unsigned loaders = 0;
  /// --view (the frames take the first, the final pictures all), --yaw, --pitch, --distance,
  /// --up.
  CameraOptions camera{.views = {"overview", "closeup"}};
  std::string color = "auto";
  /// --channels: the attribute of --color is kept in the octree (OctreeConfig::channels) and
  /// every frame colours by it, instead of colouring the points as they load.
  bool channels = false;
  std::array<float, 2> intensity{0.0f, 65535.0f};  ///< --channels intensity: the files' range
  bool edl = false, quiet = false;
  bool progress = false;           ///< draw the progress bar even when stderr is no terminal
  std::uint32_t point_size = 1;    ///< View::point_size of the frames and pictures
  bool bulk = false;               ///< read every point, then Octree::build
  std::string sampling = "first";  ///< voxel colours (both runs)
  /// --quantized: leaves keep their points as 16 bits per axis (PointEncoding::Quantized16)
  bool quantized = false;
  /// --compact: finish the octree with Octree::compact() before the pictures and the summary
  bool compact = false;
};

/// The leaves' point encoding of --quantized.
inline simlod::PointEncoding point_encoding_of(const Options& o) {
  return o.quantized ? simlod::PointEncoding::Quantized16 : simlod::PointEncoding::Float32;
}

struct Summary {
  std::uint64_t points = 0;
  std::uint64_t refused = 0;  ///< points that did not fit (device full)
  double seconds = 0.0, first_frame_ms = -1.0;
  double update_ms_sum = 0.0, update_ms_max = 0.0, render_ms_sum = 0.0;
  std::uint64_t updates = 0, renders = 0, frames_written = 0;
  std::uint64_t updates_over_budget = 0;  ///< update() calls that took longer than --budget-ms
  std::vector<std::string> errors;
  bool bulk = false;
  double load_seconds = 0.0;  ///< bulk: reading every point
  BuildStats build;           ///< bulk: Octree::build's timings
  std::string sampling = "first";
  double compact_ms = -1.0;  ///< --compact: Octree::compact()'s time (-1: not compacted)
};

double ms_since(Clock::time_point t);

/// --frames: creates the folder, and removes the frames an earlier run left there
/// (frame-NNNNN.png; other files stay), so that a run's frames are never mixed with an older
/// run's. Says how many it removed unless `quiet`.
void prepare_frames_dir(const std::string& dir, bool quiet);

/// --order by name; throws InvalidInput for others.
synth::Order order_of(const Options& o);

/// A camera by name for `box`, coloured as --color says (`data_has_color`: for "auto").
View make_view(const Options& o, std::string_view name, const Bounds& box, bool data_has_color);

/// The final pictures, one per --view: OUTPUT-overview.png, OUTPUT-closeup.png, ...
void write_pictures(const Options& o, const Octree& tree, Framebuffer& fb, const Bounds& box,
                    bool data_has_color);

/// The octree and memory lines of the summary, and the line naming the pictures.
void print_octree(const Options& o, const Summary& s, const OctreeStats& t);

/// --stats: the summary as JSON; throws IoError when the file cannot be written.
void write_stats(const Options& o, const Summary& s, const OctreeStats& t, Backend backend);

/// --bulk: loads every point (nothing to draw meanwhile), builds the octree in one go with
/// --sampling's voxel colours, then draws and reports as the streaming run does.
int run_bulk(Options o);

}  // namespace simlod::examples::demo
