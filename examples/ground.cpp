// simlod-ground: ground classification and a terrain model (DTM) of a LiDAR file.
//   simlod-ground IN OUT.las|laz [--dtm dtm.tif] [--ascii dtm.asc] [--hillshade dtm.png]
//                 [--window 10 --overlap 0.8 --cell 20 --dtm-cell 1 --tolerance 0.5 ...]
// OUT keeps every record of a LAS/LAZ input (attributes, extra bytes, VLRs) and sets the
// classification: 2 ground, 1 the rest (--keep-classes keeps other classes than 0-2 on points
// that are not ground); noise (7, 18) and withheld points are ignored and keep theirs. Lengths
// are given in metres and converted to the units of the input's CRS (feet too); a geographic
// CRS (degrees) is refused.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/extra_bytes.hpp"
#include "common/ground_records.hpp"
#include "common/json.hpp"
#include "common/las_summary.hpp"
#include "common/progress.hpp"
#include "common/raster_writers.hpp"
#include "simlod/simlod.hpp"
#include "simlod/terrain.hpp"

namespace fs = std::filesystem;
namespace ex = simlod::examples;

namespace {

struct Options {
  fs::path in, out, dtm, ascii, hillshade, json;
  double window = 10.0, overlap = 0.8, gap = 20.0, dtm_cell = 1.0, tolerance = 0.5;
  double low_outlier = 0.0, object_step = 2.5;
  std::uint64_t min_points = 0;
  std::uint32_t refine = 8;
  bool hag = false, native_units = false, keep_classes = false, quiet = false, progress = false;
  std::string backend = "auto";
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Loaded {
  simlod::FileInfo info;
  std::vector<simlod::Point> points;
  std::vector<std::byte> records;  // LAS/LAZ only
  simlod::PointAttributes attributes;
  std::optional<simlod::LasMetadata> metadata;
};

bool is_las(const simlod::FileInfo& i) {
  return i.format == simlod::FileFormat::Las || i.format == simlod::FileFormat::Laz;
}

Loaded load(const Options& opt) {
  Loaded l;
  l.info = simlod::read_info(opt.in);
  // LAS/LAZ: the records in the same pass as the points (the classes and flags come from them);
  // other formats: the class and flag attributes where the file has them.
  simlod::ReaderOptions ro;
  if (!is_las(l.info)) {
    for (auto a : {simlod::Attribute::Classification, simlod::Attribute::ClassificationFlags}) {
      if (simlod::has_attribute(l.info.attributes, a)) ro.attributes |= simlod::attribute_bit(a);
    }
  }
  auto reader = simlod::open_reader(opt.in, ro);
  l.info = reader->info();
  const std::uint64_t n = l.info.point_count;
  const std::size_t length = l.info.record_length;
  l.points.resize(n);
  if (is_las(l.info)) {
    l.records.resize(n * length);
    l.metadata = simlod::read_las_metadata(opt.in);
  }
  l.attributes.resize(ro.attributes, n);
  ex::ProgressBar bar("reading", n, ex::progress_mode(opt.quiet, opt.progress));
  constexpr std::size_t kBatch = 1 << 20;
  simlod::PointAttributes part;
  std::uint64_t done = 0;
  while (done < n) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kBatch, n - done));
    const std::span<simlod::Point> out = std::span(l.points).subspan(done, want);
    std::size_t got = 0;
    if (is_las(l.info)) {
      got = reader->read(out, std::span(l.records).subspan(done * length, want * length));
    } else if (ro.attributes != 0) {
      got = reader->read(out, part);
      std::copy_n(part.classification.begin(), part.classification.size() ? got : 0,
                  l.attributes.classification.begin() + done);
      std::copy_n(part.classification_flags.begin(), part.classification_flags.size() ? got : 0,
                  l.attributes.classification_flags.begin() + done);
    } else {
      got = reader->read(out);
    }
    if (got == 0) break;
    done += got;
    bar.update(done);
  }
  if (done != n) {
    throw simlod::IoError(
        fmt::format("{}: {} points read of the {} the header announces", opt.in.string(), done, n));
  }
  if (is_las(l.info)) {
    l.attributes.classification.resize(n);
    l.attributes.classification_flags.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::byte* r = l.records.data() + i * length;
      l.attributes.classification[i] = ex::get_class(r, l.info.point_format);
      l.attributes.classification_flags[i] = ex::get_class_flags(r, l.info.point_format);
    }
  }
  return l;
}

void write_points(const Options& opt, Loaded& l, const simlod::terrain::GroundResult& r,
                  const std::vector<std::uint8_t>& skip) {
  simlod::WriterOptions w;
  w.origin = l.info.origin;
  const std::size_t n = l.points.size();
  const std::vector<float> hag =
      opt.hag ? ex::heights_above(l.points, r.dtm) : std::vector<float>{};
  if (is_las(l.info)) {
    const int f = l.info.point_format;
    for (std::size_t i = 0; i < n; ++i) {
      std::byte* rec = l.records.data() + i * l.info.record_length;
      ex::set_class(rec, f,
                    ex::new_class(!skip.empty() && skip[i] != 0, r.ground[i] != 0,
                                  ex::get_class(rec, f), opt.keep_classes));
    }
    w.scale = l.info.scale;
    w.las_offset = l.info.offset;
    w.las_point_format = f;
    w.las_record_length = static_cast<std::uint16_t>(l.info.record_length);
    w.las_metadata = l.metadata;
    std::vector<std::byte> extended;
    if (opt.hag) {
      std::size_t length = 0;
      extended = ex::with_heights(l.records, n, l.info.record_length, f, hag, *w.las_metadata,
                                  l.info.path.string(), length);
      w.las_record_length = static_cast<std::uint16_t>(length);
    }
    auto writer = simlod::create_writer(opt.out, w);
    writer->write_records(opt.hag ? extended : l.records);
    writer->close();
    return;
  }
  // PLY or SIM input: LAS records of format 0 or 2 with the class (and the height above
  // ground) as the only attributes.
  w.las_point_format = l.info.has_color ? 2 : 0;
  simlod::PointAttributes a;
  a.classification.resize(n);
  for (std::size_t i = 0; i < n; ++i) a.classification[i] = r.ground[i] != 0 ? 2 : 1;
  if (opt.hag) {
    w.las_metadata = simlod::LasMetadata{};
    ex::add_extra_bytes_field(ex::extra_bytes_vlr(*w.las_metadata), ex::kHagName, ex::kExtraFloat,
                              ex::kHagDescription, ex::kRasterNodata);
    w.las_record_length =
        static_cast<std::uint16_t>(simlod::las_min_record_length(w.las_point_format) + 4);
    a.extra.push_back({ex::kHagName, std::vector<double>(hag.begin(), hag.end())});
  }
  auto writer = simlod::create_writer(opt.out, w);
  writer->write_with_attributes(l.points, a);
  writer->close();
}

int run(const Options& opt) {
  const auto start = Clock::now();
  const std::string ext = opt.out.extension().string();
  if (ext != ".las" && ext != ".laz") {
    throw simlod::InvalidInput(
        fmt::format("{}: the output must be a .las or .laz file", opt.out.string()));
  }
  if (!opt.dtm.empty() && !ex::geotiff_available()) {
    throw simlod::InvalidInput("--dtm: simlod-ground was built without GDAL (install libgdal-dev)");
  }
  Loaded l = load(opt);
  const double read_ms = ms_since(start);

  // Lengths in the CRS's units.
  double unit = 1.0;  // metres per unit
  std::string crs_text = "none";
  ex::LasCrs crs;
  if (l.metadata) {
    crs = ex::las_crs(*l.metadata);
    crs_text = crs.text();
    if (crs.geographic()) {
      throw simlod::InvalidInput(fmt::format(
          "{}: its coordinate reference system ({}) is geographic (degrees); windows and "
          "heights need a projected CRS in metres or feet: reproject the file first",
          opt.in.string(), crs_text));
    }
    if (!opt.native_units) unit = crs.metres_per_unit();
  }
  simlod::terrain::GroundParams p;
  p.backend = simlod::parse_backend(opt.backend);
  p.window = opt.window / unit;
  p.overlap = opt.overlap;
  p.gap_cell = opt.gap / unit;
  p.dtm_cell = opt.dtm_cell / unit;
  p.tolerance = opt.tolerance / unit;
  p.low_outlier = opt.low_outlier / unit;
  if (opt.min_points > 0) p.min_points = opt.min_points;
  p.refine = opt.refine;
  p.object_step = opt.object_step / unit;
  const std::vector<std::uint8_t> skip = simlod::terrain::skip_mask(l.attributes);
  const simlod::terrain::GroundResult r = simlod::terrain::ground(l.points, p, skip);

  auto t = Clock::now();
  write_points(opt, l, r, skip);
  const fs::path ascii =
      opt.ascii.empty() ? fs::path(opt.out).replace_extension(".dtm.asc") : opt.ascii;
  ex::write_esri_ascii(ascii, r.dtm, l.info.origin);
  std::string tif_crs;
  if (!opt.dtm.empty()) tif_crs = ex::write_geotiff(opt.dtm, r.dtm, l.info.origin, crs);
  if (!opt.hillshade.empty()) {
    ex::HillshadeOptions h;
    h.z_factor = l.metadata ? crs.vertical_metres_per_unit() / crs.metres_per_unit() : 1.0;
    ex::write_hillshade_png(opt.hillshade, r.dtm, h);
  }
  const double write_ms = ms_since(t);

  const simlod::terrain::SeedStats& s = r.seeds.stats;
  const std::uint64_t kept = s.points - s.skipped;
  if (!opt.quiet) {
    fmt::print("{} -> {}: {} points ({} noise or withheld, ignored), {} ground ({:.1f}%)\n",
               opt.in.string(), opt.out.string(), s.points, s.skipped, r.ground_points,
               kept ? 100.0 * r.ground_points / kept : 0.0);
    fmt::print(
        "CRS {} ({} m per unit): window {:.6g}, step {:.6g}, gap cell {:.6g}, DTM cell "
        "{:.6g}, tolerance {:.6g} (file units), backend {}\n",
        crs_text, unit, p.window, (1 - p.overlap) * p.window, p.gap_cell, p.dtm_cell, p.tolerance,
        simlod::to_string(simlod::resolve_backend(p.backend)));
    fmt::print(
        "windows {} x {} (m = {} points), {} used; seeds: {} local minima, {} chosen "
        "twice or more, {} from gap filling, {} low outliers dropped\n",
        s.windows_x, s.windows_y, s.min_points, s.windows_used, s.local_minima, s.window_seeds,
        s.gap_seeds, s.low_outliers);
    fmt::print(
        "DTM {} x {} cells: {} vertices ({} in {} objects left out), {} triangles, {} cells "
        "extended past the hull, "
        "{} refined from ground points, {} without value -> {}{}{}\n",
        r.dtm.width, r.dtm.height, r.dtm_stats.vertices, r.dtm_stats.object_vertices,
        r.dtm_stats.objects, r.dtm_stats.triangles, r.dtm_stats.extended, r.dtm_stats.refined,
        r.dtm_stats.nodata, ascii.string(),
        opt.dtm.empty() ? "" : fmt::format(", {} ({})", opt.dtm.string(), tif_crs),
        opt.hillshade.empty() ? "" : ", " + opt.hillshade.string());
    fmt::print(
        "time ms: read {:.0f}, upload {:.1f}, bounds {:.1f}, index {:.1f}, windows {:.1f}, "
        "gap {:.1f}, triangulate {:.0f}, raster {:.0f}, classify {:.1f}, refine {:.1f}, "
        "write {:.0f}\n",
        read_ms, s.upload_ms, s.bounds_ms, s.index_ms, s.windows_ms, s.gap_ms,
        r.dtm_stats.triangulate_ms, r.dtm_stats.raster_ms, r.classify_ms, r.refine_ms, write_ms);
  }
  if (!opt.json.empty()) {
    std::FILE* f = std::fopen(opt.json.string().c_str(), "w");
    if (f == nullptr) throw simlod::IoError(fmt::format("{}: cannot write", opt.json.string()));
    fmt::print(
        f,
        "{{\"points\": {}, \"skipped\": {}, \"ground\": {}, \"windows\": [{}, {}], "
        "\"min_points\": {}, \"windows_used\": {}, \"local_minima\": {}, "
        "\"window_seeds\": {}, \"gap_seeds\": {}, \"low_outliers\": {}, "
        "\"dtm\": {{\"width\": {}, \"height\": {}, \"cell\": {}, \"vertices\": {}, \"objects\": "
        "{}, \"object_vertices\": {}, "
        "\"triangles\": {}, \"extended\": {}, \"refined\": {}, \"nodata\": {}}}, \"crs\": {}, "
        "\"metres_per_unit\": {}, \"ms\": {{\"read\": {:.3f}, \"upload\": {:.3f}, "
        "\"bounds\": {:.3f}, \"index\": {:.3f}, \"windows\": {:.3f}, \"gap\": {:.3f}, "
        "\"triangulate\": {:.3f}, \"raster\": {:.3f}, \"classify\": {:.3f}, "
        "\"refine\": {:.3f}, \"write\": {:.3f}}}}}\n",
        s.points, s.skipped, r.ground_points, s.windows_x, s.windows_y, s.min_points,
        s.windows_used, s.local_minima, s.window_seeds, s.gap_seeds, s.low_outliers, r.dtm.width,
        r.dtm.height, r.dtm.cell, r.dtm_stats.vertices, r.dtm_stats.objects,
        r.dtm_stats.object_vertices, r.dtm_stats.triangles, r.dtm_stats.extended,
        r.dtm_stats.refined, r.dtm_stats.nodata, ex::json_string(crs_text), unit, read_ms,
        s.upload_ms, s.bounds_ms, s.index_ms, s.windows_ms, s.gap_ms, r.dtm_stats.triangulate_ms,
        r.dtm_stats.raster_ms, r.classify_ms, r.refine_ms, write_ms);
    std::fclose(f);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simlod-ground: classify ground points and make a terrain model (DTM)"};
  Options opt;
  app.add_option("input", opt.in, "LAS, LAZ, PLY or SIM file")->required();
  app.add_option("output", opt.out, "classified points (.las or .laz)")->required();
  app.add_option("--dtm", opt.dtm, "DTM as GeoTIFF with the input's CRS");
  app.add_option("--ascii", opt.ascii, "DTM as ESRI ASCII grid (default: OUTPUT.dtm.asc)");
  app.add_option("--hillshade", opt.hillshade, "shaded relief of the DTM as PNG");
  app.add_option("--window", opt.window, "window side w, metres")->capture_default_str();
  app.add_option("--overlap", opt.overlap, "window overlap O in [0, 1)")->capture_default_str();
  app.add_option("--cell", opt.gap, "gap-filling cell B (largest building), metres; 0 off")
      ->capture_default_str();
  app.add_option("--dtm-cell", opt.dtm_cell, "DTM cell size, metres")->capture_default_str();
  app.add_option("--tolerance", opt.tolerance, "ground within this height of the DTM, metres")
      ->capture_default_str();
  app.add_option("--min-points", opt.min_points,
                 "points a window needs (default: half the mean count of a window)");
  app.add_option("--refine", opt.refine,
                 "passes refining the DTM with the ground points' heights (0: the seeds' TIN)")
      ->capture_default_str();
  app.add_option("--object-step", opt.object_step,
                 "seed regions this far above all around them (steeper than 45 degrees, no wider "
                 "than --cell) leave the DTM, metres (0: off)")
      ->capture_default_str();
  app.add_option("--low-outlier", opt.low_outlier,
                 "drop cell minima this far below all neighbours, metres (0: off)")
      ->capture_default_str();
  app.add_flag("--native-units", opt.native_units, "lengths are in the file's units, not metres");
  app.add_flag("--hag", opt.hag,
               "add each point's height above the DTM as LAS extra bytes (float, \"height above "
               "ground\")");
  app.add_flag("--keep-classes", opt.keep_classes,
               "points that are not ground keep classes other than 0-2");
  app.add_option("--backend", opt.backend, "auto, cpu or cuda")->capture_default_str();
  app.add_option("--json", opt.json, "write the summary as JSON");
  app.add_flag("-q,--quiet", opt.quiet, "no summary, no progress bar");
  app.add_flag("--progress", opt.progress, "draw the progress bar also into logs");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simlod-ground: error: %s\n", e.what());
    return 1;
  }
}
