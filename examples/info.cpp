// simlod-info: prints what a point-cloud file's header says (for PLY, which has no bounds in
// its header, the bounds come from one pass over the vertices). For LAS/LAZ also its
// coordinate reference system and VLRs, and (one pass over the points, unless --header-only)
// the points per return number and per classification and the range of every attribute.
//
//   simlod-info FILE [--json] [--header-only]
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "common/json.hpp"
#include "common/las_summary.hpp"
#include "common/progress.hpp"
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

/// What simlod-info adds for LAS/LAZ files.
struct LasExtras {
  simlod::LasMetadata metadata;
  simlod::examples::LasCrs crs;
  std::optional<simlod::examples::LasAttributeSummary> summary;  ///< none: --header-only
};

LasExtras las_extras(const FileInfo& info, bool header_only, bool progress) {
  LasExtras x;
  x.metadata = simlod::read_las_metadata(info.path);
  x.crs = simlod::examples::las_crs(x.metadata);
  if (header_only) return x;
  auto reader = simlod::open_reader(info.path);
  constexpr std::size_t kBatch = 1 << 18;
  std::vector<simlod::Point> points(kBatch);
  std::vector<std::byte> records(kBatch * info.record_length);
  simlod::examples::LasAttributeSummary s;
  simlod::examples::ProgressBar bar("reading", info.point_count,
                                    simlod::examples::progress_mode(false, progress));
  std::uint64_t done = 0;
  for (std::size_t n; (n = reader->read(points, records)) > 0;) {
    s.add(records, n, info.point_format, info.record_length);
    bar.update(done += n);
  }
  bar.finish();
  x.summary = std::move(s);
  return x;
}

std::string vlr_name(const simlod::LasVlr& v) {
  const auto end = std::find(v.description.begin(), v.description.end(), '\0');
  return fmt::format("{} {} \"{}\" ({} bytes)", v.user(), v.record_id,
                     std::string(v.description.begin(), end), v.data.size());
}

void print_text(const FileInfo& info, const LasExtras* las) {
  const auto row = [](std::string_view key, const std::string& value) {
    fmt::print("{:<16}{}\n", key, value);
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
  row("attributes", info.attributes == 0 ? "none" : simlod::attribute_names(info.attributes));
  if (!info.extra_attributes.empty()) {
    std::string names;
    for (const auto& e : info.extra_attributes) names += (names.empty() ? "" : ", ") + e;
    row("extra", names);
  }
  if (!info.generator.empty()) row("generator", info.generator);
  if (las == nullptr) return;
  row("crs", las->crs.text());
  if (const std::string units = las->crs.units_text(); !units.empty()) row("units", units);
  row("vlrs", fmt::format("{}", las->metadata.vlrs.size()));
  for (const auto& v : las->metadata.vlrs) row("", vlr_name(v));
  if (!las->metadata.evlrs.empty()) {
    row("extended vlrs", fmt::format("{}", las->metadata.evlrs.size()));
    for (const auto& v : las->metadata.evlrs) row("", vlr_name(v));
  }
  if (!las->summary) return;
  const auto& s = *las->summary;
  for (const auto& [r, n] : s.returns)
    row(r == s.returns.begin()->first ? "returns" : "", fmt::format("{}: {}", r, n));
  for (const auto& [c, n] : s.classes) {
    const char* name = simlod::examples::asprs_class_name(c);
    row(c == s.classes.begin()->first ? "classes" : "",
        fmt::format("{}{}: {}", c, *name != '\0' ? fmt::format(" {}", name) : "", n));
  }
  row("flags", fmt::format("synthetic {}, key-point {}, withheld {}, overlap {}", s.synthetic,
                           s.keypoint, s.withheld, s.overlap));
  for (const auto& [name, r] : s.ranges) {
    if (r.any) row(name, fmt::format("{} .. {}", r.min, r.max));
  }
}

// Fields that do not apply to a format (LAS point format of a PLY file) are null.
void print_json(const FileInfo& info, const LasExtras* las) {
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
  s += fmt::format("  \"generator\": {},\n", json_string(info.generator));
  const auto names = [&](const std::vector<std::string>& list) {
    std::string a = "[";
    for (const auto& n : list) a += (a.size() > 1 ? ", " : "") + json_string(n);
    return a + "]";
  };
  std::vector<std::string> present;
  for (std::size_t i = 0; i < simlod::kAttributeCount; ++i) {
    const auto a = static_cast<simlod::Attribute>(i);
    if (simlod::has_attribute(info.attributes, a)) present.emplace_back(simlod::to_string(a));
  }
  s += fmt::format("  \"attributes_stored\": {},\n  \"extra_attributes\": {}", names(present),
                   names(info.extra_attributes));
  if (las != nullptr) {
    const auto& crs = las->crs;
    s += fmt::format(
        ",\n  \"crs\": {{\"epsg\": {}, \"vertical_epsg\": {}, \"citation\": {}, \"wkt\": {}}}",
        crs.epsg ? fmt::format("{}", *crs.epsg) : null,
        crs.vertical_epsg ? fmt::format("{}", *crs.vertical_epsg) : null, json_string(crs.citation),
        json_string(crs.wkt));
    s += fmt::format(
        ",\n  \"units\": {{\"text\": {}, \"geographic\": {}, \"metres_per_unit\": {}, "
        "\"vertical_metres_per_unit\": {}}}",
        json_string(crs.units_text()), crs.geographic(), crs.metres_per_unit(),
        crs.vertical_metres_per_unit());
    const auto vlrs = [&](const std::vector<simlod::LasVlr>& list) {
      std::string a = "[";
      for (const auto& v : list) {
        const auto end = std::find(v.description.begin(), v.description.end(), '\0');
        a += fmt::format(
            "{}{{\"user_id\": {}, \"record_id\": {}, \"description\": {}, \"bytes\": {}}}",
            a.size() > 1 ? ", " : "", json_string(v.user()), v.record_id,
            json_string(std::string(v.description.begin(), end)), v.data.size());
      }
      return a + "]";
    };
    s += fmt::format(",\n  \"vlrs\": {},\n  \"evlrs\": {}", vlrs(las->metadata.vlrs),
                     vlrs(las->metadata.evlrs));
    if (las->summary) {
      const auto& sum = *las->summary;
      const auto counts = [](const std::map<unsigned, std::uint64_t>& m) {
        std::string a = "{";
        for (const auto& [k, n] : m)
          a += fmt::format("{}\"{}\": {}", a.size() > 1 ? ", " : "", k, n);
        return a + "}";
      };
      s += fmt::format(",\n  \"returns\": {},\n  \"classes\": {}", counts(sum.returns),
                       counts(sum.classes));
      s += fmt::format(
          ",\n  \"flags\": {{\"synthetic\": {}, \"keypoint\": {}, \"withheld\": {}, \"overlap\": "
          "{}}}",
          sum.synthetic, sum.keypoint, sum.withheld, sum.overlap);
      std::string ranges = "{";
      for (const auto& [name, r] : sum.ranges) {
        if (!r.any) continue;
        ranges += fmt::format("{}\"{}\": {{\"min\": {}, \"max\": {}}}",
                              ranges.size() > 1 ? ", " : "", name, r.min, r.max);
      }
      s += fmt::format(",\n  \"attributes\": {}", ranges + "}");
    }
  }
  s += "\n}\n";
  fmt::print("{}", s);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Prints the header information of a LAS, LAZ, SIM or PLY point-cloud file.",
               "simlod-info"};
  std::string path;
  bool json = false, header_only = false, progress = false;
  app.add_option("file", path, "Point-cloud file (.las, .laz, .sim, .ply)")->required();
  app.add_flag("--json", json, "Print JSON instead of text");
  app.add_flag("--progress", progress,
               "Draw the progress bar of the pass over the points even when stderr is no "
               "terminal");
  app.add_flag("--header-only", header_only,
               "LAS/LAZ: the header, CRS and VLRs only, without the pass over the points "
               "(counts per return and class, attribute ranges)");
  CLI11_PARSE(app, argc, argv);

  try {
    // Opening names the extra attributes too (LAS extra bytes, PLY scalar properties).
    const FileInfo info = simlod::open_reader(path)->info();
    std::optional<LasExtras> las;
    if (is_las(info)) las = las_extras(info, header_only, progress);
    if (json) {
      print_json(info, las ? &*las : nullptr);
    } else {
      print_text(info, las ? &*las : nullptr);
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
