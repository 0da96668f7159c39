// Format dispatch for the public I/O entry points.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <system_error>
#include <vector>

#include "io/atomic_writer.hpp"
#include "io/formats.hpp"
#include "io/las_format.hpp"
#include "simlod/error.hpp"
#include "simlod/io.hpp"

namespace simlod {

const char* to_string(FileFormat format) {
  switch (format) {
    case FileFormat::Las: return "LAS";
    case FileFormat::Laz: return "LAZ";
    case FileFormat::Sim: return "SIM";
    case FileFormat::Ply: return "PLY";
  }
  return "unknown";
}

FileFormat format_from_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".las") return FileFormat::Las;
  if (ext == ".laz") return FileFormat::Laz;
  if (ext == ".sim") return FileFormat::Sim;
  if (ext == ".ply") return FileFormat::Ply;
  throw InvalidInput(
      fmt::format("'{}': unknown point-cloud format '{}' (expected .las, .laz, .sim or .ply)",
                  path.string(), ext.empty() ? std::string("no extension") : ext));
}

std::vector<std::filesystem::path> point_cloud_files(
    const std::vector<std::filesystem::path>& paths) {
  if (paths.empty()) throw InvalidInput("no file or folder given");
  auto is_point_cloud = [](const std::filesystem::path& path) {
    try {
      (void)format_from_extension(path);
      return true;
    } catch (const InvalidInput&) {
      return false;
    }
  };
  std::vector<std::filesystem::path> files;
  for (const auto& path : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      std::vector<std::filesystem::path> found;
      for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
        if (entry.is_regular_file() && is_point_cloud(entry.path())) found.push_back(entry.path());
      }
      if (ec) {
        throw IoError(fmt::format("'{}': cannot list the folder: {}", path.string(), ec.message()));
      }
      if (found.empty()) {
        throw InvalidInput(
            fmt::format("'{}': the folder holds no .las, .laz, .sim or .ply file", path.string()));
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (std::filesystem::exists(path, ec)) {
      files.push_back(path);
    } else {
      throw InvalidInput(fmt::format("'{}': no such file or folder", path.string()));
    }
  }
  return files;
}

int las_min_record_length(int point_format) {
  if (point_format < 0 || point_format > detail::kLasMaxPointFormat) {
    throw InvalidInput(fmt::format("{} is not a LAS point format (0-10)", point_format));
  }
  return detail::kLasMinRecordLength[static_cast<std::size_t>(point_format)];
}

void PointReader::check_records(std::size_t points, std::size_t bytes) const {
  if (info_.format != FileFormat::Las && info_.format != FileFormat::Laz) {
    throw InvalidInput(fmt::format("'{}': a {} file has no LAS point records to read",
                                   info_.path.string(), to_string(info_.format)));
  }
  const std::uint64_t need = std::uint64_t{points} * info_.record_length;
  if (bytes < need) {
    throw InvalidInput(
        fmt::format("'{}': the records of {} points need {} bytes ({} a record), the span holds {}",
                    info_.path.string(), points, need, info_.record_length, bytes));
  }
}

void PointWriter::write_records(std::span<const std::byte> /*records*/) {
  throw InvalidInput(
      "write_records() takes LAS point records; only LAS and LAZ writers write them");
}

void PointWriter::write_with_attributes(std::span<const Point> points,
                                        const PointAttributes& attributes) {
  if (attributes.present() != 0 || !attributes.extra.empty()) {
    throw InvalidInput(fmt::format("this writer keeps no attributes ({} given); LAS and LAZ do",
                                   attribute_names(attributes.present())));
  }
  write(points);
}

void PointReader::seek(std::uint64_t index) {
  if (index == points_read_) return;
  if (index > info_.point_count) {
    throw InvalidInput(fmt::format("'{}': cannot seek to point {}: the file holds {} points",
                                   info_.path.string(), index, info_.point_count));
  }
  if (info_.seek_step == 0) {
    throw InvalidInput(fmt::format(
        "'{}': {} files of this kind can only be read in order (cannot seek to point {})",
        info_.path.string(), to_string(info_.format), index));
  }
  points_read_ = index;  // every reader reads from points_read(); LAZ handles seek themselves
}

std::unique_ptr<PointReader> open_reader(const std::filesystem::path& path,
                                         const ReaderOptions& options) {
  switch (format_from_extension(path)) {
    case FileFormat::Las: return detail::open_las_reader(path, options);
    case FileFormat::Laz: return detail::open_laz_reader(path, options);
    case FileFormat::Sim: return detail::open_sim_reader(path, options);
    case FileFormat::Ply: return detail::open_ply_reader(path, options);
  }
  throw InvalidInput(fmt::format("'{}': unsupported format", path.string()));
}

FileInfo read_info(const std::filesystem::path& path) {
  switch (format_from_extension(path)) {
    case FileFormat::Las: return detail::read_las_info(path);
    case FileFormat::Laz: return detail::read_laz_info(path);
    case FileFormat::Sim: return detail::read_sim_info(path);
    case FileFormat::Ply: return detail::read_ply_info(path);
  }
  throw InvalidInput(fmt::format("'{}': unsupported format", path.string()));
}

namespace detail {

FileInfo read_stream_info(const std::filesystem::path& path) {
  return format_from_extension(path) == FileFormat::Laz ? read_laz_layout(path) : read_info(path);
}

}  // namespace detail

std::unique_ptr<PointWriter> create_writer(const std::filesystem::path& path,
                                           const WriterOptions& options) {
  // The format's writer fills a partial file; close() puts it at `path` (io/atomic_writer.hpp).
  const std::filesystem::path partial = detail::partial_path(path);
  switch (format_from_extension(path)) {
    case FileFormat::Las:
      return detail::make_atomic_writer(detail::create_las_writer(partial, options), path);
    case FileFormat::Laz:
      return detail::make_atomic_writer(detail::create_laz_writer(partial, options), path);
    case FileFormat::Sim:
      return detail::make_atomic_writer(detail::create_sim_writer(partial, options), path);
    case FileFormat::Ply:
      throw InvalidInput(fmt::format(
          "'{}': writing PLY is not supported (write .las, .laz or .sim)", path.string()));
  }
  throw InvalidInput(fmt::format("'{}': unsupported format", path.string()));
}

}  // namespace simlod
