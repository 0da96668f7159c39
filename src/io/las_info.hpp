// FileInfo and PointDecoder for LAS and LAZ files, built from a parsed header.
#pragma once

#include <array>
#include <filesystem>
#include <optional>

#include "io/las_format.hpp"
#include "io/las_header.hpp"
#include "simlod/io.hpp"

namespace simlod::detail {

/// Fills every FileInfo field from the header. `origin` defaults to the header's bounds minimum;
/// `color` is the result of sampling the file's records.
[[nodiscard]] FileInfo make_las_file_info(const std::filesystem::path& path,
                                          const LasHeader& header, FileFormat format,
                                          ColorSource color,
                                          const std::optional<std::array<double, 3>>& origin);

/// Checks reader options that apply to every LAS/LAZ file (a finite origin); throws
/// InvalidInput naming the file.
void check_reader_options(const std::filesystem::path& path, const ReaderOptions& options);

/// The decoder that turns this file's records into points relative to info.origin.
[[nodiscard]] PointDecoder make_point_decoder(const FileInfo& info, ColorSource color);

}  // namespace simlod::detail
