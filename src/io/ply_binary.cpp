// Binary little-endian PLY vertices: fixed-size records read in blocks with pread.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "io/ply_vertices.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {
namespace {

// Large enough to amortise the syscall, small enough to stay in L2.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;

class PlyBinarySource final : public PlyVertexSource {
 public:
  PlyBinarySource(const InputFile& file, const PlyHeader& header, const PlyVertexLayout& layout)
      : file_(file), layout_(layout), count_(header.elements[layout.element].count) {
    const std::string path = file.path().string();
    if (layout.record_bytes == 0) {
      throw InvalidInput(fmt::format("'{}': the PLY vertex element has no properties", path));
    }
    // Elements before the vertices are skipped by size, which needs fixed-size records.
    std::uint64_t offset = header.data_offset;
    for (std::size_t e = 0; e < layout.element; ++e) {
      const PlyElement& element = header.elements[e];
      if (const PlyProperty* list = element.first_list()) {
        throw InvalidInput(fmt::format(
            "'{}': PLY element '{}' comes before 'vertex' and has a list property '{}'; binary "
            "files with variable-size elements before the vertices are not supported",
            path, element.name, list->name));
      }
      const std::uint64_t bytes = element.record_bytes();
      if (bytes != 0 && element.count > (file.size() - std::min(offset, file.size())) / bytes) {
        throw InvalidInput(fmt::format(
            "'{}' is truncated: PLY element '{}' declares {} records of {} bytes at byte offset "
            "{} but the file has {} bytes",
            path, element.name, element.count, bytes, offset, file.size()));
      }
      offset += element.count * bytes;
    }
    start_ = offset;
    const std::uint64_t fit = (file.size() - offset) / layout.record_bytes;
    if (fit < count_) {
      throw InvalidInput(fmt::format(
          "'{}' is truncated: the PLY header declares {} vertices but the data from byte offset "
          "{} holds only {} complete {}-byte vertex records (file size {})",
          path, count_, offset, fit, layout.record_bytes, file.size()));
    }
  }

  void next(std::span<PlyVertex> out, std::span<double> scalars) override {
    const std::size_t k = scalars.empty() ? 0 : layout_.scalars.size();
    const std::size_t stride = layout_.record_bytes;
    const std::size_t per_block = std::max<std::size_t>(1, kBlockBytes / stride);
    std::size_t done = 0;
    while (done < out.size()) {
      const std::size_t n = std::min(per_block, out.size() - done);
      const std::uint64_t offset = start_ + next_ * stride;
      block_.resize(n * stride);
      file_.read_exact(offset, block_, "PLY vertex records");
      for (std::size_t i = 0; i < n; ++i) {
        const std::byte* record = block_.data() + i * stride;
        out[done + i] = decode(record, next_ + i, offset + i * stride);
        for (std::size_t j = 0; j < k; ++j) {
          const PlyField& f = layout_.scalars[j].field;
          scalars[(done + i) * k + j] = load_ply_value(record + f.offset, f.type);
        }
      }
      next_ += n;
      done += n;
    }
  }

 private:
  PlyVertex decode(const std::byte* record, std::uint64_t index, std::uint64_t offset) const {
    PlyVertex v;
    v.x = load_ply_value(record + layout_.xyz[0].offset, layout_.xyz[0].type);
    v.y = load_ply_value(record + layout_.xyz[1].offset, layout_.xyz[1].type);
    v.z = load_ply_value(record + layout_.xyz[2].offset, layout_.xyz[2].type);
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) {
      throw InvalidInput(
          fmt::format("'{}': vertex {} at byte offset {} has a non-finite coordinate ({}, {}, {})",
                      file_.path().string(), index, offset, v.x, v.y, v.z));
    }
    if (layout_.has_color) {
      std::uint32_t c[4] = {0, 0, 0, 255};
      for (std::size_t k = 0; k < 3; ++k) {
        const PlyField& f = layout_.rgb[k];
        c[k] = ply_color_channel(f.type, load_ply_value(record + f.offset, f.type));
      }
      if (layout_.has_alpha) {
        const PlyField& f = layout_.alpha;
        c[3] = ply_color_channel(f.type, load_ply_value(record + f.offset, f.type));
      }
      v.rgba = pack_rgba(c[0], c[1], c[2], c[3]);
    }
    return v;
  }

  const InputFile& file_;
  PlyVertexLayout layout_;
  std::uint64_t count_ = 0;
  std::uint64_t start_ = 0;  ///< byte offset of vertex 0
  std::uint64_t next_ = 0;   ///< index of the next vertex to decode
  std::vector<std::byte> block_;
};

}  // namespace

std::unique_ptr<PlyVertexSource> make_ply_binary_source(const InputFile& file,
                                                        const PlyHeader& header,
                                                        const PlyVertexLayout& layout) {
  return std::make_unique<PlyBinarySource>(file, header, layout);
}

}  // namespace simlod::detail
