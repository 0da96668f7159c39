#include "common/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "common/json.hpp"
#include "simlod/error.hpp"

namespace simlod::examples {

namespace {

std::string psnr_text(double psnr) {
  return std::isfinite(psnr) ? fmt::format("{:.2f}", psnr) : std::string("inf");
}

std::string score_json(const Score& s) {
  return fmt::format("{{\"psnr\": {}, \"ssim\": {}}}", json_number(s.psnr), json_number(s.ssim));
}

/// ["a", "b"]
std::string strings_json(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + json_string(s);
  return "[" + out + "]";
}

/// {"first": {...}, "random": {...}} for one view or one mean.
template <typename ScoreOf>
std::string modes_json(const CompareReport& r, ScoreOf score_of) {
  std::string out = "{";
  for (std::size_t m = 0; m < r.modes.size(); ++m) {
    out += fmt::format("{}{}: {}", m ? ", " : "", json_string(r.modes[m]), score_json(score_of(m)));
  }
  return out + "}";
}

constexpr std::array<const char*, 2> kKinds{"closeup", "zoomedout"};

}  // namespace

Score mean_score(const CompareReport& report, const std::string& kind, std::size_t mode) {
  Score sum;
  std::size_t n = 0;
  for (const ViewScores& v : report.views) {
    if (v.kind != kind || mode >= v.scores.size()) continue;
    sum.psnr += v.scores[mode].psnr;  // one identical pair makes the mean +infinity
    sum.ssim += v.scores[mode].ssim;
    ++n;
  }
  if (n == 0)
    return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  return {sum.psnr / n, sum.ssim / n};
}

void print_table(const CompareReport& r) {
  fmt::print("simlod-compare: {} points ({}), {} backend, {}x{}, LOD {} px, leaves of {} points\n",
             r.points, r.input, r.backend, r.width, r.height, r.lod, r.leaf_points);
  fmt::print(
      "  reference: every point (LOD threshold 0); both images in high quality, background "
      "rgb({}, {}, {})\n",
      red_of(r.background), green_of(r.background), blue_of(r.background));
  fmt::print(
      "  PSNR over RGB, peak 255; SSIM: {}x{} Gaussian window, sigma {}, K1 {}, K2 {}, "
      "L {}, valid windows, mean of R, G, B\n",
      r.ssim.window, r.ssim.window, r.ssim.sigma, r.ssim.k1, r.ssim.k2, r.ssim.range);
  for (const std::string& b : r.builders) {
    fmt::print("  builder: {}\n",
               b == "bulk" ? std::string("bulk (Octree::build)")
                           : fmt::format("{} (Octree::create, insert and update per batch of {} "
                                         "points, finalize; columns <filter>-{})",
                                         b, r.batch, b));
  }
  // Every column as wide as its longest name, and at least as "PSNR" and "SSIM" with numbers.
  std::size_t width = 14;
  for (const std::string& m : r.modes) width = std::max(width, m.size());
  std::string head = fmt::format("{:<16}", ""), sub = fmt::format("{:<16}", "view");
  for (const std::string& m : r.modes) {
    head += fmt::format("  {:>{}}", m, width);
    sub += fmt::format("  {:>{}} {:>6}", "PSNR", width - 7, "SSIM");
  }
  fmt::print("{}\n{}\n", head, sub);
  const auto row = [&](const std::string& label, const auto& score_of) {
    std::string line = fmt::format("{:<16}", label);
    for (std::size_t m = 0; m < r.modes.size(); ++m) {
      const Score s = score_of(m);
      line += fmt::format("  {:>{}} {:>6.4f}", psnr_text(s.psnr), width - 7, s.ssim);
    }
    fmt::print("{}\n", line);
  };
  for (const ViewScores& v : r.views) {
    row(fmt::format("{} {}", v.kind, v.index), [&](std::size_t m) { return v.scores.at(m); });
  }
  for (const char* kind : kKinds) {
    row(fmt::format("mean {}", kind), [&](std::size_t m) { return mean_score(r, kind, m); });
  }
}

void write_json(const CompareReport& r, const std::filesystem::path& path) {
  std::string out = "{\n";
  out += fmt::format("  \"input\": {},\n  \"points\": {},\n  \"backend\": {},\n",
                     json_string(r.input), r.points, json_string(r.backend));
  out += fmt::format(
      "  \"width\": {},\n  \"height\": {},\n  \"lod\": {},\n  \"leaf_points\": {},\n"
      "  \"quality\": \"high\",\n  \"background\": [{}, {}, {}],\n",
      r.width, r.height, json_number(r.lod), r.leaf_points, red_of(r.background),
      green_of(r.background), blue_of(r.background));
  out += fmt::format(
      "  \"ssim\": {{\"window\": {}, \"sigma\": {}, \"k1\": {}, \"k2\": {}, \"range\": {}}},\n",
      r.ssim.window, json_number(r.ssim.sigma), json_number(r.ssim.k1), json_number(r.ssim.k2),
      json_number(r.ssim.range));
  out += fmt::format("  \"builders\": {},\n", strings_json(r.builders));
  if (r.batch > 0) out += fmt::format("  \"batch\": {},\n", r.batch);
  out += fmt::format("  \"modes\": {},\n  \"views\": [\n", strings_json(r.modes));
  for (std::size_t i = 0; i < r.views.size(); ++i) {
    const ViewScores& v = r.views[i];
    out +=
        fmt::format("    {{\"kind\": {}, \"index\": {}, \"scores\": {}}}{}\n", json_string(v.kind),
                    v.index, modes_json(r, [&](std::size_t m) { return v.scores.at(m); }),
                    i + 1 < r.views.size() ? "," : "");
  }
  out += "  ],\n  \"means\": {";
  for (std::size_t k = 0; k < kKinds.size(); ++k) {
    const std::string kind = kKinds[k];
    out += fmt::format("{}\n    {}: {}", k ? "," : "", json_string(kind),
                       modes_json(r, [&](std::size_t m) { return mean_score(r, kind, m); }));
  }
  out += "\n  }\n}\n";
  std::ofstream file(path);
  file << out;
  file.close();  // the data reaches the disk (or fails, e.g. when it is full) here
  if (!file) {
    throw IoError(
        fmt::format("'{}': cannot write the results: {}", path.string(), std::strerror(errno)));
  }
}

}  // namespace simlod::examples
