// The refinement's spread (core/terrain.cpp): cells the ground points did not set take the
// triangulation's height plus the correction (refined - triangulated) of the cells around them.
#pragma once

#include <cstdint>
#include <span>

#include "simlod/terrain.hpp"

namespace simlod::detail {

/// `out` holds the refined heights where counts[c] != 0 (the cell's ground points) and `tin`'s
/// elsewhere (same raster). The corrections out - tin of those set cells are spread over the other
/// cells by a push-pull pyramid (2x2 means up, bilinear down, weights capped at 1), and those cells
/// get tin plus their spread correction. Cells where tin has no value keep none. Host code: both
/// backends give the same raster.
void spread_corrections(terrain::Raster& out, const terrain::Raster& tin,
                        std::span<const std::uint32_t> counts);

}  // namespace simlod::detail
