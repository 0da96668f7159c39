// PLY reader. PLY headers carry no bounds, so opening a file (and read_ply_info) makes one
// streaming pass over the vertices to compute them: the caller needs bounds before the first
// batch to choose the origin and the octree cube. That pass also validates every vertex, so
// bad data is reported before any point is returned.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "io/file.hpp"
#include "io/formats.hpp"
#include "io/ply_header.hpp"
#include "io/ply_layout.hpp"
#include "io/ply_vertices.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

constexpr std::size_t kScratchVertices = 64 * 1024;

struct PlyFile {
  PlyHeader header;
  PlyVertexLayout layout;
  FileInfo info;
};

// Header, layout and the bounds pass; the origin is left at 0 (PLY's default).
PlyFile scan_ply(const InputFile& file) {
  PlyFile ply;
  ply.header = read_ply_header(file);
  ply.layout = make_vertex_layout(ply.header, file.path());
  const std::uint64_t count = ply.header.elements[ply.layout.element].count;
  if (count == 0) {
    throw InvalidInput(fmt::format("'{}': the PLY file has no vertices", file.path().string()));
  }

  FileInfo& info = ply.info;
  info.path = file.path();
  info.format = FileFormat::Ply;
  info.version = ply.header.format;
  info.record_length = ply.header.encoding == PlyEncoding::Ascii ? 0u : ply.layout.record_bytes;
  info.point_count = count;
  info.has_color = ply.layout.has_color;
  info.color_16bit = ply.layout.color_16bit;
  info.generator = ply.header.comment;

  const auto source = make_ply_vertex_source(file, ply.header, ply.layout);
  std::vector<PlyVertex> scratch(
      static_cast<std::size_t>(std::min<std::uint64_t>(count, kScratchVertices)));
  for (std::uint64_t done = 0; done < count;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(scratch.size(), count - done));
    source->next(std::span(scratch).first(n));
    for (std::size_t i = 0; i < n; ++i) {
      info.bounds.expand(scratch[i].x, scratch[i].y, scratch[i].z);
    }
    done += n;
  }
  return ply;
}

class PlyReader final : public PointReader {
 public:
  PlyReader(InputFile file, const ReaderOptions& options) : file_(std::move(file)) {
    PlyFile ply = scan_ply(file_);
    info_ = std::move(ply.info);
    info_.origin = options.origin.value_or(std::array<double, 3>{0.0, 0.0, 0.0});
    source_ = make_ply_vertex_source(file_, ply.header, ply.layout);
  }

 protected:
  std::size_t read_impl(std::span<Point> out, std::span<std::byte> /*records*/) override {
    const auto& o = info_.origin;
    for (std::size_t done = 0; done < out.size();) {
      const std::size_t n = std::min(kScratchVertices, out.size() - done);
      scratch_.resize(n);
      source_->next(scratch_);
      for (std::size_t i = 0; i < n; ++i) {
        const PlyVertex& v = scratch_[i];
        out[done + i] = Point{static_cast<float>(v.x - o[0]), static_cast<float>(v.y - o[1]),
                              static_cast<float>(v.z - o[2]), v.rgba};
      }
      done += n;
    }
    return out.size();
  }

 private:
  InputFile file_;
  std::unique_ptr<PlyVertexSource> source_;
  std::vector<PlyVertex> scratch_;
};

}  // namespace

std::unique_ptr<PointReader> open_ply_reader(const std::filesystem::path& path,
                                             const ReaderOptions& options) {
  return std::make_unique<PlyReader>(InputFile(path), options);
}

FileInfo read_ply_info(const std::filesystem::path& path) {
  const InputFile file(path);
  return scan_ply(file).info;
}

}  // namespace simlod::detail
