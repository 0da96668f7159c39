// The ESRI ASCII grid and the shaded-relief picture of a DTM (the GeoTIFF is in
// raster_geotiff.cpp).
#include "common/raster_writers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <numbers>

#include "common/partial_file.hpp"
#include "simlod/error.hpp"
#include "simlod/image.hpp"

namespace simlod::examples {
namespace {

/// `where` prefixes every message: "'file': " or "".
void check(const std::string& where, const terrain::Raster& r) {
  if (r.width == 0 || r.height == 0) {
    throw InvalidInput(
        fmt::format("{}the raster of {}x{} cells is empty", where, r.width, r.height));
  }
  const std::size_t cells = std::size_t{r.width} * r.height;
  if (r.values.size() != cells) {
    throw InvalidInput(fmt::format("{}a raster of {}x{} cells needs {} values but holds {}", where,
                                   r.width, r.height, cells, r.values.size()));
  }
  if (!std::isfinite(r.cell) || r.cell <= 0.0) {
    throw InvalidInput(fmt::format("{}the raster's cell size {} is not positive", where, r.cell));
  }
  if (!std::isfinite(r.x0) || !std::isfinite(r.y0)) {
    throw InvalidInput(
        fmt::format("{}the raster's corner ({}, {}) is not finite", where, r.x0, r.y0));
  }
}

std::string quoted(const std::filesystem::path& path) {
  return fmt::format("'{}': ", path.string());
}

void check_origin(const std::filesystem::path& path, const std::array<double, 3>& o) {
  if (!std::isfinite(o[0]) || !std::isfinite(o[1]) || !std::isfinite(o[2])) {
    throw InvalidInput(
        fmt::format("{}the origin ({}, {}, {}) is not finite", quoted(path), o[0], o[1], o[2]));
  }
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

/// A hypsometric tint: greens in the lowlands, browns higher up, white at the top.
struct Stop {
  double t, r, g, b;
};
constexpr Stop kRamp[] = {{0.0, 40, 110, 50},  {0.2, 105, 160, 75}, {0.4, 190, 190, 110},
                          {0.6, 180, 140, 85}, {0.8, 135, 95, 60},  {1.0, 250, 250, 250}};

// Share of the colour that shadow cannot take away: slopes facing away from the sun stay
// readable instead of turning black.
constexpr double kAmbient = 0.3;

std::array<double, 3> tint(double t) {
  const Stop* hi = std::begin(kRamp) + 1;
  while (hi + 1 != std::end(kRamp) && hi->t < t) ++hi;
  const Stop& lo = *(hi - 1);
  const double f = std::clamp((t - lo.t) / (hi->t - lo.t), 0.0, 1.0);
  return {lo.r + f * (hi->r - lo.r), lo.g + f * (hi->g - lo.g), lo.b + f * (hi->b - lo.b)};
}

std::vector<std::uint8_t> shade(const std::string& where, const terrain::Raster& r,
                                const HillshadeOptions& o) {
  check(where, r);
  if (!std::isfinite(o.azimuth) || !(o.altitude >= 0.0 && o.altitude <= 90.0) ||
      !std::isfinite(o.z_factor) || o.z_factor <= 0.0) {
    throw InvalidInput(fmt::format(
        "{}hillshade needs a finite azimuth, an altitude in [0, 90] and a positive z factor, got "
        "{}, {}, {}",
        where, o.azimuth, o.altitude, o.z_factor));
  }
  constexpr double kRad = std::numbers::pi / 180.0;
  const double zenith = (90.0 - o.altitude) * kRad;
  const double sun = (450.0 - o.azimuth) * kRad;  // mathematical angle, counter-clockwise from east
  float lo = INFINITY, hi = -INFINITY;
  for (const float v : r.values) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  const auto at = [&](std::int64_t row, std::int64_t col, double centre) {
    if (row < 0 || col < 0 || row >= r.height || col >= r.width) return centre;
    const float v = r.at(static_cast<std::uint32_t>(row), static_cast<std::uint32_t>(col));
    return std::isfinite(v) ? v * o.z_factor : centre;
  };
  std::vector<std::uint8_t> rgba(r.values.size() * 4, 0);
  for (std::int64_t row = 0; row < r.height; ++row) {
    for (std::int64_t col = 0; col < r.width; ++col) {
      const float height = r.at(static_cast<std::uint32_t>(row), static_cast<std::uint32_t>(col));
      if (!std::isfinite(height)) continue;  // transparent
      const double e = height * o.z_factor;
      // Horn's 3x3 window: a b c / d e f / g h i, row - 1 to the north.
      const double a = at(row - 1, col - 1, e), b = at(row - 1, col, e),
                   c = at(row - 1, col + 1, e), d = at(row, col - 1, e), f = at(row, col + 1, e),
                   g = at(row + 1, col - 1, e), h = at(row + 1, col, e),
                   i = at(row + 1, col + 1, e);
      const double dzdx = ((c + 2 * f + i) - (a + 2 * d + g)) / (8 * r.cell);
      const double dzdy = ((g + 2 * h + i) - (a + 2 * b + c)) / (8 * r.cell);
      const double slope = std::atan(std::hypot(dzdx, dzdy));
      const double aspect = std::atan2(dzdy, -dzdx);
      const double light =
          std::clamp(std::cos(zenith) * std::cos(slope) +
                         std::sin(zenith) * std::sin(slope) * std::cos(sun - aspect),
                     0.0, 1.0);
      const auto colour = tint(hi > lo ? (height - lo) / (hi - lo) : 0.0);
      const double k = kAmbient + (1.0 - kAmbient) * light;
      std::uint8_t* p = rgba.data() + (row * r.width + col) * 4;
      for (int ch = 0; ch < 3; ++ch) {
        p[ch] = static_cast<std::uint8_t>(std::lround(std::clamp(colour[ch] * k, 0.0, 255.0)));
      }
      p[3] = 255;
    }
  }
  return rgba;
}

}  // namespace

void check_raster(const std::filesystem::path& path, const terrain::Raster& raster) {
  check(quoted(path), raster);
}

void write_esri_ascii(const std::filesystem::path& path, const terrain::Raster& raster,
                      std::array<double, 3> origin) {
  check_raster(path, raster);
  check_origin(path, origin);
  PartialFile file(path);
  std::unique_ptr<std::FILE, FileCloser> out(std::fopen(file.partial().c_str(), "wb"));
  if (!out) {
    throw IoError(fmt::format("cannot create '{}': {}", path.string(), std::strerror(errno)));
  }
  fmt::memory_buffer text;
  fmt::format_to(std::back_inserter(text),
                 "ncols {}\nnrows {}\nxllcorner {}\nyllcorner {}\ncellsize {}\nNODATA_value {}\n",
                 raster.width, raster.height, origin[0] + raster.x0,
                 origin[1] + (raster.y0 - raster.height * raster.cell), raster.cell, kRasterNodata);
  const auto flush = [&] {
    if (std::fwrite(text.data(), 1, text.size(), out.get()) != text.size()) {
      throw IoError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
    }
    text.clear();
  };
  for (std::uint32_t row = 0; row < raster.height; ++row) {
    for (std::uint32_t col = 0; col < raster.width; ++col) {
      const float v = raster.at(row, col);
      if (col > 0) text.push_back(' ');
      // fmt prints a float as the shortest text that reads back as that float.
      if (std::isfinite(v)) {
        fmt::format_to(std::back_inserter(text), "{}", static_cast<float>(v + origin[2]));
      } else {
        fmt::format_to(std::back_inserter(text), "{}", kRasterNodata);
      }
    }
    text.push_back('\n');
    if (text.size() >= (1u << 20)) flush();
  }
  flush();
  if (std::fclose(out.release()) != 0) {
    throw IoError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  }
  file.commit();
}

std::vector<std::uint8_t> hillshade_rgba(const terrain::Raster& raster,
                                         const HillshadeOptions& options) {
  return shade("", raster, options);
}

void write_hillshade_png(const std::filesystem::path& path, const terrain::Raster& raster,
                         const HillshadeOptions& options) {
  // write_png writes a partial file and renames it itself.
  write_png(path, raster.width, raster.height, shade(quoted(path), raster, options));
}

}  // namespace simlod::examples
