// Helpers shared by the LAS and LAZ tests: reading whole files, the value rule behind the
// shared formats/ files, synthetic points, byte patching and error-message checks.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace simlod::test {

/// Every point of `path`, read in batches of `batch` points.
inline std::vector<Point> read_all(const std::filesystem::path& path,
                                   const ReaderOptions& options = {},
                                   std::size_t batch = 1'000'000) {
  auto reader = open_reader(path, options);
  std::vector<Point> all(reader->info().point_count);
  std::size_t done = 0;
  while (const std::size_t n =
             reader->read(std::span(all).subspan(done, std::min(batch, all.size() - done)))) {
    done += n;
    if (done == all.size()) break;
  }
  EXPECT_EQ(done, all.size()) << path;
  Point extra;
  EXPECT_EQ(reader->read(std::span(&extra, 1)), 0u) << "reader returns points past its count";
  return all;
}

/// Point i of the shared formats/fN files as simlod returns it with origin {0, 0, 0}:
/// X = i % 1000, Y = i / 1000, Z = (i * 7) % 500 at scale 0.01, intensity = i & 0xFFFF,
/// red = i & 255 (green = blue = 0) in RGB formats. RGB values never exceed 255 there, so they
/// are read as 8-bit; intensities do, so formats without RGB get grey = intensity >> 8.
inline Point format_rule_point(std::uint64_t i, bool has_rgb) {
  Point p;
  p.x = static_cast<float>(0.01 * static_cast<double>(i % 1000));
  p.y = static_cast<float>(0.01 * static_cast<double>(i / 1000));
  p.z = static_cast<float>(0.01 * static_cast<double>((i * 7) % 500));
  const auto grey = static_cast<std::uint32_t>((i & 0xFFFF) >> 8);
  p.rgba =
      has_rgb ? pack_rgba(static_cast<std::uint32_t>(i & 255), 0, 0) : pack_rgba(grey, grey, grey);
  return p;
}

/// `n` deterministic points spread over a 100 m box with varied colours.
inline std::vector<Point> synthetic_points(std::size_t n) {
  std::vector<Point> points(n);
  std::uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state;
  };
  for (auto& p : points) {
    p.x = static_cast<float>(next() % 100000) * 0.001f;
    p.y = static_cast<float>(next() % 100000) * 0.001f - 50.0f;
    p.z = static_cast<float>(next() % 20000) * 0.005f;
    p.rgba = pack_rgba(next() & 255, next() & 255, next() & 255);
  }
  return points;
}

/// Writes `points` to `path` (format from the extension) in one batch and closes the file.
inline void write_points(const std::filesystem::path& path, const std::vector<Point>& points,
                         const WriterOptions& options = {}) {
  auto writer = create_writer(path, options);
  writer->write(points);
  writer->close();
}

/// Writes synthetic points with a georeferenced origin and reads them back: coordinates within
/// half a scale step, colours exact, header counts and bounds filled by close(). Used by the
/// LAS and LAZ writer tests.
inline void check_round_trip(const std::filesystem::path& path, int point_format) {
  const auto points = synthetic_points(5'000);
  WriterOptions options;
  options.origin = {500'000.25, 5'400'000.5, 120.0};
  options.scale = {0.001, 0.001, 0.002};
  options.las_point_format = point_format;
  {
    auto writer = create_writer(path, options);
    writer->write(std::span(points).first(1'234));
    writer->write(std::span(points).subspan(1'234));
    EXPECT_EQ(writer->points_written(), points.size());
    writer->close();
  }
  const FileInfo info = read_info(path);
  EXPECT_EQ(info.point_format, point_format);
  EXPECT_EQ(info.version, point_format == 7 ? "1.4" : "1.2");
  EXPECT_EQ(info.point_count, points.size());
  EXPECT_EQ(info.scale, options.scale);
  EXPECT_TRUE(info.has_color);
  EXPECT_EQ(info.generator, "simlod");

  // Reading with the writer's origin gives back the written coordinates.
  const auto back = read_all(path, {.origin = options.origin, .threads = 2});
  ASSERT_EQ(back.size(), points.size());
  Bounds expected;
  for (std::size_t i = 0; i < points.size(); ++i) {
    ASSERT_NEAR(back[i].x, points[i].x, options.scale[0] / 2 + 1e-5) << "point " << i;
    ASSERT_NEAR(back[i].y, points[i].y, options.scale[1] / 2 + 1e-5) << "point " << i;
    ASSERT_NEAR(back[i].z, points[i].z, options.scale[2] / 2 + 1e-5) << "point " << i;
    ASSERT_EQ(back[i].rgba, points[i].rgba | 0xFF000000u) << "point " << i;
    expected.expand(points[i].x + options.origin[0], points[i].y + options.origin[1],
                    points[i].z + options.origin[2]);
  }
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(info.bounds.min[a], expected.min[a], options.scale[a]) << "axis " << a;
    EXPECT_NEAR(info.bounds.max[a], expected.max[a], options.scale[a]) << "axis " << a;
  }
}

/// Overwrites bytes of a file at `offset` with the object representation of `value`.
template <class T>
void patch_file(const std::filesystem::path& path, std::uint64_t offset, const T& value) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  ASSERT_TRUE(f) << path;
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(reinterpret_cast<const char*>(&value), sizeof(T));
  ASSERT_TRUE(f) << path;
}

/// Expects `fn` to throw exactly E (or a subclass) whose message contains every part.
template <class E>
void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected an exception";
  } catch (const E& e) {
    const std::string message = e.what();
    for (const auto& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos)
          << "message \"" << message << "\" lacks \"" << part << "\"";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
  }
}

}  // namespace simlod::test
