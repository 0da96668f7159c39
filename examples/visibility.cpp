// simlod-visibility: the view-independent visibility map of a point model (simlod::VisibilityMap,
// docs/visibility.md). Builds the map (normals from the file's nx, ny, nz when it has them, else
// estimated) or loads one (--map), writes it to PREFIX.vmap, renders PREFIX.png with simlod's
// renderer with the points that see the eye tinted, and prints the map's statistics (--json).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common/camera.hpp"
#include "common/json.hpp"
#include "common/views.hpp"
#include "simlod/simlod.hpp"

namespace {

using simlod::Normal;
using simlod::Point;

struct Model {
  std::vector<Point> points;  ///< relative to the reader's origin
  std::vector<Normal> normals;
  simlod::Bounds bounds;           ///< of the points as read
  std::array<double, 3> origin{};  ///< the reader's origin in file coordinates
  bool file_normals = false;
};

bool has(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// Every point, and the file's normals when it has nx, ny and nz.
Model read_model(const std::string& path) {
  Model m;
  const simlod::FileInfo info = simlod::open_reader(path)->info();
  const auto& extra = info.extra_attributes;
  m.file_normals = has(extra, "nx") && has(extra, "ny") && has(extra, "nz");
  simlod::ReaderOptions options;
  if (m.file_normals) options.extra_attributes = {"nx", "ny", "nz"};
  auto reader = simlod::open_reader(path, options);
  m.origin = reader->info().origin;
  m.points.resize(reader->info().point_count);
  if (m.file_normals) m.normals.resize(m.points.size());
  std::size_t got = 0;
  simlod::PointAttributes attributes;
  while (got < m.points.size()) {
    const std::span<Point> out =
        std::span(m.points).subspan(got, std::min<std::size_t>(1 << 20, m.points.size() - got));
    const std::size_t n = m.file_normals ? reader->read(out, attributes) : reader->read(out);
    if (n == 0)
      throw simlod::IoError(fmt::format("'{}' ends before its {} points", path, m.points.size()));
    for (std::size_t i = 0; m.file_normals && i < n; ++i) {
      m.normals[got + i] = {static_cast<float>(attributes.extra[0].values[i]),
                            static_cast<float>(attributes.extra[1].values[i]),
                            static_cast<float>(attributes.extra[2].values[i])};
    }
    got += n;
  }
  if (m.points.empty()) throw simlod::InvalidInput(fmt::format("'{}' has no points", path));
  m.bounds.min = m.bounds.max = {m.points[0].x, m.points[0].y, m.points[0].z};
  for (const Point& p : m.points) {
    const double c[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a) {
      m.bounds.min[a] = std::min(m.bounds.min[a], c[a]);
      m.bounds.max[a] = std::max(m.bounds.max[a], c[a]);
    }
  }
  return m;
}

/// "x,y,z" in file coordinates, less the reader's origin.
std::array<double, 3> parse_xyz(const std::string& text, const std::array<double, 3>& origin,
                                const char* what) {
  std::array<double, 3> v{};
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lf,%lf,%lf%c", &v[0], &v[1], &v[2], &tail) != 3) {
    throw simlod::InvalidInput(fmt::format("{} '{}': give x,y,z", what, text));
  }
  for (int a = 0; a < 3; ++a) v[a] -= origin[a];
  return v;
}

void print_stats(const simlod::VisibilityStats& s, double normals_ms, std::uint64_t lit,
                 bool json) {
  if (json) {
    std::string levels;
    for (std::size_t l = 0; l < s.links_per_level.size(); ++l) {
      levels += fmt::format("{}{}", l ? ", " : "", s.links_per_level[l]);
    }
    fmt::print(
        "{{\"points\": {}, \"nodes\": {}, \"leaves\": {}, \"depth\": {}, \"leaf_pairs\": {}, "
        "\"facing_pairs\": {}, \"visible_pairs\": {}, \"links\": {}, \"links_per_level\": [{}], "
        "\"backend\": {}, \"normals_ms\": {}, \"octree_ms\": {}, \"pairs_ms\": {}, "
        "\"links_ms\": {}, \"total_ms\": {}, \"bytes\": {}, \"points_seeing_eye\": {}}}\n",
        s.points, s.nodes, s.leaves, s.depth, s.leaf_pairs, s.facing_pairs, s.visible_pairs,
        s.links, levels, simlod::examples::json_string(simlod::to_string(s.backend)),
        simlod::examples::json_number(normals_ms), simlod::examples::json_number(s.octree_ms),
        simlod::examples::json_number(s.pairs_ms), simlod::examples::json_number(s.links_ms),
        simlod::examples::json_number(s.total_ms), s.bytes, lit);
    return;
  }
  fmt::print("  {} points, {} nodes, {} leaves, deepest leaf at depth {}\n", s.points, s.nodes,
             s.leaves, s.depth);
  fmt::print("  leaf pairs: {} in all, {} facing, {} visible\n", s.leaf_pairs, s.facing_pairs,
             s.visible_pairs);
  fmt::print("  links: {} (per level:", s.links);
  for (std::size_t l = 0; l < s.links_per_level.size(); ++l) {
    fmt::print(" {}", s.links_per_level[l]);
  }
  fmt::print(
      ")\n  times: normals {:.1f} ms, octree {:.1f} ms, pairs {:.1f} ms, links {:.1f} ms, "
      "{:.1f} ms in all ({})\n",
      normals_ms, s.octree_ms, s.pairs_ms, s.links_ms, s.total_ms, simlod::to_string(s.backend));
  fmt::print("  {} points see the eye; the map takes {:.1f} MB\n", lit, s.bytes / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Builds the view-independent visibility map of a point model (LAS, LAZ, SIM, "
      "PLY) and renders what sees an eye"};
  std::string input, prefix = "visibility", eye_text, viewpoint_text, map_path,
                     backend_name = "auto", orientation = "propagate";
  simlod::VisibilityConfig config;
  std::uint32_t neighbours = 16, width = 1600, image_height = 1000;
  std::uint64_t matrix_mb = config.matrix_bytes >> 20;
  bool json = false;
  simlod::examples::CameraOptions camera{.views = {"overview"}};
  app.add_option("input", input, "point cloud file")->required();
  app.add_option("-o,--output", prefix, "PREFIX.vmap (the map) and PREFIX.png (the picture)")
      ->capture_default_str();
  app.add_option("--height", config.height, "the octree's height limit (1-16)")
      ->capture_default_str();
  app.add_option("--leaf-points", config.leaf_points, "a node splits while it holds more")
      ->capture_default_str();
  app.add_option("--occluders", config.occluders, "K: occluders that make a pair invisible")
      ->capture_default_str();
  app.add_option("--matrix-mib", matrix_mb,
                 "largest leaf matrix kept; a larger map is built in blocks")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 40));
  app.add_option("--eye", eye_text,
                 "x,y,z in the file's coordinates (default: the centre of the points)");
  app.add_option("--neighbours", neighbours, "k of the estimated normals")->capture_default_str();
  app.add_option("--orientation", orientation, "of estimated normals: propagate or viewpoint")
      ->capture_default_str()
      ->check(CLI::IsMember({"propagate", "viewpoint"}));
  app.add_option("--viewpoint", viewpoint_text,
                 "x,y,z the estimated normals face (file coordinates; viewpoint needs it)");
  app.add_option("--map", map_path, "load this map instead of building one");
  app.add_option("--backend", backend_name, "auto, cpu or cuda")->capture_default_str();
  app.add_option("--width", width, "picture width")->capture_default_str();
  app.add_option("--image-height", image_height, "picture height")->capture_default_str();
  simlod::examples::add_camera_options(app, camera, /*several=*/false);
  app.add_flag("--json", json, "print the statistics as JSON");
  CLI11_PARSE(app, argc, argv);

  try {
    simlod::examples::check_camera(camera);
    config.backend = simlod::parse_backend(backend_name);
    config.matrix_bytes = matrix_mb << 20;
    const Model model = read_model(input);
    const std::array<double, 3> eye =
        eye_text.empty() ? model.bounds.center() : parse_xyz(eye_text, model.origin, "--eye");
    double normals_ms = 0.0;
    std::optional<simlod::VisibilityMap> map;
    if (!map_path.empty()) {
      map.emplace(simlod::VisibilityMap::load(map_path));
      if (map->stats().points != model.points.size()) {
        throw simlod::InvalidInput(fmt::format("'{}' is the map of {} points; '{}' has {}",
                                               map_path, map->stats().points, input,
                                               model.points.size()));
      }
    } else {
      std::vector<Normal> normals = model.normals;
      if (!model.file_normals) {
        simlod::NormalParams params;
        params.neighbours = neighbours;
        params.backend = config.backend;
        params.orientation = orientation == "viewpoint" ? simlod::NormalOrientation::Viewpoint
                                                        : simlod::NormalOrientation::Propagate;
        if (!viewpoint_text.empty()) {
          params.viewpoint = parse_xyz(viewpoint_text, model.origin, "--viewpoint");
        }
        const auto start = std::chrono::steady_clock::now();
        normals = simlod::estimate_normals(model.points, params);
        normals_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
      }
      map.emplace(simlod::VisibilityMap::build(model.points, normals, config));
      map->save(prefix + ".vmap");
    }
    const std::vector<std::uint8_t> lit = map->visible_points(eye);
    const auto count = static_cast<std::uint64_t>(std::count(lit.begin(), lit.end(), 1));

    // The picture: points that see the eye orange, the others grey, through the LOD renderer.
    const simlod::Bounds cube = simlod::Octree::root_cube(model.bounds);
    std::vector<Point> tinted(model.points.size());
    for (std::size_t i = 0; i < tinted.size(); ++i) {
      const Point& p = model.points[i];
      tinted[i] = {
          static_cast<float>(p.x - cube.min[0]), static_cast<float>(p.y - cube.min[1]),
          static_cast<float>(p.z - cube.min[2]),
          lit[i] != 0 ? simlod::pack_rgba(255, 140, 40) : simlod::pack_rgba(110, 112, 120)};
    }
    simlod::OctreeConfig octree_config;
    octree_config.backend = config.backend;
    const simlod::Octree tree = simlod::Octree::build(tinted, model.bounds, octree_config);
    const simlod::Bounds box = simlod::examples::relative_box(model.bounds, cube.min);
    simlod::Framebuffer fb(width, image_height, tree.backend());
    simlod::View view =
        simlod::examples::camera_view(camera, camera.views.front(), box, width, image_height);
    view.background = simlod::pack_rgba(24, 26, 32);
    view.point_size = 2;
    (void)simlod::rasterize(tree, view, fb);
    fb.save_png(prefix + ".png");

    if (!json) {
      fmt::print("simlod-visibility: {} ({} normals) -> {}{}.png\n", input,
                 model.file_normals ? "the file's" : (map_path.empty() ? "estimated" : "the map's"),
                 map_path.empty() ? prefix + ".vmap, " : "", prefix);
    }
    print_stats(map->stats(), normals_ms, count, json);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "simlod-visibility: error: {}\n", e.what());
    return 1;
  }
}
