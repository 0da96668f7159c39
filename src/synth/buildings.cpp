#include "synth/buildings.hpp"

#include <algorithm>
#include <array>

#include "simlod/point.hpp"
#include "synth/tuning.hpp"

namespace simlod::synth::detail {
namespace {

// Maps a roof built in a frame whose ridge runs along x onto the real axes. Swapping x and y
// mirrors the geometry, so the two edge vectors swap too to keep normals pointing outward.
struct RoofFrame {
  bool along_x;
  Vec3 map(Vec3 p) const { return along_x ? p : Vec3{p.y, p.x, p.z}; }
  Shape quad(Vec3 o, Vec3 a, Vec3 b) const {
    return along_x ? make_quad(o, a, b) : make_quad(map(o), map(b), map(a));
  }
  Shape triangle(Vec3 o, Vec3 a, Vec3 b) const {
    return along_x ? make_triangle(o, a, b) : make_triangle(map(o), map(b), map(a));
  }
};

double lowest_ground(const Scene& scene, const Rect& r) {
  double low = 1e300;
  for (int j = 0; j <= 4; ++j) {
    for (int i = 0; i <= 4; ++i) {
      low = std::min(
          low, scene.terrain.land(lerp(r.x0, r.x1, i / 4.0), lerp(r.y0, r.y1, j / 4.0)).height);
    }
  }
  return low;
}

void add_gable_roof(Scene& scene, const BuildingSpec& spec, double eave_z) {
  const RoofFrame f{spec.ridge_along_x};
  // Footprint in the frame: x along the ridge, y across it.
  const Rect r = spec.ridge_along_x ? spec.footprint
                                    : Rect{spec.footprint.y0, spec.footprint.x0, spec.footprint.y1,
                                           spec.footprint.x1};
  const double w = r.x1 - r.x0;
  const double half = 0.5 * (r.y1 - r.y0);
  const double rise = spec.pitch * half;
  const double ov = kRoofOverhang;
  const double run = half + ov;
  const double z_low = eave_z - spec.pitch * ov;
  scene.add(f.quad({r.x0 - ov, r.y0 - ov, z_low}, {w + 2 * ov, 0, 0}, {0, run, spec.pitch * run}),
            Material::TiledRoof, spec.roof_rgba, spec.variant);
  scene.add(
      f.quad({r.x1 + ov, r.y1 + ov, z_low}, {-(w + 2 * ov), 0, 0}, {0, -run, spec.pitch * run}),
      Material::TiledRoof, spec.roof_rgba, spec.variant);
  scene.add(f.triangle({r.x0, r.y1, eave_z}, {0, -2 * half, 0}, {0, -half, rise}),
            Material::GableWall, spec.wall_rgba, spec.variant, kWallDensity);
  scene.add(f.triangle({r.x1, r.y0, eave_z}, {0, 2 * half, 0}, {0, half, rise}),
            Material::GableWall, spec.wall_rgba, spec.variant, kWallDensity);
}

}  // namespace

void add_building(Scene& scene, const BuildingSpec& spec) {
  const Rect& r = spec.footprint;
  const double z0 = lowest_ground(scene, r) - kFoundationDepth;
  const double h = spec.eave_height + kFoundationDepth;
  const double w = r.x1 - r.x0;
  const double d = r.y1 - r.y0;
  const Vec3 up{0, 0, h};
  // Walls, counter-clockwise seen from above, each with its outward normal a x b.
  scene.add(make_quad({r.x0, r.y0, z0}, {w, 0, 0}, up), Material::Wall, spec.wall_rgba,
            spec.variant, kWallDensity);
  scene.add(make_quad({r.x1, r.y0, z0}, {0, d, 0}, up), Material::Wall, spec.wall_rgba,
            spec.variant, kWallDensity);
  scene.add(make_quad({r.x1, r.y1, z0}, {-w, 0, 0}, up), Material::Wall, spec.wall_rgba,
            spec.variant, kWallDensity);
  scene.add(make_quad({r.x0, r.y1, z0}, {0, -d, 0}, up), Material::Wall, spec.wall_rgba,
            spec.variant, kWallDensity);
  const double eave_z = z0 + h;
  if (spec.roof == RoofKind::Flat) {
    scene.add(make_quad({r.x0, r.y0, eave_z}, {w, 0, 0}, {0, d, 0}), Material::FlatRoof,
              spec.roof_rgba, spec.variant);
  } else {
    add_gable_roof(scene, spec, eave_z);
  }
  scene.footprints.add(r);
}

std::uint32_t wall_colour(std::uint64_t pick) {
  static constexpr std::array<std::uint32_t, 8> kWalls{
      pack_rgba(226, 216, 194), pack_rgba(204, 192, 168), pack_rgba(172, 92, 70),
      pack_rgba(236, 234, 228), pack_rgba(158, 158, 162), pack_rgba(212, 182, 138),
      pack_rgba(190, 120, 95),  pack_rgba(220, 205, 160)};
  return kWalls[pick % kWalls.size()];
}

std::uint32_t roof_colour(std::uint64_t pick, RoofKind roof) {
  static constexpr std::array<std::uint32_t, 5> kTiles{
      pack_rgba(152, 62, 46), pack_rgba(122, 52, 40), pack_rgba(92, 72, 62), pack_rgba(72, 74, 82),
      pack_rgba(170, 86, 56)};
  static constexpr std::array<std::uint32_t, 3> kFlat{
      pack_rgba(140, 138, 134), pack_rgba(118, 118, 120), pack_rgba(160, 152, 140)};
  return roof == RoofKind::Flat ? kFlat[pick % kFlat.size()] : kTiles[pick % kTiles.size()];
}

}  // namespace simlod::synth::detail
