// The results of simlod-compare: a table for the terminal and the same data as JSON.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/image_metrics.hpp"
#include "simlod/point.hpp"

namespace simlod::examples {

struct Score {
  double psnr = 0.0;  ///< dB; +infinity for identical images
  double ssim = 0.0;
};

struct ViewScores {
  std::string kind;  ///< "closeup" or "zoomedout"
  std::uint32_t index = 0;
  std::vector<Score> scores;  ///< per column, in CompareReport::modes order
};

struct CompareReport {
  std::string input, backend;
  std::uint64_t points = 0;
  std::uint32_t width = 0, height = 0;
  float lod = 0.0f;
  std::uint32_t leaf_points = 0;  ///< OctreeConfig::max_points_per_leaf
  /// Empty pixels of both images: dark grey, as simlod-render draws.
  std::uint32_t background = pack_rgba(24, 26, 32);
  SsimParams ssim;
  /// The columns: a sampling name per filter and builder, e.g. "first" (bulk builder) or
  /// "first-incremental" (compare_builders.hpp, column_name).
  std::vector<std::string> modes;
  std::vector<std::string> builders;  ///< "bulk", "incremental": the builders measured
  std::uint32_t batch = 0;            ///< points per batch of the incremental builder
  std::vector<ViewScores> views;
};

/// The mean score of mode `mode` over the views of one kind: the arithmetic mean of the PSNRs
/// in dB (+infinity when one is) and of the SSIMs.
Score mean_score(const CompareReport& report, const std::string& kind, std::size_t mode);

/// The parameters, one row per view and the means per kind, on stdout.
void print_table(const CompareReport& report);

/// The same as JSON (PSNR +infinity as null). Throws IoError when the file cannot be written.
void write_json(const CompareReport& report, const std::filesystem::path& path);

}  // namespace simlod::examples
