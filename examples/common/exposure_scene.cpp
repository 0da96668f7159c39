#include "common/exposure_scene.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "simlod/error.hpp"
#include "simlod/synth.hpp"

namespace simlod::examples {

namespace {

constexpr double kExtent = 200.0;  // metres; small enough that 10^6 points cover it densely
constexpr std::size_t kBoxes = 6;

using Rgb = std::array<double, 3>;

/// SplitMix64 (Steele et al.): integer arithmetic, the same sequence on every machine.
std::uint64_t next_u64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double uniform(std::uint64_t& state) {
  return static_cast<double>(next_u64(state) >> 11) * 0x1p-53;
}

/// A value in [0, 1) for an integer cell: texture variation that belongs to the place, so both
/// scans see the same texture.
double cell_hash(double cx, double cy, std::uint64_t salt) {
  std::uint64_t s = salt ^ (static_cast<std::uint64_t>(static_cast<std::int64_t>(cx)) * 73856093u) ^
                    (static_cast<std::uint64_t>(static_cast<std::int64_t>(cy)) * 19349663u << 20);
  return uniform(s);
}

double terrain(double x, double y) {
  return 3.0 * std::sin(x / 23.0) * std::cos(y / 31.0) + 1.5 * std::sin((x + 2.0 * y) / 47.0) +
         0.02 * x;
}

/// Lambert shading from a fixed sun, baked into the colours as in a photogrammetric texture.
double shade(double nx, double ny, double nz) {
  const double sun[3] = {0.45, 0.30, 0.84};  // high in the north-east
  const double len = std::sqrt(nx * nx + ny * ny + nz * nz) *
                     std::sqrt(sun[0] * sun[0] + sun[1] * sun[1] + sun[2] * sun[2]);
  const double lit = (sun[0] * nx + sun[1] * ny + sun[2] * nz) / len;
  return 0.5 + 0.5 * std::max(0.0, lit);
}

Rgb scale(const Rgb& c, double f) { return {c[0] * f, c[1] * f, c[2] * f}; }

Rgb terrain_colour(double x, double y, std::uint64_t seed) {
  const double gx = 3.0 / 23.0 * std::cos(x / 23.0) * std::cos(y / 31.0) +
                    1.5 / 47.0 * std::cos((x + 2.0 * y) / 47.0) + 0.02;
  const double gy = -3.0 / 31.0 * std::sin(x / 23.0) * std::sin(y / 31.0) +
                    3.0 / 47.0 * std::cos((x + 2.0 * y) / 47.0);
  const double light = shade(-gx, -gy, 1.0);
  const double rx = std::fmod(x, 50.0), ry = std::fmod(y, 50.0);
  if ((rx >= 23.0 && rx < 27.0) || (ry >= 23.0 && ry < 27.0)) {  // roads with dashed centre lines
    const bool line = (std::abs(rx - 25.0) < 0.15 && std::fmod(y, 6.0) < 3.0) ||
                      (std::abs(ry - 25.0) < 0.15 && std::fmod(x, 6.0) < 3.0);
    return scale(line ? Rgb{235, 232, 220} : Rgb{110, 110, 116}, light);
  }
  static constexpr std::array<Rgb, 6> fields{{{86, 125, 52},
                                              {122, 152, 62},
                                              {176, 154, 82},
                                              {132, 100, 62},
                                              {96, 112, 46},
                                              {196, 176, 104}}};
  const double fx = std::floor(x / 25.0), fy = std::floor(y / 25.0);
  const double h = cell_hash(fx, fy, seed);
  const Rgb& base = fields[static_cast<std::size_t>(h * fields.size())];
  const double along = h < 0.5 ? x : y;  // furrows run along x or y, per field
  const double furrow = 0.82 + 0.18 * (0.5 + 0.5 * std::sin(2.0 * std::numbers::pi * along / 2.5));
  const double grain = 0.9 + 0.2 * cell_hash(std::floor(x), std::floor(y), seed + 1);
  return scale(base, furrow * grain * light);
}

struct Box {
  double x0, y0, x1, y1, z0, z1;
  Rgb wall, roof;
  [[nodiscard]] bool covers(double x, double y) const {
    return x >= x0 && x <= x1 && y >= y0 && y <= y1;
  }
};

std::vector<Box> layout_boxes(std::uint64_t seed) {
  static constexpr std::array<Rgb, 4> walls{
      {{205, 195, 172}, {172, 94, 72}, {150, 160, 178}, {214, 204, 122}}};
  static constexpr std::array<Rgb, 3> roofs{{{152, 62, 50}, {92, 92, 98}, {60, 96, 70}}};
  std::uint64_t s = seed ^ 0x5DEECE66Dull;
  std::vector<Box> boxes;
  for (int attempt = 0; attempt < 500 && boxes.size() < kBoxes; ++attempt) {
    const double w = 14.0 + 16.0 * uniform(s), d = 14.0 + 16.0 * uniform(s);
    const double cx = w / 2 + 8 + (kExtent - w - 16) * uniform(s);
    const double cy = d / 2 + 8 + (kExtent - d - 16) * uniform(s);
    const double height = 6.0 + 14.0 * uniform(s);
    Box b{};
    b.x0 = cx - w / 2;
    b.x1 = cx + w / 2;
    b.y0 = cy - d / 2;
    b.y1 = cy + d / 2;
    b.wall = walls[next_u64(s) % walls.size()];
    b.roof = roofs[next_u64(s) % roofs.size()];
    const bool apart = std::none_of(boxes.begin(), boxes.end(), [&](const Box& o) {
      return b.x0 < o.x1 + 6 && o.x0 < b.x1 + 6 && b.y0 < o.y1 + 6 && o.y0 < b.y1 + 6;
    });
    if (!apart) continue;
    double ground = terrain(cx, cy);  // the walls reach below the lowest ground they stand on
    for (double fx : {0.0, 0.5, 1.0}) {
      for (double fy : {0.0, 0.5, 1.0}) {
        ground = std::min(ground, terrain(b.x0 + fx * w, b.y0 + fy * d));
      }
    }
    b.z0 = ground - 0.5;
    b.z1 = ground + height;
    boxes.push_back(b);
  }
  return boxes;
}

/// One sample of the surface: a position and its true colour (scan A's).
struct Sample {
  std::array<double, 3> p;
  Rgb colour;
};

Sample sample_box(const Box& b, int face, std::uint64_t& s) {
  const double u = uniform(s);
  if (face == 4) {  // roof, with tiles
    const double x = b.x0 + (b.x1 - b.x0) * u, y = b.y0 + (b.y1 - b.y0) * uniform(s);
    const double tiles = std::fmod(x - b.x0, 1.2) < 0.6 ? 1.0 : 0.85;
    return {{x, y, b.z1}, scale(b.roof, tiles * shade(0, 0, 1))};
  }
  // Faces 0-3: -y, +y, -x, +x; `along` runs along the wall, the height above its foot.
  const bool x_wall = face < 2;
  const double length = x_wall ? b.x1 - b.x0 : b.y1 - b.y0, along = length * u;
  const double x = x_wall ? b.x0 + along : (face == 2 ? b.x0 : b.x1);
  const double y = x_wall ? (face == 0 ? b.y0 : b.y1) : b.y0 + along;
  const double ground = std::max(b.z0, terrain(x, y));  // nothing is scanned under the ground
  const double z = ground + (b.z1 - ground) * uniform(s), v = z - b.z0;
  const bool window = std::fmod(along, 4.0) > 1.2 && std::fmod(along, 4.0) < 2.8 &&
                      std::fmod(v, 3.5) > 1.0 && std::fmod(v, 3.5) < 2.6 && v < b.z1 - b.z0 - 0.8;
  const double nx = x_wall ? 0.0 : (face == 2 ? -1.0 : 1.0);
  const double ny = x_wall ? (face == 0 ? -1.0 : 1.0) : 0.0;
  return {{x, y, z}, scale(window ? Rgb{55, 65, 88} : b.wall, shade(nx, ny, 0.0))};
}

std::uint32_t to_rgba(const Rgb& c) {
  auto channel = [](double v) {
    return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0, 255.0)));
  };
  return pack_rgba(channel(c[0]), channel(c[1]), channel(c[2]));
}

}  // namespace

ExposureScene exposure_scene(const ExposureSceneConfig& config) {
  if (config.points == 0) throw InvalidInput("the exposure scene needs at least one point");
  if (!(config.dark > 0.0 && config.dark <= 1.0)) {
    throw InvalidInput("the exposure scene's dark scan needs a brightness in (0, 1]");
  }
  const std::vector<Box> boxes = layout_boxes(config.seed);
  // Surfaces by area, so that every surface gets about the same density: terrain, then per box
  // its 4 walls (their full height counts, a little more than shows above ground) and roof.
  std::vector<double> cumulative;
  double area = kExtent * kExtent;
  for (const Box& b : boxes) area -= (b.x1 - b.x0) * (b.y1 - b.y0);
  cumulative.push_back(area);
  for (const Box& b : boxes) {
    const double w = b.x1 - b.x0, d = b.y1 - b.y0, h = b.z1 - b.z0;
    for (double a : {w * h, w * h, d * h, d * h, w * d}) cumulative.push_back(area += a);
  }
  ExposureScene scene;
  scene.points.resize(config.points);
  for (std::uint64_t i = 0; i < config.points; ++i) {
    std::uint64_t s = config.seed * 0xD1B54A32D192ED69ull ^ i;
    next_u64(s);  // decorrelates consecutive indices
    const double pick = uniform(s) * area;
    const auto surface = static_cast<std::size_t>(
        std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin());
    Sample sample;
    if (surface == 0 || surface > 5 * boxes.size()) {
      double x = 0, y = 0;
      do {  // terrain outside the buildings' footprints
        x = kExtent * uniform(s);
        y = kExtent * uniform(s);
      } while (
          std::any_of(boxes.begin(), boxes.end(), [&](const Box& b) { return b.covers(x, y); }));
      sample = {{x, y, terrain(x, y)}, terrain_colour(x, y, config.seed)};
    } else {
      sample = sample_box(boxes[(surface - 1) / 5], static_cast<int>((surface - 1) % 5), s);
    }
    const bool dark_scan = i % 2 == 1;
    Point& p = scene.points[i];
    p = {static_cast<float>(sample.p[0]), static_cast<float>(sample.p[1]),
         static_cast<float>(sample.p[2]),
         to_rgba(dark_scan ? scale(sample.colour, config.dark) : sample.colour)};
    scene.bounds.expand(p.x, p.y, p.z);
  }
  // Interleave the scans: a voxel's first-come colour is then either scan's, at random.
  synth::shuffle(scene.points, config.seed);
  return scene;
}

}  // namespace simlod::examples
