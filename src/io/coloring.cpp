// Colouring points by an attribute (simlod/coloring.hpp).
#include "simlod/coloring.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "simlod/detail/attribute_palette.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace simlod {

const char* to_string(ColorBy by) {
  switch (by) {
    case ColorBy::File: return "file";
    case ColorBy::Intensity: return "intensity";
    case ColorBy::Classification: return "classification";
    case ColorBy::Returns: return "returns";
    case ColorBy::PointSourceId: return "source";
  }
  return "unknown";
}

ColorBy color_by_from_string(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (n == "file") return ColorBy::File;
  if (n == "intensity") return ColorBy::Intensity;
  if (n == "classification") return ColorBy::Classification;
  if (n == "returns" || n == "return") return ColorBy::Returns;
  if (n == "source" || n == "point_source_id") return ColorBy::PointSourceId;
  throw InvalidInput(fmt::format(
      "'{}' is not an attribute colouring (file, intensity, classification, returns, source)",
      name));
}

AttributeMask attributes_for(ColorBy by) {
  switch (by) {
    case ColorBy::File: return 0;
    case ColorBy::Intensity: return attribute_bit(Attribute::Intensity);
    case ColorBy::Classification: return attribute_bit(Attribute::Classification);
    case ColorBy::Returns:
      return attribute_bit(Attribute::ReturnNumber) | attribute_bit(Attribute::NumberOfReturns);
    case ColorBy::PointSourceId: return attribute_bit(Attribute::PointSourceId);
  }
  return 0;
}

void ColorByOptions::validate() const {
  if (intensity_range) {
    const auto& r = *intensity_range;
    if (!std::isfinite(r[0]) || !std::isfinite(r[1]) || !(r[0] < r[1])) {
      throw InvalidInput(fmt::format(
          "ColorByOptions::intensity_range [{}, {}] must be finite and increasing", r[0], r[1]));
    }
  }
  if (!std::isfinite(intensity_gamma) || !(intensity_gamma > 0.0f)) {
    throw InvalidInput(
        fmt::format("ColorByOptions::intensity_gamma {} must be finite and > 0", intensity_gamma));
  }
}

void color_points(std::span<Point> points, const PointAttributes& a, const ColorByOptions& o) {
  if (o.by == ColorBy::File) return;
  o.validate();
  const AttributeMask need = attributes_for(o.by);
  for (std::size_t i = 0; i < kAttributeCount; ++i) {
    const auto at = static_cast<Attribute>(i);
    if (has_attribute(need, at) && a.size_of(at) < points.size()) {
      throw InvalidInput(fmt::format("colouring {} points by {} needs their {}, but {} were given",
                                     points.size(), to_string(o.by), to_string(at), a.size_of(at)));
    }
  }
  switch (o.by) {
    case ColorBy::Intensity: {
      if (points.empty()) break;
      const std::array<float, 2> range =
          o.intensity_range ? *o.intensity_range
                            : intensity_range(std::span(a.intensity).first(points.size()));
      const float lo = range[0];
      const float span = range[1] - lo;
      const bool linear = o.intensity_gamma == 1.0f;
      for (std::size_t i = 0; i < points.size(); ++i) {
        float t = std::clamp((static_cast<float>(a.intensity[i]) - lo) / span, 0.0f, 1.0f);
        if (!linear) t = std::pow(t, o.intensity_gamma);
        const auto g = static_cast<std::uint32_t>(std::lround(t * 255.0f));
        points[i].rgba = pack_rgba(g, g, g);
      }
      break;
    }
    case ColorBy::Classification:
      for (std::size_t i = 0; i < points.size(); ++i) {
        points[i].rgba = detail::classification_rgba(a.classification[i]);
      }
      break;
    case ColorBy::Returns:
      for (std::size_t i = 0; i < points.size(); ++i) {
        points[i].rgba = detail::returns_rgba(a.return_number[i], a.number_of_returns[i]);
      }
      break;
    case ColorBy::PointSourceId:
      for (std::size_t i = 0; i < points.size(); ++i) {
        points[i].rgba = detail::source_rgba(a.point_source_id[i]);
      }
      break;
    case ColorBy::File: break;
  }
}

std::array<float, 2> intensity_range(std::span<const std::uint16_t> values) {
  if (values.empty()) throw InvalidInput("intensity_range: no values");
  std::vector<std::uint16_t> v(values.begin(), values.end());
  auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return static_cast<float>(v[k]);
  };
  const float lo = at(0.01);
  const float hi = std::max(at(0.99), lo + 1.0f);
  return {lo, hi};
}

std::array<float, 2> sample_intensity_range(const std::vector<std::filesystem::path>& files,
                                            std::size_t samples) {
  std::vector<std::uint16_t> values;
  const std::size_t per_file =
      std::max<std::size_t>(1, samples / std::max<std::size_t>(1, files.size()));
  constexpr std::uint64_t kRuns = 16;
  for (const auto& path : files) {
    const FileInfo info = read_info(path);
    if (!has_attribute(info.attributes, Attribute::Intensity) || info.point_count == 0) continue;
    ReaderOptions options;
    options.threads = 1;
    options.attributes = attribute_bit(Attribute::Intensity);
    const auto reader = open_reader(path, options);
    const std::uint64_t count = info.point_count;
    const std::uint64_t step = info.seek_step;
    const std::uint64_t runs =
        step == 0 ? 1 : std::min<std::uint64_t>(kRuns, (count + step - 1) / step);
    const std::size_t run_points = std::max<std::size_t>(1, per_file / runs);
    std::vector<Point> points(run_points);
    PointAttributes a;
    for (std::uint64_t r = 0; r < runs; ++r) {
      if (step != 0) reader->seek(count * r / runs / step * step);
      const std::size_t n = reader->read(points, a);
      values.insert(values.end(), a.intensity.begin(),
                    a.intensity.begin() + static_cast<std::ptrdiff_t>(n));
    }
  }
  if (values.empty()) {
    throw InvalidInput(
        fmt::format("colouring by intensity: none of the {} file(s) has intensity", files.size()));
  }
  return intensity_range(values);
}

}  // namespace simlod
