// simlod-convert: converts between point-cloud formats, streaming batch by batch, or writes a
// synthetic scene.
//
//   simlod-convert IN... OUT [--scale S|SX,SY,SZ] [--point-format 0-10] [--batch N]
//                  [--threads N] [--json]
//   simlod-convert --synthetic N OUT [--seed S] [--order scan|morton|random]
//
// Formats come from the extensions. LAS/LAZ to LAS/LAZ copies the point records (every
// attribute, extra bytes, the integer coordinates) with the header fields, VLRs and extended
// VLRs: in the input's point format and scale nothing is lost; another --point-format or
// --scale converts the records and a warning names what the target could not hold. Other
// conversions keep georeferenced coordinates (points are read relative to the input's origin and
// written with that origin added back; SIM has no origin field, so SIM output holds
// coordinates relative to the input's origin), and what the output cannot hold is named in a
// warning. Several inputs (files or folders) are merged into OUT: LAS/LAZ records in the first
// input's format, scale, offset and VLRs (others converted to them, with a warning where
// their coordinate reference systems or extra bytes differ), other points relative to the
// first input's origin.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "common/extra_bytes.hpp"
#include "common/json.hpp"
#include "common/progress.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"
#include "simlod/synth.hpp"

namespace {

namespace fs = std::filesystem;
using simlod::examples::ProgressBar;

struct Options {
  std::vector<std::string> files;
  std::uint64_t synthetic = 0;
  std::uint64_t seed = 1;
  std::string order = "scan";
  std::vector<double> scale;
  int point_format = -1;  // -1: chosen from the input
  std::size_t batch = 1'000'000;
  unsigned threads = 0;
  bool progress = false;
  bool quiet = false;
  bool json = false;
};

/// What --json prints besides the counts: the warnings and, for LAS/LAZ output from LAS/LAZ
/// input, what the records kept and lost.
struct Report {
  std::vector<std::string> warnings;
  bool records_copied = false;
  int point_format_in = -1, point_format_out = -1;
  std::size_t vlrs = 0;
  simlod::LasTranscodeLoss loss;
};
Report report;

using Source = std::function<std::size_t(std::span<simlod::Point>)>;

bool is_las(simlod::FileFormat f) {
  return f == simlod::FileFormat::Las || f == simlod::FileFormat::Laz;
}

void warn(const std::string& message) {
  fmt::print(stderr, "simlod-convert: warning: {}\n", message);
  report.warnings.push_back(message);
}

/// --scale, or `scale` without it.
std::array<double, 3> scale_option(const Options& opt, std::array<double, 3> scale) {
  if (opt.scale.size() == 1) scale = {opt.scale[0], opt.scale[0], opt.scale[0]};
  if (opt.scale.size() == 3) scale = {opt.scale[0], opt.scale[1], opt.scale[2]};
  return scale;
}

ProgressBar::Mode progress_mode(const Options& opt) {
  return simlod::examples::progress_mode(opt.quiet, opt.progress);
}

simlod::WriterOptions writer_options(const Options& opt, const fs::path& out,
                                     const simlod::FileInfo* input) {
  simlod::WriterOptions w;
  if (input != nullptr) {
    w.origin = input->origin;
    if (is_las(input->format)) w.scale = input->scale;  // keep the input's precision
    // Never invent colour: a colourless input gets a format without RGB.
    w.las_point_format = input->has_color ? 2 : 0;
  }
  w.scale = scale_option(opt, w.scale);
  if (opt.point_format >= 0) w.las_point_format = opt.point_format;
  if (!is_las(simlod::format_from_extension(out))) {
    if (!opt.scale.empty()) warn("--scale applies to LAS/LAZ output only; ignored");
    if (opt.point_format >= 0) warn("--point-format applies to LAS/LAZ output only; ignored");
  } else if (w.las_point_format != 0 && w.las_point_format != 2 && w.las_point_format != 6 &&
             w.las_point_format != 7) {
    throw simlod::InvalidInput(fmt::format(
        "--point-format {} keeps attributes that only LAS/LAZ input has; from {} input write "
        "format 0, 2, 6 or 7",
        w.las_point_format, input != nullptr ? simlod::to_string(input->format) : "synthetic"));
  }
  return w;
}

// Streams the source into a new file at `out`. The writer fills a partial file and puts it
// at `out` only when complete: a failed conversion leaves an older `out` as it was and nothing
// truncated but plausible-looking behind (the writer removes its partial file as the error
// unwinds).
std::uint64_t write_all(const Source& source, std::uint64_t total, const fs::path& out,
                        const simlod::WriterOptions& wo, const Options& opt) {
  auto writer = simlod::create_writer(out, wo);
  ProgressBar progress("converting", total, progress_mode(opt));
  std::vector<simlod::Point> batch(
      static_cast<std::size_t>(std::clamp<std::uint64_t>(total, 1, opt.batch)));
  std::uint64_t done = 0;
  for (std::size_t n; (n = source(batch)) > 0;) {
    writer->write(std::span(batch).first(n));
    done += n;
    progress.update(done);
  }
  writer->close();
  progress.finish();
  return done;
}

/// What LAS/LAZ input loses when its points are re-encoded (another point format or scale,
/// or SIM output), for the warning.
std::string what_is_lost(const simlod::FileInfo& in, const simlod::LasMetadata& m) {
  std::string lost =
      "intensity, return numbers, classification and its flags, scan angle, user data, point "
      "source id";
  if (in.point_format != 0 && in.point_format != 2) lost += ", GPS time";
  if (in.point_format == 8 || in.point_format == 10) lost += ", NIR";
  if (in.point_format == 4 || in.point_format == 5 || in.point_format >= 9)
    lost += ", wave packets";
  const int min_length = simlod::las_min_record_length(in.point_format);
  if (static_cast<int>(in.record_length) > min_length) {
    lost +=
        fmt::format(", {} extra bytes a point", static_cast<int>(in.record_length) - min_length);
  }
  if (!m.vlrs.empty() || !m.evlrs.empty()) {
    std::string names;
    for (const auto* list : {&m.vlrs, &m.evlrs}) {
      for (const simlod::LasVlr& v : *list) {
        names += fmt::format("{}{} {}", names.empty() ? "" : ", ", v.user(), v.record_id);
      }
    }
    lost += fmt::format(", {} VLRs ({})", m.vlrs.size() + m.evlrs.size(), names);
  }
  return lost;
}

/// The VLRs that say where the points lie: GeoKeys (LASF_Projection 34735-34737) and WKT
/// (2111, 2112), as one byte string to compare inputs by.
std::string crs_bytes(const simlod::LasMetadata& m) {
  std::string bytes;
  for (const auto* list : {&m.vlrs, &m.evlrs}) {
    for (const simlod::LasVlr& v : *list) {
      if (v.user() != "LASF_Projection") continue;
      bytes += fmt::format("{}:", v.record_id);
      for (const std::byte b : v.data) bytes.push_back(static_cast<char>(b));
    }
  }
  return bytes;
}

/// The extra-bytes VLR's payload ("" without one).
std::string extra_bytes_layout(const simlod::LasMetadata& m) {
  std::string bytes;
  for (const simlod::LasVlr& v : m.vlrs) {
    if (v.user() == "LASF_Spec" && v.record_id == 4) {
      for (const std::byte b : v.data) bytes.push_back(static_cast<char>(b));
    }
  }
  return bytes;
}

/// Copies the LAS records of `inputs` (LAS/LAZ, in order) into a new LAS/LAZ file at `out`:
/// in the first input's point format, scale, offset, header fields and VLRs unless --point-format
/// or --scale say otherwise; records of another format, scale or offset are converted (a
/// warning names what the target could not hold). The extra bytes are kept when every input
/// describes them alike.
std::uint64_t copy_records(const std::vector<fs::path>& inputs, const fs::path& out,
                           const Options& opt) {
  simlod::ReaderOptions ro;
  ro.threads = opt.threads;
  std::vector<simlod::FileInfo> infos;
  std::vector<simlod::LasMetadata> metas;
  std::uint64_t total = 0;
  for (const auto& in : inputs) {
    infos.push_back(simlod::read_info(in));
    metas.push_back(simlod::read_las_metadata(in));
    total += infos.back().point_count;
  }
  const simlod::FileInfo& first = infos.front();
  simlod::WriterOptions w;
  w.scale = scale_option(opt, first.scale);
  w.las_offset = first.offset;
  w.las_point_format = opt.point_format >= 0 ? opt.point_format : first.point_format;
  int extra =
      static_cast<int>(first.record_length) - simlod::las_min_record_length(first.point_format);
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const int e = static_cast<int>(infos[i].record_length) -
                  simlod::las_min_record_length(infos[i].point_format);
    if (extra > 0 && (e != extra || extra_bytes_layout(metas[i]) != extra_bytes_layout(metas[0]))) {
      warn(fmt::format("'{}' describes its extra bytes unlike '{}': the output keeps none",
                       inputs[i].string(), inputs[0].string()));
      extra = 0;
    }
    if (crs_bytes(metas[i]) != crs_bytes(metas[0])) {
      warn(
          fmt::format("'{}' and '{}' give different coordinate reference systems; the output "
                      "keeps the first's",
                      inputs[i].string(), inputs[0].string()));
    }
  }
  w.las_record_length =
      static_cast<std::uint16_t>(simlod::las_min_record_length(w.las_point_format) + extra);
  w.las_metadata = metas.front();
  if (extra == 0 && !extra_bytes_layout(metas.front()).empty()) {
    auto& vlrs = w.las_metadata->vlrs;
    std::erase_if(
        vlrs, [](const simlod::LasVlr& v) { return v.user() == "LASF_Spec" && v.record_id == 4; });
  }
  auto writer = simlod::create_writer(out, w);
  ProgressBar progress("converting", total, progress_mode(opt));
  const std::size_t batch_points =
      static_cast<std::size_t>(std::clamp<std::uint64_t>(total, 1, opt.batch));
  std::vector<simlod::Point> batch(batch_points);
  std::vector<std::byte> records, converted(batch_points * w.las_record_length);
  simlod::LasTranscodeLoss loss;
  std::uint64_t done = 0;
  for (std::size_t f = 0; f < inputs.size(); ++f) {
    const auto reader = simlod::open_reader(inputs[f], ro);
    const simlod::FileInfo& info = reader->info();
    const bool same = w.las_point_format == info.point_format && w.scale == info.scale &&
                      *w.las_offset == info.offset && w.las_record_length == info.record_length;
    records.resize(batch_points * info.record_length);
    for (std::size_t n; (n = reader->read(batch, records)) > 0;) {
      if (same) {
        writer->write_records(std::span<const std::byte>(records).first(n * info.record_length));
      } else {
        simlod::transcode_las_records(records, n, info.point_format, info.record_length, info.scale,
                                      info.offset, converted, w.las_point_format,
                                      w.las_record_length, w.scale, *w.las_offset, done, loss);
        writer->write_records(std::span<const std::byte>(converted).first(n * w.las_record_length));
      }
      done += n;
      progress.update(done);
    }
  }
  writer->close();
  progress.finish();
  const std::string lost = loss.text();
  if (!lost.empty()) {
    warn(fmt::format("point format {} to {}{}: {}", first.point_format, w.las_point_format,
                     w.scale == first.scale ? "" : " at the new scale", lost));
  }
  report.records_copied = true;
  report.point_format_in = first.point_format;
  report.point_format_out = w.las_point_format;
  report.vlrs = w.las_metadata->vlrs.size() + w.las_metadata->evlrs.size();
  report.loss = loss;
  if (!opt.quiet && !opt.json) {
    fmt::print("kept {}every attribute of point format {} ({}-byte records) and {} VLRs{}{}\n",
               lost.empty() ? "" : "otherwise ", first.point_format, first.record_length,
               report.vlrs,
               w.las_point_format == first.point_format
                   ? ""
                   : fmt::format(", written as point format {}", w.las_point_format),
               inputs.size() > 1 ? fmt::format(", {} files merged", inputs.size()) : "");
  }
  return done;
}

/// The extra-bytes VLR describing `names` as doubles; names longer than the field's 32 bytes
/// are cut (with a warning).
simlod::LasVlr extra_bytes_vlr(const std::vector<std::string>& names) {
  simlod::LasVlr v;
  for (const std::string& name : names) {
    if (simlod::examples::add_extra_bytes_field(v, name, simlod::examples::kExtraDouble)) {
      warn(fmt::format("the extra attribute name '{}' is cut to its first 32 bytes", name));
    }
  }
  return v;
}

/// A PLY (or SIM) input with attributes into LAS/LAZ: every attribute into a LAS 1.4 point
/// format that has a field for it (6 without colour, 7 with, 8 with colour and NIR) and the
/// extra attributes into extra bytes (doubles) described by an extra-bytes VLR.
/// `known`: the input's FileInfo from an earlier open, so that the format is chosen before the
/// one reader that asks for the attributes opens it (a PLY file is read once per open).
std::uint64_t write_with_attributes(const fs::path& in, const simlod::FileInfo& known,
                                    const fs::path& out, const Options& opt) {
  simlod::ReaderOptions ro;
  ro.threads = opt.threads;
  ro.attributes = known.attributes;
  ro.all_extra_attributes = true;
  simlod::WriterOptions w;
  w.scale = scale_option(opt, w.scale);
  const bool nir = simlod::has_attribute(known.attributes, simlod::Attribute::Nir);
  if (opt.point_format >= 0) {
    w.las_point_format = opt.point_format;
  } else {
    w.las_point_format = nir && known.has_color ? 8 : known.has_color ? 7 : 6;
  }
  if (nir && !known.has_color && opt.point_format < 0) {
    warn("NIR is not kept: the LAS formats with NIR also hold RGB, which the input lacks");
    ro.attributes &= ~simlod::attribute_bit(simlod::Attribute::Nir);
  }
  const auto reader = simlod::open_reader(in, ro);
  const simlod::FileInfo& info = reader->info();
  w.origin = info.origin;
  const auto& extra = reader->extra_attributes_requested();
  w.las_record_length = static_cast<std::uint16_t>(
      simlod::las_min_record_length(w.las_point_format) + 8 * static_cast<int>(extra.size()));
  simlod::LasMetadata m;
  m.version_minor = 4;
  if (!extra.empty()) m.vlrs.push_back(extra_bytes_vlr(extra));
  w.las_metadata = m;
  auto writer = simlod::create_writer(out, w);
  ProgressBar progress("converting", info.point_count, progress_mode(opt));
  std::vector<simlod::Point> batch(
      static_cast<std::size_t>(std::clamp<std::uint64_t>(info.point_count, 1, opt.batch)));
  simlod::PointAttributes attributes;
  std::uint64_t done = 0;
  for (std::size_t n; (n = reader->read(batch, attributes)) > 0;) {
    writer->write_with_attributes(std::span(batch).first(n), attributes);
    done += n;
    progress.update(done);
  }
  writer->close();
  progress.finish();
  report.point_format_out = w.las_point_format;
  report.vlrs = m.vlrs.size();
  if (!opt.quiet && !opt.json) {
    std::string kept = simlod::attribute_names(reader->attributes_requested());
    for (const std::string& e : extra) kept += fmt::format("{}'{}'", kept.empty() ? "" : ", ", e);
    fmt::print("kept {} as point format {}\n", kept, w.las_point_format);
  }
  return done;
}

int run(const Options& opt) {
  const fs::path out = opt.files.back();
  // Fail before any work (a PLY input is read twice) on an output that cannot be written.
  if (simlod::format_from_extension(out) == simlod::FileFormat::Ply) {
    throw simlod::InvalidInput(
        fmt::format("'{}': writing PLY is not supported (write .las, .laz or .sim)", out.string()));
  }
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t written = 0;
  if (opt.synthetic > 0) {
    simlod::synth::SceneConfig config;
    config.points = opt.synthetic;
    config.seed = opt.seed;
    config.order =
        opt.order == "morton" ? simlod::synth::Order::Morton : simlod::synth::Order::Scan;
    simlod::synth::Generator generator(config);
    const auto wo = writer_options(opt, out, nullptr);
    if (opt.order == "random") {
      // The scan order shuffled: the whole scene in memory (16 bytes per point).
      std::vector<simlod::Point> all(opt.synthetic);
      for (std::size_t got = 0; got < all.size();)
        got += generator.next(std::span(all).subspan(got));
      simlod::synth::shuffle(all, opt.seed);
      std::size_t at = 0;
      written = write_all(
          [&](std::span<simlod::Point> b) {
            const std::size_t n = std::min(b.size(), all.size() - at);
            std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(at), n, b.begin());
            at += n;
            return n;
          },
          opt.synthetic, out, wo, opt);
    } else {
      written = write_all([&](std::span<simlod::Point> b) { return generator.next(b); },
                          opt.synthetic, out, wo, opt);
    }
  } else {
    const std::vector<fs::path> inputs =
        simlod::point_cloud_files({opt.files.begin(), opt.files.end() - 1});
    for (const fs::path& in : inputs) {
      std::error_code ec;
      if (fs::exists(out, ec) && fs::equivalent(in, out, ec)) {
        throw simlod::InvalidInput(
            fmt::format("'{}': input and output are the same file", in.string()));
      }
    }
    const bool las_out = is_las(simlod::format_from_extension(out));
    const bool all_las = std::all_of(inputs.begin(), inputs.end(), [](const fs::path& p) {
      return is_las(simlod::format_from_extension(p));
    });
    simlod::ReaderOptions ro;
    ro.threads = opt.threads;
    if (all_las && las_out) {
      written = copy_records(inputs, out, opt);
    } else {
      const fs::path& in = inputs.front();
      auto reader = simlod::open_reader(in, ro);
      const simlod::FileInfo info = reader->info();
      const bool has_attributes = info.attributes != 0 || !info.extra_attributes.empty();
      if (las_out && has_attributes && inputs.size() == 1) {
        reader.reset();
        written = write_with_attributes(in, info, out, opt);
      } else {
        // Points: every input relative to the first's origin, written with it added back.
        std::uint64_t total = 0;
        simlod::FileInfo merged = info;
        for (const fs::path& f : inputs) {
          const simlod::FileInfo i = f == in ? info : simlod::read_info(f);
          total += i.point_count;
          merged.has_color = merged.has_color || i.has_color;
          if (i.attributes != 0 || !i.extra_attributes.empty()) {
            std::string names = simlod::attribute_names(i.attributes);
            for (const auto& e : i.extra_attributes) names += (names.empty() ? "" : ", ") + e;
            warn(fmt::format(
                "'{}' is written from simlod points (XYZ and colour): {} of '{}' "
                "are not kept",
                out.string(),
                is_las(i.format) ? what_is_lost(i, simlod::read_las_metadata(f)) : names,
                f.string()));
          }
        }
        const auto wo = writer_options(opt, out, &merged);
        ro.origin = info.origin;
        std::size_t next = 0;
        written = write_all(
            [&](std::span<simlod::Point> b) -> std::size_t {
              for (;;) {
                if (const std::size_t n = reader->read(b); n > 0) return n;
                if (++next == inputs.size()) return 0;
                reader = simlod::open_reader(inputs[next], ro);
              }
            },
            total, out, wo, opt);
      }
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (opt.json) {
    using simlod::examples::json_string;
    std::string dropped, zeroed, warnings;
    for (const auto& [what, n] : report.loss.points) {
      dropped += fmt::format("{}{}: {}", dropped.empty() ? "" : ", ", json_string(what), n);
    }
    for (const auto& what : report.loss.zeroed) {
      zeroed += fmt::format("{}{}", zeroed.empty() ? "" : ", ", json_string(what));
    }
    for (const auto& w : report.warnings) {
      warnings += fmt::format("{}{}", warnings.empty() ? "" : ", ", json_string(w));
    }
    const auto format = [](int f) { return f >= 0 ? fmt::format("{}", f) : std::string("null"); };
    fmt::print(
        "{{\n  \"output\": {},\n  \"points\": {},\n  \"seconds\": {:.3f},\n  \"records_copied\": "
        "{},\n  \"point_format_in\": {},\n  \"point_format_out\": {},\n  \"vlrs_kept\": {},\n  "
        "\"dropped\": {{{}}},\n  \"zeroed\": [{}],\n  \"warnings\": [{}]\n}}\n",
        json_string(out.string()), written, s, report.records_copied,
        format(report.point_format_in), format(report.point_format_out), report.vlrs, dropped,
        zeroed, warnings);
  } else if (!opt.quiet) {
    fmt::print("wrote {} points to '{}' in {:.2f} s ({:.1f} M points/s)\n", written, out.string(),
               s, s > 0.0 ? static_cast<double>(written) / s / 1e6 : 0.0);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Converts point clouds between LAS, LAZ, SIM and PLY (input only), or writes a "
      "synthetic scene.",
      "simlod-convert"};
  Options opt;
  app.add_option("files", opt.files,
                 "IN... OUT (several inputs or folders are merged into OUT), or only OUT with "
                 "--synthetic")
      ->required()
      ->expected(1, -1);
  app.add_option("--synthetic", opt.synthetic, "Write a synthetic scene of N points to OUT")
      ->check(CLI::Range(std::uint64_t{1}, std::numeric_limits<std::uint64_t>::max()));
  app.add_option("--seed", opt.seed, "Seed of the synthetic scene")->capture_default_str();
  app.add_option(
         "--order", opt.order,
         "Point order of the synthetic scene (random: the scan order shuffled, held in memory)")
      ->check(CLI::IsMember({"scan", "morton", "random"}))
      ->capture_default_str();
  app.add_option("--scale", opt.scale,
                 "LAS/LAZ output: quantisation step, one value or SX,SY,SZ (default: the "
                 "input's scale for LAS/LAZ input, else 0.001)")
      ->delimiter(',')
      ->expected(1, 3)
      ->check(CLI::PositiveNumber);
  app.add_option("--point-format", opt.point_format,
                 "LAS/LAZ output: point data format 0-10 (default: LAS/LAZ input keeps its "
                 "format, every attribute and its VLRs; other input: 2 with colour, 0 without). "
                 "From LAS/LAZ input the records are converted and a warning names what the "
                 "format cannot hold; other input takes 0, 2, 6 or 7")
      ->check(CLI::Range(0, 10));
  app.add_option("--batch", opt.batch, "Points per batch")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100'000'000}))
      ->capture_default_str();
  app.add_option("--threads", opt.threads, "LAZ decoder threads (0: all hardware threads)")
      ->capture_default_str();
  app.add_flag("--progress", opt.progress, "Draw the progress bar even when stderr is no terminal");
  app.add_flag("-q,--quiet", opt.quiet, "No progress bar and no summary");
  app.add_flag("--json", opt.json,
               "Print the summary as JSON: points, whether the LAS records were copied, point "
               "formats, VLRs kept, what the output could not hold (points per attribute) and "
               "the warnings");

  try {
    app.parse(argc, argv);
    if (opt.synthetic > 0 ? opt.files.size() != 1 : opt.files.size() < 2) {
      throw CLI::ValidationError(opt.synthetic > 0 ? "with --synthetic give only OUT"
                                                   : "expected IN... OUT");
    }
    if (opt.scale.size() == 2) throw CLI::ValidationError("--scale takes 1 or 3 values");
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    return run(opt);
  } catch (const simlod::Error& e) {
    fmt::print(stderr, "simlod-convert: error: {}\n", e.what());
  } catch (const std::exception& e) {
    fmt::print(stderr, "simlod-convert: error: {}\n", e.what());
  }
  return 1;
}
