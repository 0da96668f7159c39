// simlod-demo: what both runs share: cameras, the final pictures and the summary's common part.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/json.hpp"
#include "common/views.hpp"
#include "demo.hpp"

namespace simlod::examples::demo {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

synth::Order order_of(const Options& o) {
  if (o.order == "scan") return synth::Order::Scan;
  if (o.order == "morton") return synth::Order::Morton;
  throw InvalidInput("--order must be scan or morton");
}

View make_view(const Options& o, std::string_view name, const Bounds& box, bool data_has_color) {
  View v = camera_view(o.camera, name, box, o.width, o.height);
  v.lod_threshold = static_cast<float>(o.lod);
  v.eye_dome_lighting = o.edl;
  v.point_size = o.point_size;
  v.background = pack_rgba(24, 26, 32);
  apply_color(v, o.color, data_has_color, box);
  if (o.channels) apply_channel_color(v, o.color, o.intensity);
  return v;
}

void write_pictures(const Options& o, const Octree& tree, Framebuffer& fb, const Bounds& box,
                    bool data_has_color) {
  const std::filesystem::path parent = std::filesystem::path(o.output).parent_path();
  std::filesystem::create_directories(parent.empty() ? std::filesystem::path(".") : parent);
  for (const std::string& name : o.camera.views) {
    rasterize(tree, make_view(o, name, box, data_has_color), fb);
    fb.save_png(fmt::format("{}-{}.png", o.output, name));
  }
}

void print_octree(const Options& o, const Summary& s, const OctreeStats& t) {
  const double mib = 1024.0 * 1024.0;
  fmt::print("  octree: {} nodes ({} leaves, {} inner), depth {}, {} voxels\n", t.nodes, t.leaves,
             t.inner_nodes, t.depth, t.voxels);
  fmt::print("  memory: points {:.1f} MiB, voxels {:.1f} MiB, grids {:.1f} MiB, nodes {:.1f} MiB\n",
             static_cast<double>(t.bytes_points) / mib, static_cast<double>(t.bytes_voxels) / mib,
             static_cast<double>(t.bytes_grids) / mib, static_cast<double>(t.bytes_nodes) / mib);
  if (s.compact_ms >= 0.0) {
    fmt::print("  compacted in {:.0f} ms (chunks of {} points, no occupancy grids)\n", s.compact_ms,
               t.points_per_chunk);
  }
  if (s.refused > 0) {
    fmt::print("  {} points could not be inserted: the device memory was full\n", s.refused);
  }
  std::string pictures;
  for (const std::string& name : o.camera.views) {
    pictures += fmt::format("{}{}-{}.png", pictures.empty() ? "" : ", ", o.output, name);
  }
  fmt::print("  pictures: {}{}\n", pictures,
             o.frames_dir.empty()
                 ? std::string()
                 : fmt::format(", {} frames in {}", s.frames_written, o.frames_dir));
}

void prepare_frames_dir(const std::string& dir, bool quiet) {
  if (dir.empty()) return;
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  std::size_t removed = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const bool frame = name.size() == 15 && name.starts_with("frame-") && name.ends_with(".png") &&
                       std::all_of(name.begin() + 6, name.begin() + 11,
                                   [](char c) { return c >= '0' && c <= '9'; });
    if (frame && e.is_regular_file()) {
      fs::remove(e.path());
      ++removed;
    }
  }
  if (removed > 0 && !quiet) {
    fmt::print("simlod-demo: removed {} frames of an earlier run from {}\n", removed, dir);
  }
}

namespace {

std::string stats_json(const Summary& s, const OctreeStats& t, Backend backend) {
  const double mps = s.seconds > 0 ? static_cast<double>(s.points) / s.seconds / 1e6 : 0.0;
  const std::uint64_t bytes = t.bytes_points + t.bytes_voxels + t.bytes_grids + t.bytes_nodes;
  std::string json = fmt::format(
      "{{\n  \"backend\": {},\n  \"points\": {},\n  \"seconds\": {},\n  \"mps\": {},\n"
      "  \"first_frame_ms\": {},\n  \"update_ms_avg\": {},\n  \"update_ms_max\": {},\n"
      "  \"render_ms_avg\": {},\n  \"updates\": {},\n  \"renders\": {},\n  \"nodes\": {},\n"
      "  \"leaves\": {},\n  \"inner_nodes\": {},\n  \"voxels\": {},\n  \"bytes\": {},\n"
      "  \"bytes_points\": {},\n  \"bytes_voxels\": {},\n  \"bytes_grids\": {},\n"
      "  \"bytes_nodes\": {},\n  \"points_refused\": {},\n  \"errors\": {},\n"
      "  \"bulk\": {},\n  \"sampling\": {},\n  \"updates_over_budget\": {}",
      json_string(std::string(to_string(backend))), s.points, json_number(s.seconds),
      json_number(mps), json_number(s.first_frame_ms),
      json_number(s.updates ? s.update_ms_sum / static_cast<double>(s.updates) : 0.0),
      json_number(s.update_ms_max),
      json_number(s.renders ? s.render_ms_sum / static_cast<double>(s.renders) : 0.0), s.updates,
      s.renders, t.nodes, t.leaves, t.inner_nodes, t.voxels, bytes, t.bytes_points, t.bytes_voxels,
      t.bytes_grids, t.bytes_nodes, s.refused, s.errors.size(), s.bulk ? "true" : "false",
      json_string(s.sampling), s.updates_over_budget);
  if (s.compact_ms >= 0.0)
    json += fmt::format(",\n  \"compact_ms\": {}", json_number(s.compact_ms));
  if (s.bulk) {
    json += fmt::format(
        ",\n  \"load_seconds\": {},\n  \"build_ms\": {},\n  \"split_ms\": {},\n"
        "  \"voxelize_ms\": {}",
        json_number(s.load_seconds), json_number(s.build.total_ms), json_number(s.build.split_ms),
        json_number(s.build.voxelize_ms));
  }
  return json + "\n}\n";
}

}  // namespace

void write_stats(const Options& o, const Summary& s, const OctreeStats& t, Backend backend) {
  if (o.stats_path.empty()) return;
  std::ofstream out(o.stats_path);
  out << stats_json(s, t, backend);
  out.close();  // the data reaches the disk (or fails, e.g. when it is full) here
  if (!out) {
    throw IoError(
        fmt::format("'{}': cannot write the statistics: {}", o.stats_path, std::strerror(errno)));
  }
}

}  // namespace simlod::examples::demo
