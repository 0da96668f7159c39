// Trees: a trunk cylinder and a crown of ellipsoid blobs (broadleaf) or a cone (conifer).
#pragma once

#include "synth/rng.hpp"
#include "synth/scene.hpp"

namespace simlod::synth::detail {

enum class TreeKind { Broadleaf, Conifer };

/// Adds a tree standing on the ground at (x, y); sizes and colours come from `rng`.
void add_tree(Scene& scene, double x, double y, TreeKind kind, Rng& rng);

}  // namespace simlod::synth::detail
