// The small DTM raster and file helpers of the raster writer tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "simlod/terrain.hpp"

namespace simlod::test {

/// 3 x 2 cells of 0.5 with the north-west corner at (10, 20); the north row's east cell has no
/// value.
inline terrain::Raster small_raster() {
  terrain::Raster r;
  r.width = 3;
  r.height = 2;
  r.x0 = 10.0;
  r.y0 = 20.0;
  r.cell = 0.5;
  r.values = {1.0f, 2.5f, NAN, -3.25f, 0.125f, 7.0f};
  return r;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The names in `dir`, to see that no partial file was left behind.
inline std::vector<std::string> names(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace simlod::test
