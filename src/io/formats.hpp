// Per-format entry points behind open_reader / read_info / create_writer (src/io/open.cpp).
#pragma once

#include <filesystem>
#include <memory>

#include "simlod/io.hpp"

namespace simlod::detail {

// LAS 1.0-1.4, point formats 0-10 (src/io/las_*.cpp).
std::unique_ptr<PointReader> open_las_reader(const std::filesystem::path&, const ReaderOptions&);
FileInfo read_las_info(const std::filesystem::path&);
std::unique_ptr<PointWriter> create_las_writer(const std::filesystem::path&, const WriterOptions&);

// LAZ through LASzip (src/io/laz/, or src/io/no_laz/ when LASzip is absent: clear errors).
std::unique_ptr<PointReader> open_laz_reader(const std::filesystem::path&, const ReaderOptions&);
FileInfo read_laz_info(const std::filesystem::path&);
/// read_laz_info without sampling colours (which decodes the first chunk): has_color and
/// color_16bit only say whether the point format has RGB.
FileInfo read_laz_layout(const std::filesystem::path&);
std::unique_ptr<PointWriter> create_laz_writer(const std::filesystem::path&, const WriterOptions&);

// SIM (src/io/sim_*.cpp).
std::unique_ptr<PointReader> open_sim_reader(const std::filesystem::path&, const ReaderOptions&);
FileInfo read_sim_info(const std::filesystem::path&);
std::unique_ptr<PointWriter> create_sim_writer(const std::filesystem::path&, const WriterOptions&);

// PLY, binary little-endian and ASCII (src/io/ply_*.cpp).
std::unique_ptr<PointReader> open_ply_reader(const std::filesystem::path&, const ReaderOptions&);
FileInfo read_ply_info(const std::filesystem::path&);

/// What a stream needs before loading (count, bounds, seek step): read_info(), except that
/// LAZ colours are not sampled (read_laz_layout), so a folder of LAZ tiles opens without
/// decoding a chunk of each.
FileInfo read_stream_info(const std::filesystem::path&);

}  // namespace simlod::detail
