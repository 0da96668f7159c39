// Benchmark input files: the synthetic scene (scan order, seed 1) written once per size and
// format through the public writer API, and reused by later runs.
//
//   SIMLOD_BENCH_DIR  where the files live (default <temp>/simlod-bench)
#pragma once

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "simlod/io.hpp"
#include "simlod/synth.hpp"

namespace simlod::bench {

inline std::filesystem::path bench_dir() {
  const char* text = std::getenv("SIMLOD_BENCH_DIR");
  if (text != nullptr && *text != '\0') return text;
  return std::filesystem::temp_directory_path() / "simlod-bench";
}

inline const char* extension(FileFormat format) {
  switch (format) {
    case FileFormat::Las: return ".las";
    case FileFormat::Laz: return ".laz";
    case FileFormat::Sim: return ".sim";
    case FileFormat::Ply: return ".ply";
  }
  return "";
}

/// Written under a temporary name and renamed, so an interrupted run leaves no half file.
inline void write_scene(const std::filesystem::path& path, std::uint64_t points) {
  std::filesystem::create_directories(path.parent_path());
  // The extension stays last: writers pick the format from it.
  std::filesystem::path partial = path;
  partial.replace_filename(path.stem().string() + ".partial" + path.extension().string());
  {
    synth::Generator gen({.points = points, .seed = 1, .order = synth::Order::Scan});
    auto writer = create_writer(partial);
    std::vector<Point> batch(std::size_t{1} << 20);
    while (const std::size_t n = gen.next(batch)) writer->write(std::span(batch).first(n));
    writer->close();
  }
  std::filesystem::rename(partial, path);
}

/// The scene of `points` points as `format`, written on first use (thread-safe).
inline std::filesystem::path scene_file(FileFormat format, std::uint64_t points) {
  static std::mutex mutex;
  static std::map<std::pair<FileFormat, std::uint64_t>, std::filesystem::path> files;
  const std::lock_guard lock(mutex);
  const auto key = std::make_pair(format, points);
  if (auto it = files.find(key); it != files.end()) return it->second;
  const auto path =
      bench_dir() / ("scene-" + std::to_string(points) + "-seed1" + extension(format));
  bool usable = false;
  try {
    usable = std::filesystem::exists(path) && read_info(path).point_count == points;
  } catch (const std::exception&) {
    usable = false;  // unreadable or from an older format: write it again
  }
  if (!usable) write_scene(path, points);
  return files.emplace(key, path).first->second;
}

}  // namespace simlod::bench
