// PLY reader. PLY headers carry no bounds, so opening a file (and read_ply_info) makes one
// streaming pass over the vertices to compute them: the caller needs bounds before the first
// batch to choose the origin and the octree cube. That pass also validates every vertex, so
// bad data is reported before any point is returned.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
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
  for (const PlyScalar& scalar : ply.layout.scalars) {
    if (scalar.attribute >= 0) {
      info.attributes |= attribute_bit(static_cast<Attribute>(scalar.attribute));
    } else {
      info.extra_attributes.push_back(scalar.name);
    }
  }

  // A float intensity is read as 0..1 when every value lies there: the pass finds out.
  PlyScalar* float_intensity = nullptr;
  for (PlyScalar& s : ply.layout.scalars) {
    const bool is_float = s.field.type == PlyType::Float32 || s.field.type == PlyType::Float64;
    if (s.attribute == static_cast<int>(Attribute::Intensity) && is_float) float_intensity = &s;
  }
  const std::size_t k = ply.layout.scalars.size();
  bool unit_range = true;
  const auto source = make_ply_vertex_source(file, ply.header, ply.layout);
  std::vector<PlyVertex> scratch(
      static_cast<std::size_t>(std::min<std::uint64_t>(count, kScratchVertices)));
  std::vector<double> values(float_intensity != nullptr ? scratch.size() * k : 0);
  for (std::uint64_t done = 0; done < count;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(scratch.size(), count - done));
    source->next(std::span(scratch).first(n), std::span(values).first(values.empty() ? 0 : n * k));
    for (std::size_t i = 0; i < n; ++i) {
      info.bounds.expand(scratch[i].x, scratch[i].y, scratch[i].z);
    }
    if (float_intensity != nullptr) {
      const std::size_t j = static_cast<std::size_t>(float_intensity - ply.layout.scalars.data());
      for (std::size_t i = 0; i < n; ++i) {
        const double v = values[i * k + j];
        unit_range = unit_range && !(v < 0.0 || v > 1.0);
      }
    }
    done += n;
  }
  if (float_intensity != nullptr && unit_range) float_intensity->scale = 65535.0;
  return ply;
}

class PlyReader final : public PointReader {
 public:
  PlyReader(InputFile file, const ReaderOptions& options) : file_(std::move(file)) {
    PlyFile ply = scan_ply(file_);
    info_ = std::move(ply.info);
    info_.origin = options.origin.value_or(std::array<double, 3>{0.0, 0.0, 0.0});
    source_ = make_ply_vertex_source(file_, ply.header, ply.layout);
    layout_ = std::move(ply.layout);
    accept_attribute_request(options);
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

  std::size_t read_attributes_impl(std::span<Point> out, PointAttributes& a) override {
    const auto& o = info_.origin;
    const std::size_t k = layout_.scalars.size();
    const AttributeMask wanted = attributes_requested();
    // Which extra attribute (index into a.extra) each scalar feeds, -1 for none.
    std::vector<int> extra_slot(k, -1);
    for (std::size_t j = 0; j < k; ++j) {
      const auto& names = extra_attributes_requested();
      const auto it = std::find(names.begin(), names.end(), layout_.scalars[j].name);
      if (layout_.scalars[j].attribute < 0 && it != names.end()) {
        extra_slot[j] = static_cast<int>(it - names.begin());
      }
    }
    for (std::size_t done = 0; done < out.size();) {
      const std::size_t n = std::min(kScratchVertices, out.size() - done);
      scratch_.resize(n);
      values_.resize(n * std::max<std::size_t>(k, 1));
      source_->next(scratch_, values_);
      for (std::size_t i = 0; i < n; ++i) {
        const PlyVertex& v = scratch_[i];
        out[done + i] = Point{static_cast<float>(v.x - o[0]), static_cast<float>(v.y - o[1]),
                              static_cast<float>(v.z - o[2]), v.rgba};
        for (std::size_t j = 0; j < k; ++j) {
          const double value = values_[i * k + j] * layout_.scalars[j].scale;
          const int attribute = layout_.scalars[j].attribute;
          if (attribute >= 0 && has_attribute(wanted, static_cast<Attribute>(attribute))) {
            store_attribute(a, static_cast<Attribute>(attribute), done + i, value);
          } else if (extra_slot[j] >= 0) {
            a.extra[static_cast<std::size_t>(extra_slot[j])].values[done + i] = value;
          }
        }
      }
      done += n;
    }
    return out.size();
  }

 private:
  /// A PLY value as attribute `attribute` of point i: integers rounded and clamped to the
  /// attribute's range (NaN: 0), the scan angle and GPS time as they are.
  static void store_attribute(PointAttributes& a, Attribute attribute, std::size_t i,
                              double value) {
    auto integer = [value](double max) {
      return value > 0.0 ? std::min(std::round(value), max) : 0.0;  // NaN fails > 0
    };
    switch (attribute) {
      case Attribute::Intensity:
        a.intensity[i] = static_cast<std::uint16_t>(integer(65535.0));
        break;
      case Attribute::ReturnNumber:
        a.return_number[i] = static_cast<std::uint8_t>(integer(15.0));
        break;
      case Attribute::NumberOfReturns:
        a.number_of_returns[i] = static_cast<std::uint8_t>(integer(15.0));
        break;
      case Attribute::Classification:
        a.classification[i] = static_cast<std::uint8_t>(integer(255.0));
        break;
      case Attribute::ClassificationFlags:
        a.classification_flags[i] = static_cast<std::uint8_t>(integer(15.0));
        break;
      case Attribute::ScannerChannel:
        a.scanner_channel[i] = static_cast<std::uint8_t>(integer(3.0));
        break;
      case Attribute::ScanFlags: a.scan_flags[i] = static_cast<std::uint8_t>(integer(3.0)); break;
      case Attribute::ScanAngle: a.scan_angle[i] = static_cast<float>(value); break;
      case Attribute::UserData: a.user_data[i] = static_cast<std::uint8_t>(integer(255.0)); break;
      case Attribute::PointSourceId:
        a.point_source_id[i] = static_cast<std::uint16_t>(integer(65535.0));
        break;
      case Attribute::GpsTime: a.gps_time[i] = value; break;
      case Attribute::Nir: a.nir[i] = static_cast<std::uint16_t>(integer(65535.0)); break;
    }
  }

  InputFile file_;
  std::unique_ptr<PlyVertexSource> source_;
  PlyVertexLayout layout_;
  std::vector<PlyVertex> scratch_;
  std::vector<double> values_;
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
