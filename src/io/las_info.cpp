#include "io/las_info.hpp"

#include <fmt/format.h>

#include <cmath>

#include "io/las_attributes.hpp"
#include "simlod/error.hpp"

namespace simlod::detail {

FileInfo make_las_file_info(const std::filesystem::path& path, const LasHeader& header,
                            FileFormat format, ColorSource color,
                            const std::optional<std::array<double, 3>>& origin) {
  FileInfo info;
  info.path = path;
  info.format = format;
  info.seek_step = 1;  // LAZ readers set their chunk size
  info.version = fmt::format("{}.{}", header.version_major, header.version_minor);
  info.point_format = header.point_format;
  info.record_length = header.record_length;
  info.point_count = header.point_count;
  info.bounds = header.bounds;
  info.scale = header.scale;
  info.offset = header.offset;
  info.origin = origin.value_or(header.bounds.min);
  info.has_color = las_format_has_rgb(header.point_format);
  // Describes the RGB fields only; files without RGB have no 16-bit colour fields.
  info.color_16bit = color == ColorSource::Rgb16;
  info.generator = header.generator;
  info.attributes = las_attributes(header.point_format);
  return info;
}

void check_reader_options(const std::filesystem::path& path, const ReaderOptions& options) {
  if (!options.origin) return;
  const auto& o = *options.origin;
  if (!std::isfinite(o[0]) || !std::isfinite(o[1]) || !std::isfinite(o[2])) {
    throw InvalidInput(fmt::format("'{}': ReaderOptions::origin ({}, {}, {}) must be finite",
                                   path.string(), o[0], o[1], o[2]));
  }
}

PointDecoder make_point_decoder(const FileInfo& info, ColorSource color) {
  PointDecoder decoder;
  decoder.scale = info.scale;
  decoder.offset = info.offset;
  decoder.origin = info.origin;
  decoder.color = color;
  return decoder;
}

}  // namespace simlod::detail
