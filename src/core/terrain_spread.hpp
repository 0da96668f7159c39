// The refinement's spread (core/terrain.cpp): cells the ground points did not set take the
// triangulation's height plus the correction (refined - triangulated) of the cells around them.
#pragma once

#include <cstdint>
#include <vector>

#include "simlod/terrain.hpp"

namespace simlod::detail {

/// `out` holds the refined heights where set[c] != 0 and `tin`'s elsewhere (same raster). The
/// corrections out - tin of the set cells are spread over the other cells by a push-pull
/// pyramid (2x2 means up, bilinear down, weights capped at 1), and those cells get tin plus
/// their spread correction. Cells where tin has no value keep none. Host code: both backends
/// give the same raster.
void spread_corrections(terrain::Raster& out, const terrain::Raster& tin,
                        const std::vector<std::uint8_t>& set);

}  // namespace simlod::detail
