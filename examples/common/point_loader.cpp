#include "common/point_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "simlod/octree.hpp"

namespace simlod::examples {
namespace {

/// Points per read call: large enough that the per-call cost vanishes, small enough that the
/// progress moves.
constexpr std::size_t kChunk = std::size_t{1} << 20;

std::string name_of(const std::vector<std::filesystem::path>& inputs, std::size_t files) {
  if (inputs.size() == 1 && files == 1) return inputs[0].string();
  if (inputs.size() == 1) return fmt::format("{} ({} files)", inputs[0].string(), files);
  return fmt::format("{} files", files);
}

}  // namespace

void read_fully(const std::function<std::size_t(std::span<Point>)>& next, std::span<Point> out,
                const std::string& what) {
  std::size_t n = 0;
  while (n < out.size()) {
    const std::size_t got = next(out.subspan(n));
    // Readers return exactly the header's count and throw on truncated data, so an early end
    // is a file that does not hold what it declares: an error, not a shorter cloud.
    if (got == 0) {
      throw IoError(fmt::format("{}: the data ended after {} of {} points", what, n, out.size()));
    }
    n += got;
  }
}

void shift_points(std::span<Point> points, const std::array<double, 3>& delta) {
  for (Point& p : points) {
    p.x = static_cast<float>(static_cast<double>(p.x) + delta[0]);
    p.y = static_cast<float>(static_cast<double>(p.y) + delta[1]);
    p.z = static_cast<float>(static_cast<double>(p.z) + delta[2]);
  }
}

LoadedPoints load_points(const std::vector<std::filesystem::path>& inputs,
                         const LoadProgress& progress, const ColorByOptions& coloring,
                         AttributeMask channels) {
  LoadedPoints in;
  in.files = point_cloud_files(inputs);
  in.name = name_of(inputs, in.files.size());
  in.has_color = false;
  // The headers first: with the cube known before the first point is read, each piece moves
  // from its file's origin into the cube (in double) while it is still in the cache, and a bad
  // header fails the load before any point is read.
  std::vector<FileInfo> infos;
  for (const auto& file : in.files) infos.push_back(read_info(file));
  std::uint64_t total = 0;
  const FileInfo* first = nullptr;  // of the files with points: its origin is the common one
  for (const FileInfo& info : infos) {
    total += info.point_count;
    if (first == nullptr && info.point_count > 0) first = &info;
  }
  if (first == nullptr) throw InvalidInput(fmt::format("'{}' holds no points", in.name));
  const std::array<double, 3> origin = first->origin;
  for (const FileInfo& info : infos) {
    if (info.point_count == 0) continue;  // an empty file's header bounds mean nothing
    for (int a = 0; a < 3; ++a) {
      in.bounds.min[a] = std::min(in.bounds.min[a], info.bounds.min[a] - origin[a]);
      in.bounds.max[a] = std::max(in.bounds.max[a], info.bounds.max[a] - origin[a]);
    }
  }
  const std::array<double, 3> cube_min = Octree::root_cube(in.bounds).min;
  ColorByOptions colors = coloring;
  colors.validate();
  if (colors.by == ColorBy::Intensity && !colors.intensity_range) {
    colors.intensity_range = sample_intensity_range(in.files);
  }
  PointAttributes attributes;
  in.points.reserve(total);
  if (channels != 0) in.attributes.resize(channels, 0);
  for (std::size_t f = 0; f < in.files.size(); ++f) {
    if (infos[f].point_count == 0) continue;
    // Relative to the file's minimum corner (the default but for PLY, whose origin is 0), no
    // point comes back below it in float, and none below the cube's corner after the shift.
    ReaderOptions options;
    options.origin = infos[f].bounds.min;
    options.attributes = attributes_for(colors.by) | channels;
    const auto reader = open_reader(in.files[f], options);
    const FileInfo& info = reader->info();
    in.has_color = in.has_color || info.has_color || colors.by != ColorBy::File;
    const std::array<double, 3> delta{(info.origin[0] - origin[0]) - cube_min[0],
                                      (info.origin[1] - origin[1]) - cube_min[1],
                                      (info.origin[2] - origin[2]) - cube_min[2]};
    const std::size_t end = in.points.size() + info.point_count;
    const std::string what = fmt::format("'{}'", in.files[f].string());
    const auto read = [&](std::span<Point> out) {
      if (colors.by == ColorBy::File && channels == 0) return reader->read(out);
      const std::size_t n = reader->read(out, attributes);
      if (colors.by != ColorBy::File) color_points(out.first(n), attributes, colors);
      // The octree's channels: beside the points, at the index the points land at.
      const auto at = static_cast<std::size_t>(out.data() - in.points.data());
      if (channels != 0) in.attributes.copy_from(attributes, n, at, channels);
      return n;
    };
    for (std::size_t n = in.points.size(); n < end; n = in.points.size()) {
      const std::size_t count = std::min(kChunk, end - n);
      in.points.resize(n + count);
      read_fully(read, std::span(in.points).subspan(n, count), what);
      shift_points(std::span(in.points).subspan(n, count), delta);
      if (progress) progress(in.points.size(), total);
    }
  }
  return in;
}

LoadedPoints load_points(const synth::SceneConfig& scene, const LoadProgress& progress) {
  if (scene.points == 0) throw InvalidInput("the synthetic town holds no points");
  LoadedPoints in;
  synth::Generator generator(scene);
  in.bounds = generator.bounds();
  in.name = fmt::format("synthetic town, seed {}", scene.seed);
  const std::array<double, 3> cube_min = Octree::root_cube(in.bounds).min;
  const std::array<double, 3> delta{-cube_min[0], -cube_min[1], -cube_min[2]};
  in.points.resize(scene.points);
  const auto next = [&](std::span<Point> out) { return generator.next(out); };
  for (std::size_t n = 0; n < in.points.size();) {
    const std::size_t count = std::min(kChunk, in.points.size() - n);
    read_fully(next, std::span(in.points).subspan(n, count), "the synthetic town");
    shift_points(std::span(in.points).subspan(n, count), delta);
    n += count;
    if (progress) progress(n, scene.points);
  }
  return in;
}

}  // namespace simlod::examples
