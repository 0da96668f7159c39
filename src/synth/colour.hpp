// Plausible colours with the lighting baked in, as photogrammetry delivers them: grass, soil,
// rock, sand and water on the terrain, streets and paving in town, facades with windows, roof
// tiles, foliage, and a brightly coloured sculpture.
#pragma once

#include <cstdint>

#include "synth/rng.hpp"
#include "synth/scene.hpp"

namespace simlod::synth::detail {

/// Colour of a terrain point; `land` is the ground under it, `water` whether the lake covers it.
std::uint32_t terrain_colour(const Scene& scene, double x, double y, const HeightSample& land,
                             bool water, Vec3 normal, Rng& rng);

/// Colour of a point at (u, v) on a primitive.
std::uint32_t surface_colour(const Primitive& primitive, double u, double v,
                             const SurfacePoint& point, Rng& rng);

}  // namespace simlod::synth::detail
