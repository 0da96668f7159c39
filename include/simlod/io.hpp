// Point-cloud file I/O: streaming readers (LAS 1.0-1.4 formats 0-10, LAZ, SIM, PLY) and
// writers (LAS formats 2/7, LAZ, SIM). Readers never load a whole file: each read() fills the
// caller's span with the next points, so the span size is the batch size.
//
// Coordinates: a reader returns Point coordinates relative to a double-precision origin
// (FileInfo::origin, by default the minimum corner of the file's bounds) so that large
// georeferenced coordinates (UTM) keep their precision in float.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "simlod/bounds.hpp"
#include "simlod/point.hpp"

namespace simlod {

enum class FileFormat { Las, Laz, Sim, Ply };

[[nodiscard]] const char* to_string(FileFormat format);

/// Format from a file name's extension (.las, .laz, .sim, .ply, any case); throws InvalidInput.
[[nodiscard]] FileFormat format_from_extension(const std::filesystem::path& path);

/// The point-cloud files that `paths` stand for, in order: a file as it is, a folder as its
/// .las/.laz/.sim/.ply files sorted by name (not recursive); Streamer::open's rule. Throws
/// InvalidInput for no path, a path that does not exist or a folder without such files,
/// IoError for a folder that cannot be listed.
[[nodiscard]] std::vector<std::filesystem::path> point_cloud_files(
    const std::vector<std::filesystem::path>& paths);

/// What a reader knows about its file before reading points.
struct FileInfo {
  std::filesystem::path path;
  FileFormat format = FileFormat::Las;
  std::string version;    ///< "1.2" for LAS/LAZ, "binary_little_endian 1.0" for PLY, "" for SIM
  int point_format = -1;  ///< LAS point data format 0-10, -1 for other formats
  std::uint32_t record_length = 0;  ///< bytes per point record in the file (LAS/SIM/binary PLY)
  std::uint64_t point_count = 0;    ///< points the reader will return
  Bounds bounds;                    ///< file coordinates (from the header; computed for PLY)
  std::array<double, 3> scale{1.0, 1.0, 1.0};   ///< LAS/LAZ only
  std::array<double, 3> offset{0.0, 0.0, 0.0};  ///< LAS/LAZ only
  std::array<double, 3> origin{0.0, 0.0, 0.0};  ///< subtracted from every returned coordinate
  bool has_color = false;   ///< the file stores RGB (otherwise colours are derived)
  bool color_16bit = true;  ///< LAS: RGB fields hold 16-bit values (false: 8-bit stored in 16)
  std::string generator;    ///< LAS "generating software", PLY comment, "" otherwise
  /// Points between positions that PointReader::seek() reaches without decoding what lies
  /// before them: 1 for LAS and SIM, the chunk size for chunked LAZ, 0 when the file can only
  /// be read in order (PLY, LAZ without a chunk table). Parallel loaders split files there.
  std::uint64_t seek_step = 0;
};

struct ReaderOptions {
  /// Origin subtracted from coordinates; default: the minimum corner of the file's bounds
  /// (for PLY, which has no header bounds: 0).
  std::optional<std::array<double, 3>> origin;
  /// Decoder threads for LAZ (0 = all hardware threads). Other formats ignore it.
  unsigned threads = 0;
};

/// Streaming reader. Not thread-safe; one reader per thread.
class PointReader {
 public:
  virtual ~PointReader() = default;
  PointReader(const PointReader&) = delete;
  PointReader& operator=(const PointReader&) = delete;

  [[nodiscard]] const FileInfo& info() const { return info_; }
  /// Points returned so far.
  [[nodiscard]] std::uint64_t points_read() const { return points_read_; }
  [[nodiscard]] std::uint64_t points_left() const { return info_.point_count - points_read_; }

  /// Fills `out` with the next min(out.size(), points_left()) points and returns that count;
  /// 0 means the end. Throws IoError/InvalidInput naming the file, byte offset and point index
  /// on bad data; points returned by earlier calls stay valid.
  std::size_t read(std::span<Point> out) {
    const std::size_t n = read_impl(
        out.first(static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), points_left()))));
    points_read_ += n;
    return n;
  }

  /// Moves to point `index` (<= point_count); the next read() starts there. Cheap for LAS and
  /// SIM; LAZ decodes from the start of the chunk holding `index` (free at a chunk start, see
  /// FileInfo::seek_step). Throws InvalidInput naming the file when the format cannot seek
  /// (seek_step 0: PLY, unchunked LAZ) unless `index` is the current position, or when
  /// `index` lies past the end.
  void seek(std::uint64_t index);

 protected:
  PointReader() = default;
  /// Fills all of `out` (already clamped to points_left()); returns out.size().
  virtual std::size_t read_impl(std::span<Point> out) = 0;
  FileInfo info_;

 private:
  std::uint64_t points_read_ = 0;
};

/// Opens a reader; the format comes from the extension (.las/.laz/.sim/.ply). Throws IoError
/// (unreadable path) or InvalidInput (bad header), naming the file.
[[nodiscard]] std::unique_ptr<PointReader> open_reader(const std::filesystem::path& path,
                                                       const ReaderOptions& options = {});

/// Reads only the header (cheap); same errors as open_reader.
[[nodiscard]] FileInfo read_info(const std::filesystem::path& path);

struct WriterOptions {
  /// Added to every written coordinate (pass the reader's FileInfo::origin to keep
  /// georeferenced coordinates). SIM stores coordinates as float and ignores the origin.
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  /// LAS/LAZ quantisation step per axis.
  std::array<double, 3> scale{0.001, 0.001, 0.001};
  /// LAS/LAZ point data format: 2 (LAS 1.2) or 7 (LAS 1.4).
  int las_point_format = 2;
};

/// Streaming writer; headers that depend on the content (count, bounds) are written by close().
class PointWriter {
 public:
  virtual ~PointWriter() = default;
  PointWriter(const PointWriter&) = delete;
  PointWriter& operator=(const PointWriter&) = delete;

  /// Appends points. Throws IoError on write failure, InvalidInput for non-finite coordinates.
  virtual void write(std::span<const Point> points) = 0;
  /// Finishes the file (header, bounds, counts). Called by the destructor if not called, but
  /// only an explicit call reports errors.
  virtual void close() = 0;
  [[nodiscard]] std::uint64_t points_written() const { return points_written_; }

 protected:
  PointWriter() = default;
  std::uint64_t points_written_ = 0;
};

/// Creates a writer for .las, .laz or .sim (by extension); throws InvalidInput for other
/// extensions and IoError when the file cannot be created. The points go to
/// "<path>.partial-<pid>" first; close() renames that over `path`, so a failed or killed
/// writer never leaves a partial file under `path`, and an older file there stays until the
/// new one is complete. A writer destroyed while an exception unwinds removes its partial file;
/// one destroyed without close() otherwise finishes the file as close() would.
[[nodiscard]] std::unique_ptr<PointWriter> create_writer(const std::filesystem::path& path,
                                                         const WriterOptions& options = {});

/// True when this build can read and write LAZ (LASzip was found at build time).
[[nodiscard]] bool laz_supported();

}  // namespace simlod
