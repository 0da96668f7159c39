// The seeds' triangulation for the DTM (core/terrain_dtm.cpp) and the object filter that runs
// on it (core/terrain_objects.cpp): CGAL's Delaunay triangulation with exact predicates, used
// header-only without GMP (CGAL_DISABLE_GMP, set by CMake for these files alone).
#pragma once

#if SIMLOD_HAS_CGAL
#include <CGAL/Delaunay_triangulation_2.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Triangulation_vertex_base_with_info_2.h>

#include <cstdint>
#include <vector>

namespace simlod::detail {

using TinKernel = CGAL::Exact_predicates_inexact_constructions_kernel;
/// Each vertex knows its index in the vertex list.
using TinVb = CGAL::Triangulation_vertex_base_with_info_2<std::uint32_t, TinKernel>;
using Tin = CGAL::Delaunay_triangulation_2<TinKernel, CGAL::Triangulation_data_structure_2<TinVb>>;

struct TinVertex {
  TinKernel::Point_2 xy;
  float z;
};

/// The triangulation of the vertices with keep[i] != 0, inserted in list order (the list is in
/// Hilbert order: short walks, and the same triangulation every run).
void triangulate(const std::vector<TinVertex>& vertices, const std::vector<std::uint8_t>& keep,
                 Tin& tin);

/// One pass of the object filter: the triangulation's edges that rise more than `step` and
/// steeper than 45 degrees cut it into regions; a region that every cut edge leaves downwards
/// and that spans at most `max_size` in x and y is an object (a roof, a car, a rock) and its
/// vertices get keep = 0. Returns the objects found; `removed` grows by their vertices.
std::uint64_t remove_objects(const std::vector<TinVertex>& vertices, const Tin& tin, double step,
                             double max_size, std::vector<std::uint8_t>& keep,
                             std::uint64_t& removed);

}  // namespace simlod::detail
#endif
