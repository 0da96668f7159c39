// simlod::terrain: ground classification and terrain models (DTM) of airborne LiDAR.
//
// Seeds come from the Overlap Window Method (F. Munoz, R. Asenjo, A. Navarro, J. C. Cabaleiro,
// "CPU and GPU oriented optimizations for LiDAR data processing", J. Computational Science,
// 2024): square windows of side w stepping by o = (1 - O) w over the xy bounding box enlarged by
// w O; every window holding at least m points takes its lowest point; points taken by two or
// more windows are seeds. A B x B grid then adds the lowest point of every cell that holds points
// but no seed (gap filling). simlod's own steps after the paper: a DTM raster interpolated
// linearly over the Delaunay triangulation of the seeds (the paper's application uses thin-plate
// splines), and ground = points within a height tolerance of the DTM.
//
// Windows are half-open, [lo, hi) on both axes, for points and for whole cells alike (the
// paper's code uses open intervals for points and closed ones for tree nodes, which drops or
// double-counts points on grid lines). Window i of an axis starts at e(i) = lo - w O + i o and
// ends at e(i) + w, or at e(i + k) exactly when w / o is an integer k (within 1e-9), so that
// window and cell edges are the same numbers. Ties in z go to the lower point index, so the
// result is deterministic and identical on both backends.
//
// Coordinates, w, o, B, the DTM cell and the tolerance are in the same units (the file's CRS
// units: metres or feet). Seeds and flags are computed on the chosen backend; the
// triangulation and the raster run on the host (CGAL).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "simlod/attributes.hpp"
#include "simlod/backend.hpp"
#include "simlod/point.hpp"

namespace simlod::terrain {

struct GroundParams {
  Backend backend = Backend::Auto;
  double window = 10.0;  ///< w, side of a window (> 0)
  double overlap = 0.8;  ///< O in [0, 1): windows step by (1 - O) w on both axes
  /// m, the fewest points a window needs to take part; unset: floor(0.5 density w^2) with
  /// density = points / area of the xy bounding box (the paper's rule).
  std::optional<std::uint64_t> min_points;
  /// B, the gap-filling cell (the size of the largest building; 0 turns gap filling off).
  double gap_cell = 20.0;
  double dtm_cell = 1.0;   ///< side of a DTM raster cell (> 0)
  double tolerance = 0.5;  ///< a point within this height of the DTM is ground (>= 0)
  /// Low-outlier filter (0 = off): the lowest point of a cell of o x o is no seed candidate
  /// when it lies more than this far below the lowest point of each of its neighbouring
  /// cells that hold points (a single low point would otherwise be taken by up to
  /// (w / o)^2 windows and pull the DTM down into a pit).
  double low_outlier = 0.0;
  /// The DTM leaves out objects among the seeds (roofs, large rocks: windows wholly on a roof
  /// take its lowest point): regions of the seeds' triangulation that every edge leaving them
  /// descends by more than this and steeper than 45 degrees, no wider than gap_cell (B, the
  /// largest building; the window where B is 0). 0 turns the filter off. simlod's own step; the
  /// seeds themselves stay the paper's.
  double object_step = 2.5;
  /// Refinement passes of ground() (0: none), each a refine_dtm of the seeds' DTM with the
  /// ground points of the pass before, then the points classified again against it: every
  /// cell holding ground points takes their mean height, and the other cells are lifted or
  /// lowered by the corrections of the cells around them. simlod's own step: a TIN over seeds
  /// some metres apart cuts under convex ground, and each pass lets the ground points next to
  /// the cells already corrected in. Sparse seeds (large windows) need more passes.
  std::uint32_t refine = 8;
};

/// What the seed search did (counts over the points it did not skip).
struct SeedStats {
  std::uint64_t points = 0;   ///< points given
  std::uint64_t skipped = 0;  ///< noise (classes 7, 18) or withheld points, ignored
  std::uint32_t windows_x = 0;
  std::uint32_t windows_y = 0;
  std::uint64_t min_points = 0;    ///< m used
  double density = 0.0;            ///< points per unit area of the xy bounding box
  std::uint64_t windows_used = 0;  ///< windows holding at least m points
  std::uint64_t local_minima = 0;  ///< distinct points taken by at least one window
  std::uint64_t window_seeds = 0;  ///< points taken by two or more windows
  std::uint64_t gap_seeds = 0;     ///< seeds added by gap filling
  std::uint64_t low_outliers = 0;  ///< cell minima the low-outlier filter removed
  std::uint32_t cells_x = 0;       ///< index cells (strips between window edges) per axis
  std::uint32_t cells_y = 0;
  /// Milliseconds per phase: the copy of the points to the device (0 on the CPU), the
  /// bounding box, the index (cell counts and lowest points), windows and seeds, gap filling.
  /// CUDA phases are timed with events on the device.
  double upload_ms = 0.0, bounds_ms = 0.0, index_ms = 0.0, windows_ms = 0.0, gap_ms = 0.0;
  double total_ms = 0.0;  ///< wall clock of the whole call
};

/// The xy bounding box of the points a search used (point coordinates).
struct Extent2 {
  double min_x = 0.0, min_y = 0.0, max_x = 0.0, max_y = 0.0;
};

struct Seeds {
  std::vector<std::uint32_t> indices;  ///< point indices, ascending, each once
  Extent2 extent;
  SeedStats stats;
};

/// A raster over the xy plane in point coordinates. Row 0 is the northern (largest y) row, as
/// in GeoTIFF and ESRI ASCII grids: cell (row, col) covers x in [x0 + col cell, x0 + (col + 1)
/// cell) and y in [y0 - (row + 1) cell, y0 - row cell); its value is the height at its centre,
/// NaN where it has none.
struct Raster {
  std::uint32_t width = 0;   ///< columns
  std::uint32_t height = 0;  ///< rows
  double x0 = 0.0;           ///< west edge
  double y0 = 0.0;           ///< north edge
  double cell = 1.0;
  std::vector<float> values;  ///< row-major, width * height

  [[nodiscard]] float at(std::uint32_t row, std::uint32_t col) const {
    return values[static_cast<std::size_t>(row) * width + col];
  }
};

struct DtmStats {
  std::uint64_t vertices = 0;         ///< seeds in the triangulation (one per xy, the lowest)
  std::uint64_t objects = 0;          ///< regions the object filter removed
  std::uint64_t object_vertices = 0;  ///< their seeds
  std::uint64_t triangles = 0;        ///< finite Delaunay faces
  std::uint64_t extended = 0;         ///< cells past the triangulation's hull given a value
  std::uint64_t nodata = 0;           ///< cells left without a value (NaN)
  std::uint64_t refined = 0;          ///< cells the last refinement set from ground points
  double triangulate_ms = 0.0, raster_ms = 0.0;
};

struct GroundResult {
  Seeds seeds;
  Raster dtm;
  DtmStats dtm_stats;
  std::vector<std::uint8_t> ground;  ///< per point: 1 ground, 0 not (skipped points: 0)
  std::uint64_t ground_points = 0;
  double classify_ms = 0.0;  ///< both classifications (device time on CUDA)
  double refine_ms = 0.0;    ///< the ground sums of the refinement (device time on CUDA)
};

/// The skip mask of find_seeds and classify from a batch's attributes: 1 for noise (classes 7
/// and 18) and withheld points. Empty when the attributes hold neither array.
[[nodiscard]] std::vector<std::uint8_t> skip_mask(const PointAttributes& attributes);

/// The seeds of `points` (skip[i] != 0: point i is ignored; an empty span skips none). Throws
/// InvalidInput for bad parameters, a skip span of the wrong size, a non-finite coordinate
/// (naming the point), points that span no area in xy, more than 2^32 - 1 points or fewer points
/// than one window needs; CudaError / CapacityError from the device. Blocks until done.
[[nodiscard]] Seeds find_seeds(std::span<const Point> points, const GroundParams& params,
                               std::span<const std::uint8_t> skip = {});

/// The DTM raster over `extent` (cells of params.dtm_cell from extent.min_x / max_y), linear
/// over the Delaunay triangulation of the seed points (one per xy, the lowest). Cells past the
/// triangulation's hull (the data's edges, where windows rarely pick a point) take the mean of
/// their neighbours, ring by ring, up to max(window, gap_cell) away; cells farther off stay
/// NaN. Runs on the host. Throws InvalidInput
/// without seeds, for a raster of more than 2^31 cells, or where simlod was built without CGAL.
[[nodiscard]] Raster make_dtm(std::span<const Point> points, const Seeds& seeds,
                              const GroundParams& params, DtmStats* stats = nullptr);

/// The height of `dtm` at (x, y): bilinear between the four nearest cell centres that have a
/// value (weights renormalised over those), NaN where none has.
[[nodiscard]] double dtm_height(const Raster& dtm, double x, double y);

/// Per point 1 when |z - dtm_height(x, y)| <= params.tolerance, else 0 (skipped points: 0), on
/// params.backend. Throws InvalidInput for a skip span of the wrong size or an empty raster.
[[nodiscard]] std::vector<std::uint8_t> classify(std::span<const Point> points, const Raster& dtm,
                                                 const GroundParams& params,
                                                 std::span<const std::uint8_t> skip = {},
                                                 double* ms = nullptr);

/// `dtm` with every cell that holds points flagged in `ground` set to their mean height (sums
/// of thousandths of a unit, exact on both backends), on params.backend, and every other cell
/// with a value moved by the corrections (mean - dtm) of those cells spread to it: a push-pull
/// pyramid (2x2 weighted means up, bilinear back down) over the raster, so that a cell takes
/// the corrections of the nearest set cells (about 11 bytes a cell of host memory while it
/// runs). `refined` gets the number of set cells and `ms` the time of the sums. Throws InvalidInput
/// for spans of the wrong size or an empty raster.
[[nodiscard]] Raster refine_dtm(std::span<const Point> points, const Raster& dtm,
                                std::span<const std::uint8_t> ground, const GroundParams& params,
                                std::uint64_t* refined = nullptr, double* ms = nullptr);

/// find_seeds, make_dtm, classify, and params.refine times refine_dtm and classify again.
[[nodiscard]] GroundResult ground(std::span<const Point> points, const GroundParams& params,
                                  std::span<const std::uint8_t> skip = {});

/// True when make_dtm is available (simlod was built with CGAL).
[[nodiscard]] bool dtm_available();

}  // namespace simlod::terrain
