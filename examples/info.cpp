// simlod-info: prints what a point-cloud file's header says (for PLY, which has no bounds in
// its header, the bounds come from one pass over the vertices).
//
//   simlod-info FILE [--json]
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "common/json.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace {

using simlod::FileFormat;
using simlod::FileInfo;

bool is_las(const FileInfo& info) {
  return info.format == FileFormat::Las || info.format == FileFormat::Laz;
}

std::string color_text(const FileInfo& info) {
  if (!info.has_color) return "none";
  return info.color_16bit ? "RGB, 16-bit" : "RGB, 8-bit";
}

std::string triple(const std::array<double, 3>& v) {
  return fmt::format("{} {} {}", v[0], v[1], v[2]);
}

// Coordinates as the file stores them: LAS/LAZ to the decimals of the scale, SIM as float; PLY
// (computed from the values) and JSON in full.
std::string bounds_text(const FileInfo& info, const std::array<double, 3>& v) {
  std::string s;
  for (std::size_t a = 0; a < 3; ++a) {
    if (a > 0) s += ' ';
    if (is_las(info) && info.scale[a] > 0.0) {
      const int decimals =
          std::clamp(static_cast<int>(std::ceil(-std::log10(info.scale[a]) - 1e-9)), 0, 12);
      s += fmt::format("{:.{}f}", v[a] + 0.0, decimals);  // + 0.0: no "-0.000"
    } else if (info.format == FileFormat::Sim) {
      s += fmt::format("{}", static_cast<float>(v[a]));
    } else {
      s += fmt::format("{}", v[a]);
    }
  }
  return s;
}

void print_text(const FileInfo& info) {
  const auto row = [](std::string_view key, const std::string& value) {
    fmt::print("{:<15}{}\n", key, value);
  };
  row("file", info.path.string());
  row("format", info.version.empty()
                    ? std::string(simlod::to_string(info.format))
                    : fmt::format("{} {}", simlod::to_string(info.format), info.version));
  if (info.point_format >= 0) row("point format", fmt::format("{}", info.point_format));
  if (info.record_length > 0) row("record length", fmt::format("{} bytes", info.record_length));
  row("points", fmt::format("{}", info.point_count));
  row("bounds min", bounds_text(info, info.bounds.min));
  row("bounds max", bounds_text(info, info.bounds.max));
  if (is_las(info)) {
    row("scale", triple(info.scale));
    row("offset", bounds_text(info, info.offset));
  }
  row("colour", color_text(info));
  if (!info.generator.empty()) row("generator", info.generator);
}

// Fields that do not apply to a format (LAS point format of a PLY file) are null.
void print_json(const FileInfo& info) {
  using simlod::examples::json_array;
  using simlod::examples::json_string;
  const std::string null = "null";
  std::string s = "{\n";
  s += fmt::format("  \"path\": {},\n", json_string(info.path.string()));
  s += fmt::format("  \"format\": {},\n", json_string(simlod::to_string(info.format)));
  s += fmt::format("  \"version\": {},\n", json_string(info.version));
  s += fmt::format("  \"point_format\": {},\n",
                   info.point_format >= 0 ? fmt::format("{}", info.point_format) : null);
  s += fmt::format("  \"record_length\": {},\n",
                   info.record_length > 0 ? fmt::format("{}", info.record_length) : null);
  s += fmt::format("  \"points\": {},\n", info.point_count);
  s += fmt::format("  \"bounds\": {{\"min\": {}, \"max\": {}}},\n", json_array(info.bounds.min),
                   json_array(info.bounds.max));
  s += fmt::format("  \"scale\": {},\n", is_las(info) ? json_array(info.scale) : null);
  s += fmt::format("  \"offset\": {},\n", is_las(info) ? json_array(info.offset) : null);
  s += fmt::format("  \"has_color\": {},\n", info.has_color);
  s += fmt::format("  \"color_16bit\": {},\n", info.has_color && info.color_16bit);
  s += fmt::format("  \"generator\": {}\n", json_string(info.generator));
  s += "}\n";
  fmt::print("{}", s);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Prints the header information of a LAS, LAZ, SIM or PLY point-cloud file.",
               "simlod-info"};
  std::string path;
  bool json = false;
  app.add_option("file", path, "Point-cloud file (.las, .laz, .sim, .ply)")->required();
  app.add_flag("--json", json, "Print JSON instead of text");
  CLI11_PARSE(app, argc, argv);

  try {
    const FileInfo info = simlod::read_info(path);
    if (json) {
      print_json(info);
    } else {
      print_text(info);
    }
    std::fflush(stdout);
    return 0;
  } catch (const simlod::Error& e) {
    fmt::print(stderr, "simlod-info: error: {}\n", e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "simlod-info: error: {}\n", e.what());
  }
  return 1;
}
