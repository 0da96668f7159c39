// Writes a small synthetic scene to a file, for tests that need files of their own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "simlod/io.hpp"
#include "simlod/synth.hpp"

namespace simlod::test {

/// `n` points of the synthetic scene with `seed`, written to `path` (.las, .laz or .sim).
inline void write_synthetic_file(const std::filesystem::path& path, std::uint64_t n,
                                 std::uint64_t seed = 1) {
  synth::Generator gen({.points = n, .seed = seed});
  std::vector<Point> points(n);
  std::size_t got = 0;
  while (got < n) got += gen.next(std::span(points).subspan(got));
  auto writer = create_writer(path);
  writer->write(points);
  writer->close();
}

}  // namespace simlod::test
