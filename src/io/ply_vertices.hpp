// Streaming vertex decoders for PLY data (binary little-endian and ASCII), used twice per file:
// once for the bounds pass and once for reading.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "io/file.hpp"
#include "io/ply_header.hpp"
#include "io/ply_layout.hpp"
#include "simlod/attributes.hpp"

namespace simlod::detail {

/// One vertex in file coordinates.
struct PlyVertex {
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;
  std::uint32_t rgba = kPlyDefaultColor;
};

class PlyVertexSource {
 public:
  virtual ~PlyVertexSource() = default;
  /// Decodes the next out.size() vertices; the caller never asks past the vertex count.
  /// Throws InvalidInput naming the vertex index and its place in the file (byte offset or
  /// line) for non-finite coordinates, malformed ASCII and missing data.
  void next(std::span<PlyVertex> out) { next(out, {}); }
  /// next(), and when `scalars` is not empty the layout's scalars of each vertex into it
  /// (out.size() x layout.scalars.size() values, vertex by vertex).
  virtual void next(std::span<PlyVertex> out, std::span<double> scalars) = 0;
};

// The two implementations (src/io/ply_binary.cpp, src/io/ply_ascii.cpp).
[[nodiscard]] std::unique_ptr<PlyVertexSource> make_ply_binary_source(
    const InputFile& file, const PlyHeader& header, const PlyVertexLayout& layout);
[[nodiscard]] std::unique_ptr<PlyVertexSource> make_ply_ascii_source(const InputFile& file,
                                                                     const PlyHeader& header,
                                                                     const PlyVertexLayout& layout);

/// Positions a decoder at the first vertex (skipping elements declared before it). Throws
/// InvalidInput up front when the binary data cannot hold the declared vertices, or when an
/// element before the vertices has list properties in a binary file (its size is unknown).
/// `file` must outlive the decoder.
[[nodiscard]] inline std::unique_ptr<PlyVertexSource> make_ply_vertex_source(
    const InputFile& file, const PlyHeader& header, const PlyVertexLayout& layout) {
  return header.encoding == PlyEncoding::Ascii ? make_ply_ascii_source(file, header, layout)
                                               : make_ply_binary_source(file, header, layout);
}

}  // namespace simlod::detail
